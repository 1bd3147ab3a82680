package hook

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// BenchmarkRun measures one hook invocation without the engine: read,
// decode, a fake decision, encode, write.
func BenchmarkRun(b *testing.B) {
	deny := toolgate.Decision{Outcome: toolgate.Deny, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Rule: "Bash(rm -rf:*)", Effect: "deny",
		Source: "project", File: "/p/.toolgate/policy.yaml", Line: 4, Column: 5, Part: "rm -rf build", Message: "recursive removal is not allowed"}}}
	decide := func(toolgate.Call) (toolgate.Decision, error) { return deny, nil }
	for _, c := range Clients {
		b.Run(string(c), func(b *testing.B) {
			r := strings.NewReader(benchPayloads[c])
			var out bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				r.Seek(0, io.SeekStart)
				out.Reset()
				if exit := Run(context.Background(), c, r, &out, io.Discard, decide, nil); exit != 0 {
					b.Fatal(exit)
				}
			}
		})
	}
}

// BenchmarkDecode measures reading one hook payload into a call.
func BenchmarkDecode(b *testing.B) {
	for _, c := range Clients {
		b.Run(string(c), func(b *testing.B) {
			payload := []byte(benchPayloads[c])
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Decode(c, payload); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchPayloads are a typical payload of each client.
var benchPayloads = map[Client]string{
	Claude: `{"session_id":"4f1c2a9e","transcript_path":"/h/.claude/projects/p/4f1c2a9e.jsonl","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf build","description":"clean"},"tool_use_id":"toolu_01"}`,
	Gemini: `{"session_id":"8d5e","cwd":"/p","hook_event_name":"BeforeTool","timestamp":"2026-11-30T09:17:00Z","tool_name":"mcp_db_query","tool_input":{"sql":"select 1"},"mcp_context":{"server_name":"db","tool_name":"query"}}`,
	Codex:  `{"session_id":"0199","turn_id":"t","cwd":"/p","hook_event_name":"PreToolUse","model":"m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"c"}`,
	Cursor: `{"conversation_id":"c","generation_id":"g","workspace_roots":["/p"],"hook_event_name":"beforeShellExecution","command":"rm -rf build","cwd":"/p"}`,
}
