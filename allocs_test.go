package toolgate_test

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate"
)

// TestDecideAllocations keeps the hot path allocation-light: a non-shell
// decision allocates its reason and, for a path or URL, the text read from
// the input, nothing more. Counted with testing.AllocsPerRun (a count, not a timing).
func TestDecideAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	cfg := benchPolicy(t, 1000)
	for _, tc := range []struct {
		name, tool, input string
		max               float64
	}{
		{"Read", "Read", `{"file_path":"/p/src/main.go"}`, 2},
		{"Edit", "Edit", `{"file_path":"/p/src/main.go","old_string":"a","new_string":"b"}`, 2},
		{"MCP", "mcp__github__get_issue", `{"owner":"o","repo":"r","number":12}`, 1},
		{"WebFetch", "WebFetch", `{"url":"https://api.example.com/v1/items?x=1"}`, 2},
		// A URL that is not its own serialisation (an uppercase host, a
		// default port) is read by net/url too, and its serialisation built.
		{"WebFetchUnnormal", "WebFetch", `{"url":"https://API.example.com:443/v1/items?x=1"}`, 8},
		// A plain command list is parsed into memory the analyzer keeps
		// (shell.plainParse): what is left is the command text, the paths
		// it names, the deciding reason and, for an ask, the prompt and
		// suggestions (a part's reason is built only if it decides).
		{"BashSimple", "Bash", `{"command":"git status"}`, 3},
		{"BashCompound", "Bash", `{"command":"cargo build && npm run test | tee out.log"}`, 13},
		// Allowed by default_read_only: no suggestion is built for them
		// (TodoWrite: its reason only).
		{"ReadDefault", "Read", `{"file_path":"/p/docs/guide.md"}`, 2},
		{"BashReadOnly", "Bash", `{"command":"ls docs"}`, 3},
		{"TodoWrite", "TodoWrite", `{"todos":[]}`, 1},
		// Quoted words and redirections are read by plainParse too.
		{"BashQuoted", "Bash", `{"command":"git \"status\""}`, 5},
		{"BashRedirect", "Bash", `{"command":"git status 2>&1"}`, 4},
		// A command with a comment is left to mvdan's parser, which
		// allocates its node batches on every parse.
		{"BashComment", "Bash", `{"command":"git status # for the log"}`, 11},
	} {
		call := toolgate.Call{Tool: tc.tool, Input: json.RawMessage(tc.input), Cwd: "/p", Home: "/home/u"}
		cfg.Decide(call) // warm the pools
		n := testing.AllocsPerRun(200, func() {
			if d := cfg.Decide(call); d.Outcome == toolgate.Invalid {
				t.Fatalf("%s: invalid: %v", tc.name, d.Reasons)
			}
		})
		if n > tc.max {
			t.Errorf("%s: %v allocations a decision, want at most %v", tc.name, n, tc.max)
		}
	}
}
