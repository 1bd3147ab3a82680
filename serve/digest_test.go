package serve

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDigestMemo: the memo answers what callDigest answers, for calls it
// remembers, calls it does not, calls that differ in one part only, and a
// call whose input changed in place after it was remembered.
func TestDigestMemo(t *testing.T) {
	m := newDigestMemo()
	big := `{"command":"` + strings.Repeat("x", maxMemoized) + `"}`
	calls := []Call{
		{Tool: "Bash", Input: json.RawMessage(`{"command":"ls","timeout":1}`), Cwd: "/w"},
		{Tool: "Bash", Input: json.RawMessage(` { "timeout" : 1, "command":"ls" }`), Cwd: "/w"},
		{Tool: "Bash", Input: json.RawMessage(`{"command":"ls","timeout":1}`), Cwd: "/x"},
		{Tool: "bash", Input: json.RawMessage(`{"command":"ls","timeout":1}`), Cwd: "/w"},
		{Tool: "Bash", Cwd: "/w"},
		{Tool: "Bash", Input: json.RawMessage(big), Cwd: "/w"},
	}
	for range 3 {
		for _, c := range calls {
			want, werr := callDigest(c)
			got, err := m.digest(c)
			if got != want || (err != nil) != (werr != nil) {
				t.Fatalf("%s %s: memo %q (%v), callDigest %q (%v)", c.Tool, c.Input, got, err, want, werr)
			}
		}
	}
	bad := Call{Tool: "Bash", Input: json.RawMessage(`[1]`)}
	for range 2 {
		if _, err := m.digest(bad); err == nil {
			t.Fatal("a non-object input has a digest")
		}
	}
	// The memo keeps copies: a request buffer reused for another call
	// does not make it answer for the old one.
	in := []byte(`{"command":"rm -rf a"}`)
	c := Call{Tool: "Bash", Input: in, Cwd: "/w"}
	first, _ := m.digest(c)
	copy(in, `{"command":"rm -rf b"}`)
	second, _ := m.digest(c)
	if want, _ := callDigest(c); second != want || second == first {
		t.Fatalf("after the input changed: %q, want %q (before %q)", second, want, first)
	}
}
