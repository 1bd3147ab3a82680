package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/hook"
)

// Claude Code 2.1.332, observed (consistent with shared/REALCLIENTS.md):
//
//   - The hook runs in --permission-mode bypassPermissions too (IS_SANDBOX=1
//     as root), and its deny stops Bash there: the model gets an error
//     tool_result "PreToolUse:Bash hook error: <toolgate's reason>", and the
//     call is listed in the result's permission_denials.
//   - A hook "ask" in claude -p is refused by Claude Code at once, in
//     bypassPermissions as in default mode — except, in bypassPermissions,
//     for writes to Claude's own "sensitive" paths (.git/, .claude/), which
//     it then runs (bind_test.go). So toolgate answers deny in
//     bypassPermissions: the "asked" case below gets toolgate's deny, with
//     the ask rule in the reason.
//   - Exit status 2 from the hook (toolgate's answer when the configuration
//     does not load) blocks the call; the tool_result is "PreToolUse:Bash
//     hook error: [<hook command>]: <standard error>".
//   - "allow" with updatedInput runs the rewritten command only.
//   - With CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 the only requests the
//     mock sees are the two POST /v1/messages turns; a run takes ~0.5 s.

// TestClaude drives Claude Code against a mock of the Messages API.
func TestClaude(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "claude")
	scs := scenarios()
	// The ask case once more in Claude Code's default permission mode.
	for _, sc := range scs {
		if sc.name == "asked" {
			sc.name = "asked_default_mode"
			scs = append(scs, sc)
			break
		}
	}
	for _, sc := range scs {
		t.Run(sc.name, func(t *testing.T) {
			mode := "bypassPermissions"
			if strings.HasSuffix(sc.name, "_default_mode") {
				mode = "default"
			}
			w := newWorkspace(t, sc)
			if !sc.noHook {
				install(t, hook.Claude, hook.InstallOptions{Scope: hook.ScopeProject, Dir: w.project, Home: w.home})
			}
			rec := &recorder{}
			srv := httptest.NewServer(claudeMock(t, rec, "Bash", map[string]string{"command": sc.command}))
			defer srv.Close()
			env := append(baseEnv(w),
				"ANTHROPIC_BASE_URL="+srv.URL,
				"ANTHROPIC_API_KEY=toolgate-e2e-fake-key",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"CLAUDE_CODE_MAX_RETRIES=0",
				"DISABLE_AUTOUPDATER=1",
			)
			if mode == "bypassPermissions" && os.Geteuid() == 0 {
				env = append(env, "IS_SANDBOX=1") // bypassPermissions is refused to root otherwise
			}
			r := runAgent(t, w, env, bin, "-p", "Run the command.", "--output-format", "json", "--permission-mode", mode)
			requests, results := rec.snapshot()
			if r.err != nil {
				t.Errorf("claude: %v", r.err)
			}
			check(t, sc, w, results)
			checkClaudeDenials(t, sc, r.stdout)
			if t.Failed() {
				logRun(t, r)
				t.Logf("mock requests: %q", requests)
			}
		})
	}
}

// checkClaudeDenials checks the permission_denials of claude -p's JSON
// result: the proposed command is listed exactly when the scenario expects
// the call to be blocked.
func checkClaudeDenials(t *testing.T, sc scenario, stdout string) {
	t.Helper()
	var res struct {
		PermissionDenials *[]struct {
			ToolName  string `json:"tool_name"`
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
		} `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.PermissionDenials == nil {
		t.Errorf("claude -p printed no JSON result with permission_denials (%v)", err)
		return
	}
	denied := false
	for _, d := range *res.PermissionDenials {
		denied = denied || (d.ToolName == "Bash" && d.ToolInput.Command == sc.command)
	}
	if want := sc.blocked; denied != want {
		t.Errorf("permission_denials lists %q: %v, want %v", sc.command, denied, want)
	}
}

// claudeMock serves POST /v1/messages as a streaming model: the first turn
// proposes a call of tool with input, every later turn (or a request that
// does not offer the tool) ends with text. It records the tool_result blocks
// it receives.
func claudeMock(t *testing.T, rec *recorder, tool string, input any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec.request(req.Method, req.URL.Path)
		if req.Method != http.MethodPost || req.URL.Path != "/v1/messages" {
			http.NotFound(w, req)
			return
		}
		body, err := readBody(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var msg struct {
			Tools    []struct{ Name string } `json:"tools"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			t.Errorf("claude mock: bad request body: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var results []string
		for _, m := range msg.Messages {
			var blocks []struct {
				Type    string          `json:"type"`
				IsError bool            `json:"is_error"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue // a plain string
			}
			for _, b := range blocks {
				if b.Type == "tool_result" {
					results = append(results, fmt.Sprintf("is_error=%v %s", b.IsError, toolResultText(b.Content)))
				}
			}
		}
		rec.addResults(results)
		offered := false
		for _, tl := range msg.Tools {
			offered = offered || tl.Name == tool
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if offered && rec.propose() {
			in, _ := json.Marshal(input)
			writeClaudeStream(w, "tool_use",
				map[string]any{"type": "tool_use", "id": "toolu_e2e_1", "name": tool, "input": map[string]any{}},
				map[string]any{"type": "input_json_delta", "partial_json": string(in)})
			return
		}
		writeClaudeStream(w, "end_turn",
			map[string]any{"type": "text", "text": ""},
			map[string]any{"type": "text_delta", "text": "Done."})
	})
}

// toolResultText flattens a tool_result's content: a string or a list of
// text blocks.
func toolResultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type, Text string
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// writeClaudeStream writes one assistant message of one content block as
// Messages API server-sent events.
func writeClaudeStream(w http.ResponseWriter, stop string, block, delta map[string]any) {
	event := func(name string, data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_e2e", "type": "message", "role": "assistant", "model": "claude-e2e-mock",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
	}})
	event("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": block})
	event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": delta})
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{"type": "message_stop"})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
