package jsondoc

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParsePointer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"/", []string{""}, ""},
		{"/a/b", []string{"a", "b"}, ""},
		{"/a~1b/m~0n", []string{"a/b", "m~n"}, ""},
		{"/~01", []string{"~1"}, ""}, // ~0 first, then the 1 is literal
		{"//", []string{"", ""}, ""},
		{"a", nil, "must be empty or start with"},
		{"/a~", nil, "bad escape"},
		{"/a~2", nil, "bad escape"},
	} {
		got, err := ParsePointer(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePointer(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParsePointer(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestSetRemove(t *testing.T) {
	for _, tc := range []struct {
		op, doc, ptr, val string
		want, err         string
	}{
		{"set", `{"a":1}`, "/a", `2`, `{"a":2}`, ""},
		{"set", `{}`, "/a/b/c", `true`, `{"a":{"b":{"c":true}}}`, ""},
		{"set", `{"a":null}`, "/a/b", `1`, `{"a":{"b":1}}`, ""},
		{"set", `{"a":[1,2]}`, "/a/-", `3`, `{"a":[1,2,3]}`, ""},
		{"set", `{"a":[1,2]}`, "/a/1", `9`, `{"a":[1,9]}`, ""},
		{"set", `{"a":[{"x":1}]}`, "/a/0/x", `2`, `{"a":[{"x":2}]}`, ""},
		{"set", `{"a":1}`, "", `[1]`, `[1]`, ""},
		{"set", `{"a":12345678901234567890}`, "/b", `1`, `{"a":12345678901234567890,"b":1}`, ""},
		{"set", `{"a":[1]}`, "/a/1", `2`, "", "out of range"},
		{"set", `{"a":[1]}`, "/a/01", `2`, "", "out of range"},
		{"set", `{"a":[1]}`, "/a/+0", `2`, "", "out of range"},
		{"set", `{"a":[1]}`, "/a/-/x", `2`, "", "last token"},
		{"set", `{"a":"s"}`, "/a/b", `2`, "", "inside a string"},
		{"set", `{"a":1}`, "/a/b", `2`, "", "inside a number"},
		{"remove", `{"a":1,"b":2}`, "/a", "", `{"b":2}`, ""},
		{"remove", `{"a":{"b":1,"c":2}}`, "/a/b", "", `{"a":{"c":2}}`, ""},
		{"remove", `{"a":[1,2,3]}`, "/a/1", "", `{"a":[1,3]}`, ""},
		{"remove", `{"a":[1,2,3]}`, "/a/9", "", `{"a":[1,2,3]}`, ""},
		{"remove", `{"a":1}`, "/x/y", "", `{"a":1}`, ""},
		{"remove", `{"a":"s"}`, "/a/b", "", `{"a":"s"}`, ""},
		{"remove", `{"a":1}`, "", "", "", "whole document"},
		{"remove", `{"a":1}`, "a", "", "", "must be empty or start with"},
	} {
		doc, err := Decode([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		var out any
		if tc.op == "set" {
			v, verr := Decode([]byte(tc.val))
			if verr != nil {
				t.Fatal(verr)
			}
			out, err = Set(doc, tc.ptr, v)
		} else {
			out, err = Remove(doc, tc.ptr)
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s %q: error = %v, want %q", tc.op, tc.doc, tc.ptr, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s %q: %v", tc.op, tc.doc, tc.ptr, err)
			continue
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		if !Equal(b, []byte(tc.want)) {
			t.Errorf("%s %s %q = %s, want %s", tc.op, tc.doc, tc.ptr, b, tc.want)
		}
	}
}

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{"a":1,"b":[1,2]}`, `{ "b":[1,2], "a":1 }`, true},
		{`{"a":[1,2]}`, `{"a":[2,1]}`, false},
		{`12345678901234567890`, `12345678901234567891`, false}, // float64 would call these equal
		{`1`, `1.0`, false},
		{`"x"`, `"\u0078"`, true},
		{`null`, `null`, true},
		{`{`, `{`, false},
		{`1 2`, `1 2`, false},
		{`{"a":1}`, `{"a":1} x`, false},
	} {
		if got := Equal([]byte(tc.a), []byte(tc.b)); got != tc.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// escapeToken is the inverse of one token's unescaping.
func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// FuzzPointer checks that ParsePointer inverts escaping, that Set and Remove
// never panic and leave encodable documents, and that a value set at a
// pointer into objects is there afterwards and gone after Remove.
func FuzzPointer(f *testing.F) {
	for _, s := range [][2]string{
		{`{"a":{"b":[1,2]}}`, "/a/b/0"},
		{`{"a":[]}`, "/a/-"},
		{`{}`, "/x~1y/z~0"},
		{`[1,{"k":null}]`, "/1/k/q"},
		{`"s"`, ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, doc, ptr string) {
		toks, err := ParsePointer(ptr)
		if err == nil {
			var b strings.Builder
			for _, tok := range toks {
				b.WriteString("/" + escapeToken(tok))
			}
			if b.String() != ptr {
				t.Fatalf("ParsePointer(%q) = %q, which escapes back to %q", ptr, toks, b.String())
			}
		}
		d, derr := Decode([]byte(doc))
		if derr != nil {
			return
		}
		set, serr := Set(d, ptr, json.Number("7"))
		if serr == nil {
			if _, err := json.Marshal(set); err != nil {
				t.Fatalf("Set left an unencodable document: %v", err)
			}
		}
		d, _ = Decode([]byte(doc))
		if rem, rerr := Remove(d, ptr); rerr == nil {
			if _, err := json.Marshal(rem); err != nil {
				t.Fatalf("Remove left an unencodable document: %v", err)
			}
		}
		// Into a fresh object, every pointer but the empty one can be set,
		// read back and removed again.
		if err != nil || len(toks) == 0 {
			return
		}
		obj, err := Set(map[string]any{}, ptr, "v")
		if err != nil {
			t.Fatalf("Set into {} at %q: %v", ptr, err)
		}
		cur := obj
		for _, tok := range toks {
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("Set into {} at %q made a %T on the way", ptr, cur)
			}
			cur = m[tok]
		}
		if cur != "v" {
			t.Fatalf("Set into {} at %q: the value read back is %v", ptr, cur)
		}
		obj, err = Remove(obj, ptr)
		if err != nil {
			t.Fatal(err)
		}
		cur = obj
		for _, tok := range toks[:len(toks)-1] {
			cur = cur.(map[string]any)[tok]
		}
		if _, ok := cur.(map[string]any)[toks[len(toks)-1]]; ok {
			t.Fatalf("Remove at %q left the value", ptr)
		}
	})
}
