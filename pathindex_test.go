package toolgate

import (
	"fmt"
	"testing"
)

func specs(texts ...string) []RuleSpec {
	out := make([]RuleSpec, len(texts))
	for i, t := range texts {
		out[i] = RuleSpec{Text: t, Pos: Position{File: "p.yaml", Line: i + 1, Column: 3}}
	}
	return out
}

// TestPathIndexFindsUnkeyedShapes checks, through the engine, that rules
// whose patterns have no literal segment are still found among many others
// (the index offers them by the start or end of their last segment).
func TestPathIndexFindsUnkeyedShapes(t *testing.T) {
	var deny []string
	for i := range 200 {
		deny = append(deny, fmt.Sprintf("Read(**/*.x%05d)", i), fmt.Sprintf("Read(**/cfg%d*)", i))
	}
	deny = append(deny, "Read(**/secret*)", "Read(**/*.pem)", "Read(id_*.pub)", "Edit(**/*.lock)")
	c, err := Compile([]Layer{{Source: SourceProject, File: "p.yaml", Deny: specs(deny...), Allow: specs("Read", "Edit", "Bash(cat:*)")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool, input string
		want        Outcome
	}{
		{"Read", `{"file_path":"/p/a/SECRETS.md"}`, Deny},
		{"Read", `{"file_path":"/p/a/x.x00042"}`, Deny},
		{"Read", `{"file_path":"/p/a/x.X00199"}`, Deny},
		{"Read", `{"file_path":"/p/a/x.x00200"}`, Allow},
		{"Read", `{"file_path":"/p/k/CERT.PEM"}`, Deny},
		{"Read", `{"file_path":"/p/k/cert.pem::$DATA"}`, Deny},
		{"Read", `{"file_path":"/p/k/ſecret"}`, Deny},
		{"Read", `{"file_path":"/p/cfg17.yaml"}`, Deny},
		{"Read", `{"file_path":"/p/id_rsa.pub"}`, Deny},
		{"Read", `{"file_path":"/p/src/main.go"}`, Allow},
		{"Edit", `{"file_path":"/p/go.lock","old_string":"a","new_string":"b"}`, Deny},
		{"Bash", `{"command":"cat notes/secret.txt"}`, Deny},
		{"Bash", `{"command":"cat a/b/c.x00007"}`, Deny},
		{"Bash", `{"command":"cat src/main.go"}`, Allow},
	} {
		d := c.Decide(Call{Tool: tc.tool, Input: []byte(tc.input), Cwd: "/p", Home: "/h"})
		if d.Outcome != tc.want {
			t.Errorf("%s %s = %v (%v), want %v", tc.tool, tc.input, d.Outcome, d.Reasons, tc.want)
		}
	}
}

// TestDomainIndex checks, through the engine, that domain:HOST rules are
// found by the host's label suffixes among many others, in every reading.
func TestDomainIndex(t *testing.T) {
	var allow []string
	for i := range 500 {
		allow = append(allow, fmt.Sprintf("WebFetch(domain:*.site%d.example)", i), fmt.Sprintf("WebFetch(domain:api%d.example.org)", i))
	}
	c, err := Compile([]Layer{{Source: SourceProject, File: "p.yaml",
		Allow: specs(allow...),
		Deny:  specs("WebFetch(domain:*.evil.example)", "WebFetch(domain:10.0.0.*)", "WebFetch(domain:bad*.example.net)"),
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url  string
		want Outcome
	}{
		{"https://docs.site7.example/x", Allow},
		{"https://API12.example.org/v1", Allow},
		{"https://a.EVIL.example./x", Deny},
		{"https://evil.example/x", Ask}, // *. needs a label before it
		{"https://badger.example.net/", Deny},
		{"http://10.0.0.7/", Deny},
		{"http://0x0a000007/", Deny},
		{"https://api12.example.org.evil.example/", Deny},
		{"https://other.example/", Ask},
	} {
		d := c.Decide(Call{Tool: "WebFetch", Input: []byte(`{"url":"` + tc.url + `"}`), Cwd: "/p", Home: "/h"})
		if d.Outcome != tc.want {
			t.Errorf("%s = %v (%v), want %v", tc.url, d.Outcome, d.Reasons, tc.want)
		}
	}
}
