package jsonin

import "testing"

// hookPayload is a Claude Code PreToolUse payload: an object of many short
// keys, each checked against the earlier ones for duplicates.
const hookPayload = `{"session_id":"4f1c2a9e","transcript_path":"/h/.claude/projects/p/4f1c2a9e.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git diff --stat HEAD~1","description":"show the change"},"tool_use_id":"toolu_01"}`

// BenchmarkHookPayload parses a hook payload into a held Doc.
func BenchmarkHookPayload(b *testing.B) {
	var d Doc
	in := []byte(hookPayload)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Parse(in); err != nil {
			b.Fatal(err)
		}
	}
}
