package serve

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzParseCall: the request parser never panics, and a call it accepts
// survives a round trip through the client's encoding unchanged.
func FuzzParseCall(f *testing.F) {
	for _, s := range []string{
		`{"tool":"Bash","input":{"command":"ls"},"cwd":"/w","session":"s","agent":"a","server":"m","home":"/h"}`,
		`{"tool":"Read","input":null,"read_only":false,"mode":"plan"}`,
		`{"tool":"x","input":{"a":[1,2,{"b":"\u202e"}]},"mode":{"name":"plan"}}`,
		`{"tool":1}`, `[]`, `{"tool":"a","tool":"b"}`, "{\"tool\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, rerr := parseCall(data, callDefaults{cwd: "/d"})
		if rerr != nil {
			if rerr.Msg == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		b, err := requestJSON(c)
		if err != nil {
			t.Fatalf("accepted call does not encode: %v", err)
		}
		c2, rerr := parseCall(b, callDefaults{cwd: "/d"})
		if rerr != nil {
			t.Fatalf("re-encoded call %s rejected: %s", b, rerr.Msg)
		}
		if c.Tool != c2.Tool || c.Cwd != c2.Cwd || c.Home != c2.Home || c.Agent != c2.Agent || c.Session != c2.Session ||
			c.Server != c2.Server || c.NotReadOnly != c2.NotReadOnly || (c.Mode == nil) != (c2.Mode == nil) {
			t.Fatalf("round trip changed the call: %+v → %+v", c, c2)
		}
		if len(c.Input) > 0 && !bytes.Equal(compact(c.Input), compact(c2.Input)) {
			t.Fatalf("round trip changed the input: %s → %s", c.Input, c2.Input)
		}
	})
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// FuzzTokens: the token file parser never panics and accepts only known
// roles and well-formed hashes.
func FuzzTokens(f *testing.F) {
	f.Add([]byte("agent a " + HashToken("x") + "\n# c\n\napprover b " + HashToken("y")))
	f.Add([]byte("admin a sha256:zz"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := parseTokens("f", data)
		if err != nil {
			return
		}
		for _, id := range ts.byHash {
			if id.Role != RoleAgent && id.Role != RoleApprover && id.Role != RoleAdmin {
				t.Fatalf("role %q accepted", id.Role)
			}
		}
	})
}

// FuzzAuthZEN: an AuthZEN request maps to a request the strict parser
// reads, or to an error; never a panic.
func FuzzAuthZEN(f *testing.F) {
	f.Add([]byte(`{"subject":{"type":"agent","id":"a"},"action":{"name":"Bash"},"resource":{"type":"command","id":"ls"},"context":{"cwd":"/w","x":1}}`))
	f.Add([]byte(`{"action":{"name":"Read"},"resource":{"type":"x","id":"p","properties":{"field":"path"}},"context":{"input":{"a":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r azRequest
		if json.Unmarshal(data, &r) != nil {
			return
		}
		b, err := r.toRequest()
		if err != nil {
			return
		}
		parseCall(b, callDefaults{})
	})
}
