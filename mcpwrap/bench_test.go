package mcpwrap

import (
	"fmt"
	"strings"
	"testing"
)

// largeClaudeJSON is a ~/.claude.json of the size heavy users have: many
// projects with history-like data, and servers at the top and in projects.
func largeClaudeJSON(projects, servers int) string {
	var b strings.Builder
	b.WriteString("{\n  \"numStartups\": 400,\n  \"mcpServers\": {\n")
	for i := range servers {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"s%d\": {\"type\": \"stdio\", \"command\": \"npx\", \"args\": [\"-y\", \"server-%d\"], \"env\": {\"K\": \"v\"}}", i, i)
	}
	b.WriteString("\n  },\n  \"projects\": {\n")
	for i := range projects {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"/home/u/p%d\": {\"allowedTools\": [], \"history\": [%s], \"mcpServers\": {\"db\": {\"command\": \"uvx\", \"args\": [\"mcp-server-sqlite\"]}}}",
			i, strings.TrimSuffix(strings.Repeat(`{"display": "some prompt text that was typed", "pastedContents": {}},`, 20), ","))
	}
	b.WriteString("\n  }\n}\n")
	return b.String()
}

// BenchmarkWrapLargeClaudeJSON wraps and unwraps a 300 KB ~/.claude.json
// with 10 user servers and 200 projects with one server each.
func BenchmarkWrapLargeClaudeJSON(b *testing.B) {
	src := []byte(largeClaudeJSON(200, 10))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := WrapText(Claude, "/home/u/.claude.json", src, nil, &Options{Command: testCommand})
		if err != nil || len(w.Entries) != 210 {
			b.Fatalf("%v, %d entries", err, len(w.Entries))
		}
		u, err := UnwrapText(Claude, "/home/u/.claude.json", w.Content, w.State, nil)
		if err != nil || !u.Identical {
			b.Fatalf("%v, identical %v", err, u.Identical)
		}
	}
}
