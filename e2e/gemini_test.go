package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/hook"
)

// Gemini CLI 0.61.0, observed (beyond shared/REALCLIENTS.md):
//
//   - --skip-trust does NOT make Gemini CLI read the project's
//     .gemini/settings.json: the flag sets GEMINI_CLI_TRUST_WORKSPACE=true
//     only after the settings were loaded, so the workspace settings — and
//     with them a hook installed there, which is where "toolgate hook
//     install gemini" puts it by default — are silently ignored, and the
//     command runs unguarded (TestGeminiSkipTrustIgnoresProjectHook). The
//     project hook runs when the folder is trusted before start-up:
//     GEMINI_CLI_TRUST_WORKSPACE=true in the environment (as here) or the
//     folder in ~/.gemini/trustedFolders.json. A hook in the user's
//     ~/.gemini/settings.json runs either way.
//   - On the first run in a folder, Gemini CLI prints a warning naming the
//     project hooks and records them as trusted; they run in that same run.
//   - A deny reaches the model as the functionResponse
//     {"error": "Tool execution blocked: <reason>"}; exit status 2 from the
//     hook (a configuration that does not load) reads the same, with
//     toolgate's standard error as the reason.
//   - With usage statistics on, each run waits about ten seconds at exit for
//     the unreachable network; see geminiSettings.

// TestGemini drives Gemini CLI with its scripted-model testing flag and
// toolgate's hook in the project's .gemini/settings.json (not hook.Install's
// default for Gemini any more), in a folder trusted through
// GEMINI_CLI_TRUST_WORKSPACE.
func TestGemini(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "gemini")
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			w, results := runGemini(t, bin, sc, hook.ScopeProject, true)
			check(t, sc, w, results)
		})
	}
}

// TestGeminiUserHook is TestGemini with the hook in the user's
// ~/.gemini/settings.json (merged with the settings already there) and
// only --skip-trust, as in shared/REALCLIENTS.md.
func TestGeminiUserHook(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "gemini")
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			w, results := runGemini(t, bin, sc, hook.ScopeUser, false)
			check(t, sc, w, results)
		})
	}
}

// TestGeminiSkipTrustIgnoresProjectHook pins down the hazard described
// above: with the hook in the project's settings and the folder trusted
// only by --skip-trust, the hook never runs and a denied command runs. If
// this test fails, Gemini CLI has changed: the hook now runs (or the
// command is blocked otherwise); update this file's notes and the hook
// package's documentation.
func TestGeminiSkipTrustIgnoresProjectHook(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "gemini")
	sc := scenario{name: "denied", command: "touch ran-denied"}
	w, results := runGemini(t, bin, sc, hook.ScopeProject, false)
	if _, err := os.Stat(filepath.Join(w.project, "ran-denied")); err != nil {
		t.Errorf("the denied command did not run (%v): Gemini CLI now honours a project hook under --skip-trust alone; update the notes in gemini_test.go", err)
	}
	for _, r := range results {
		if strings.Contains(r, "toolgate") {
			t.Errorf("the model received toolgate's answer %s: the project hook ran under --skip-trust alone; update the notes in gemini_test.go", r)
		}
	}
}

// runGemini makes one Gemini CLI run of a scenario with the hook installed
// in scope, the folder trusted through the environment when trustEnv is
// set, and returns the workspace and the tool results the model received.
func runGemini(t *testing.T, bin string, sc scenario, scope hook.Scope, trustEnv bool) (workspace, []string) {
	t.Helper()
	w := newWorkspace(t, sc)
	writeFile(t, filepath.Join(w.home, ".gemini", "settings.json"), geminiSettings)
	if !sc.noHook {
		install(t, hook.Gemini, hook.InstallOptions{Scope: scope, Dir: w.project, Home: w.home})
	}
	script := filepath.Join(filepath.Dir(w.tmp), "model.jsonl")
	writeFile(t, script, geminiScript(t, sc.command))
	env := append(baseEnv(w), "GEMINI_API_KEY=toolgate-e2e-fake-key")
	if trustEnv {
		env = append(env, "GEMINI_CLI_TRUST_WORKSPACE=true")
	}
	r := runAgent(t, w, env, bin, "--skip-trust", "--fake-responses-non-strict", script,
		"--approval-mode", "yolo", "-o", "json", "-p", "Run the command.")
	if r.err != nil {
		t.Errorf("gemini: %v", r.err)
	}
	results := geminiFunctionResponses(t, w.home)
	t.Cleanup(func() {
		if t.Failed() {
			logRun(t, r)
		}
	})
	return w, results
}

// geminiSettings are the user's settings: API-key auth (the key is never
// used with a scripted model), and no usage statistics, telemetry or update
// check — with usage statistics on, each run waits about ten seconds at exit
// for a network that is not there.
const geminiSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true}
}
`

// geminiScript is the scripted model for --fake-responses-non-strict, one
// model call a line: the routing classifier's generateContent (which would
// otherwise fail and fall back, leaving an error report in TMPDIR), then
// the main turn proposing run_shell_command, then the final text.
func geminiScript(t *testing.T, command string) string {
	t.Helper()
	content := func(parts ...map[string]any) map[string]any {
		return map[string]any{"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP"}}}
	}
	lines := []map[string]any{
		{"method": "generateContent", "response": content(map[string]any{"text": `{"complexity_reasoning": "one command", "complexity_score": 10}`})},
		{"method": "generateContentStream", "response": []any{content(map[string]any{"functionCall": map[string]any{
			"name": "run_shell_command", "args": map[string]any{"command": command}}})}},
		{"method": "generateContentStream", "response": []any{content(map[string]any{"text": "Done."})}},
	}
	var b bytes.Buffer
	for _, l := range lines {
		line, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// geminiFunctionResponses returns the functionResponse parts Gemini CLI
// sent back to the model, from the session's chat recording
// (~/.gemini/tmp/<project>/chats/session-*.jsonl): with a scripted model
// there is no request to intercept, and the recording holds the user turn
// that carries the tool results.
func geminiFunctionResponses(t *testing.T, home string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var v any
			if json.Unmarshal(sc.Bytes(), &v) != nil {
				continue
			}
			walkFunctionResponses(v, func(resp any) {
				s := responseText(resp)
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			})
		}
	}
	return out
}

// walkFunctionResponses calls f with the response of every functionResponse
// inside a user message in v.
func walkFunctionResponses(v any, f func(any)) {
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "user" {
			if parts, ok := v["content"].([]any); ok {
				for _, p := range parts {
					if pm, ok := p.(map[string]any); ok {
						if fr, ok := pm["functionResponse"].(map[string]any); ok {
							f(fr["response"])
						}
					}
				}
			}
		}
		for _, x := range v {
			walkFunctionResponses(x, f)
		}
	case []any:
		for _, x := range v {
			walkFunctionResponses(x, f)
		}
	}
}

// responseText shows a functionResponse's response as the model reads it:
// its "error" and "output" texts, or else its JSON.
func responseText(resp any) string {
	if m, ok := resp.(map[string]any); ok {
		var parts []string
		for _, k := range []string{"error", "output"} {
			if s, ok := m[k].(string); ok {
				parts = append(parts, k+": "+s)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	b, _ := json.Marshal(resp)
	return string(b)
}
