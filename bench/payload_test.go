package bench

import "testing"

// TestToolgatePayloads: toolgate's adapter denies every payload that is not
// one well-formed JSON object with string fields where strings belong, and
// decides a well-formed one.
func TestToolgatePayloads(t *testing.T) {
	_, es := engines(t, Mixed, 20)
	tg := es[0]
	const in = `"tool_input":{"command":"git diff --stat HEAD~1"}`
	good := `{"tool_name":"Bash",` + in + `,"cwd":"` + Cwd + `"}`
	if got := tg.Decide([]byte(good)); got != Allow {
		t.Fatalf("well-formed payload: got %s, want allow", got)
	}
	for _, tc := range []struct{ name, payload string }{
		{"empty", ``},
		{"truncated", good[:len(good)-1]},
		{"trailing data", good + ` {}`},
		{"array", `[` + good + `]`},
		{"string", `"Bash"`},
		{"tool name a number", `{"tool_name":1,` + in + `,"cwd":"` + Cwd + `"}`},
		{"cwd an object", `{"tool_name":"Bash",` + in + `,"cwd":{}}`},
		{"duplicate key", `{"tool_name":"Read","tool_name":"Bash",` + in + `,"cwd":"` + Cwd + `"}`},
		{"invalid UTF-8", `{"tool_name":"Bash",` + in + `,"cwd":"` + Cwd + "\xff" + `"}`},
		{"input a string", `{"tool_name":"Bash","tool_input":"git diff --stat HEAD~1","cwd":"` + Cwd + `"}`},
		{"input missing", `{"tool_name":"Bash","cwd":"` + Cwd + `"}`},
		{"bad escape", `{"tool_name":"Bash",` + in + `,"cwd":"\q"}`},
	} {
		if got := tg.Decide([]byte(tc.payload)); got != Deny {
			t.Errorf("%s: got %s, want deny", tc.name, got)
		}
	}
}
