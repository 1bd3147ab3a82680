package bench

import "testing"

// TestToolgatePayloads: toolgate's adapter denies every payload that is not
// one well-formed JSON object with string fields where strings belong, and
// decides a well-formed one.
func TestToolgatePayloads(t *testing.T) {
	_, es := engines(t, Mixed, 20)
	tg := es[0]
	const in = `"tool_input":{"command":"git diff --stat HEAD~1"}`
	good := `{"hook_event_name":"PreToolUse","tool_name":"Bash",` + in + `,"cwd":"` + Cwd + `"}`
	if got := tg.Decide([]byte(good)); got != Allow {
		t.Fatalf("well-formed payload: got %s, want allow", got)
	}
	for _, tc := range []struct{ name, payload string }{
		{"empty", ``},
		{"truncated", good[:len(good)-1]},
		{"trailing data", good + ` {}`},
		{"array", `[` + good + `]`},
		{"string", `"Bash"`},
		{"another event", `{"hook_event_name":"PostToolUse","tool_name":"Bash",` + in + `,"cwd":"` + Cwd + `"}`},
		{"tool name a number", `{"hook_event_name":"PreToolUse","tool_name":1,` + in + `,"cwd":"` + Cwd + `"}`},
		{"cwd an object", `{"hook_event_name":"PreToolUse","tool_name":"Bash",` + in + `,"cwd":{}}`},
		{"duplicate key", `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash",` + in + `,"cwd":"` + Cwd + `"}`},
		{"invalid UTF-8", `{"hook_event_name":"PreToolUse","tool_name":"Bash",` + in + `,"cwd":"` + Cwd + "\xff" + `"}`},
		{"input a string", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"git diff --stat HEAD~1","cwd":"` + Cwd + `"}`},
		{"input missing", `{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"` + Cwd + `"}`},
		{"bad escape", `{"hook_event_name":"PreToolUse","tool_name":"Bash",` + in + `,"cwd":"\q"}`},
	} {
		if got := tg.Decide([]byte(tc.payload)); got != Deny {
			t.Errorf("%s: got %s, want deny", tc.name, got)
		}
	}
}
