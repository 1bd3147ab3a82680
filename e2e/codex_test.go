package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate/hook"
)

// Codex CLI 0.171.0, observed (consistent with shared/REALCLIENTS.md):
//
//   - The hook runs with --dangerously-bypass-approvals-and-sandbox, and a
//     deny with a reason blocks exec_command there; the model receives the
//     function_call_output "Command blocked by PreToolUse hook: <reason>.
//     Command: <command>".
//   - An ask is answered as a deny by toolgate (Codex would run the command);
//     the output carries toolgate's "nobody can be asked" reason and the rule.
//   - Exit status 2 (a configuration that does not load) blocks the call the
//     same way, with toolgate's standard error as the reason.
//   - "allow" with updatedInput runs the rewritten command only.
//   - The hook entry hook.Install appends to $CODEX_HOME/config.toml (matcher
//     ".*") is honoured; the mock sees only POST /v1/responses, ~0.4 s a run.

// TestCodex drives Codex CLI against a mock of the Responses API.
func TestCodex(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "codex")
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			w := newWorkspace(t, sc)
			rec := &recorder{}
			args, _ := json.Marshal(map[string]string{"cmd": sc.command})
			srv := httptest.NewServer(codexMock(t, rec, map[string]any{"type": "function_call", "id": "fc_e2e_1",
				"call_id": "call_e2e_1", "name": "exec_command", "arguments": string(args)}))
			defer srv.Close()
			codexHome := filepath.Join(w.home, ".codex")
			writeFile(t, filepath.Join(codexHome, "config.toml"), codexMockConfig("e2e-mock", srv.URL))
			if !sc.noHook {
				install(t, hook.Codex, hook.InstallOptions{Scope: hook.ScopeUser, Home: w.home, CodexHome: codexHome})
			}
			env := append(baseEnv(w),
				"CODEX_HOME="+codexHome,
				"TOOLGATE_E2E_KEY=toolgate-e2e-fake-key",
			)
			r := runAgent(t, w, env, bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
				"--dangerously-bypass-approvals-and-sandbox", "--json", "Run the command.")
			requests, results := rec.snapshot()
			if r.err != nil {
				t.Errorf("codex: %v", r.err)
			}
			check(t, sc, w, results)
			if t.Failed() {
				logRun(t, r)
				t.Logf("mock requests: %q", requests)
			}
		})
	}
}

// codexMockConfig is a Codex config.toml that talks to the mock Responses
// API at url as the model named model (its key in TOOLGATE_E2E_KEY); more
// tables may follow it.
func codexMockConfig(model, url string) string {
	return fmt.Sprintf(`model = %q
model_provider = "e2emock"

[model_providers.e2emock]
name = "e2e mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "TOOLGATE_E2E_KEY"
`, model, url)
}

// codexMock serves POST /v1/responses as a streaming model: the first turn
// outputs item (a function_call or custom_tool_call), every later turn
// answers with a message. It records the function_call_output and
// custom_tool_call_output items it receives, and the tools offered.
func codexMock(t *testing.T, rec *recorder, item map[string]any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec.request(req.Method, req.URL.Path)
		if req.Method != http.MethodPost || req.URL.Path != "/v1/responses" {
			http.NotFound(w, req)
			return
		}
		body, err := readBody(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var msg struct {
			Tools []struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"tools"`
			Input []struct {
				Type   string          `json:"type"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			t.Errorf("codex mock: bad request body: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var results []string
		for _, item := range msg.Input {
			if item.Type == "function_call_output" || item.Type == "custom_tool_call_output" {
				results = append(results, codexOutputText(item.Output))
			}
		}
		rec.addResults(results)
		rec.mu.Lock()
		for _, tl := range msg.Tools {
			rec.tools = append(rec.tools, tl.Type+":"+tl.Name)
		}
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if rec.propose() {
			writeCodexStream(w, item)
			return
		}
		writeCodexStream(w, map[string]any{"type": "message", "role": "assistant", "id": "msg_e2e_1",
			"content": []any{map[string]any{"type": "output_text", "text": "Done."}}})
	})
}

// codexOutputText flattens a function_call_output's output: a string or a
// list of content items.
func codexOutputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct{ Text string }
	if json.Unmarshal(raw, &items) == nil {
		var out string
		for _, it := range items {
			out += it.Text
		}
		return out
	}
	return string(raw)
}

// writeCodexStream writes one response of one output item as Responses API
// server-sent events.
func writeCodexStream(w http.ResponseWriter, item map[string]any) {
	event := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
	}
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_e2e"}})
	event(map[string]any{"type": "response.output_item.done", "item": item})
	event(map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_e2e",
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": nil, "output_tokens": 5,
			"output_tokens_details": nil, "total_tokens": 15}}})
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
