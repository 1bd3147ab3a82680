package e2e

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// TestClaudeCompatReference runs the real Claude Code, without the hook, on
// the rule shapes of docs/rules.md ("Claude Code compatibility"), and checks
// that it still does what that page says it does — and that toolgate, given
// the same rules as a Claude settings layer, decides as the page says. When
// a new pinned Claude Code reads a shape differently, this test says which.
func TestClaudeCompatReference(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "claude")
	cases := []struct {
		name        string
		mode        string // Claude's permission mode
		allow, deny []string
		command     string
		claudeRuns  bool             // Claude Code 2.1.332 runs the command
		toolgate    toolgate.Outcome // toolgate's decision with the same rules
	}{
		{"prefix", "dontAsk", []string{"Bash(touch:*)"}, nil, "touch a.txt", true, toolgate.Allow},
		{"space_before_prefix_allow", "dontAsk", []string{"Bash(touch :*)"}, nil, "touch a.txt", false, toolgate.Ask},
		{"padded_exact_allow", "dontAsk", []string{"Bash( touch a.txt)"}, nil, "touch a.txt", false, toolgate.Ask},
		{"padded_wildcard_allow", "dontAsk", []string{"Bash( touch *)"}, nil, "touch a.txt", true, toolgate.Allow},
		{"assignment_needed", "dontAsk", []string{"Bash(TZ=UTC touch:*)"}, nil, "touch a.txt", false, toolgate.Ask},
		{"assignment_given", "dontAsk", []string{"Bash(TZ=UTC touch:*)"}, nil, "TZ=UTC touch a.txt", true, toolgate.Allow},
		{"unsafe_assignment", "dontAsk", []string{"Bash(FOO=1 touch:*)"}, nil, "FOO=1 touch a.txt", true, toolgate.Ask},
		{"escaped_parentheses", "dontAsk", []string{`Bash(touch "\(x\)")`}, nil, `touch "(x)"`, true, toolgate.Allow},
		{"space_before_prefix_deny", "bypassPermissions", nil, []string{"Bash(touch :*)"}, "touch a.txt", true, toolgate.Deny},
		{"assignment_deny", "bypassPermissions", nil, []string{"Bash(FOO=1 touch:*)"}, "touch a.txt", true, toolgate.Deny},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, scenario{noHook: true})
			perms := map[string]any{}
			if tc.allow != nil {
				perms["allow"] = tc.allow
			}
			if tc.deny != nil {
				perms["deny"] = tc.deny
			}
			settings, _ := json.Marshal(map[string]any{"permissions": perms})
			rec := &recorder{}
			srv := httptest.NewServer(claudeMock(t, rec, "Bash", map[string]string{"command": tc.command}))
			defer srv.Close()
			env := append(baseEnv(w), "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=toolgate-e2e-fake-key",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_MAX_RETRIES=0", "DISABLE_AUTOUPDATER=1")
			if os.Geteuid() == 0 {
				env = append(env, "IS_SANDBOX=1")
			}
			r := runAgent(t, w, env, bin, "-p", "Run the command.", "--output-format", "json",
				"--permission-mode", tc.mode, "--settings", string(settings))
			ran := false
			for _, n := range []string{"a.txt", "(x)"} {
				if _, err := os.Stat(filepath.Join(w.project, n)); err == nil {
					ran = true
				}
			}
			if ran != tc.claudeRuns {
				t.Errorf("Claude Code ran %q: %v, docs/rules.md says %v", tc.command, ran, tc.claudeRuns)
				logRun(t, r)
			}
			// toolgate with the same rules, read as a Claude settings file.
			spec := func(rs []string) []toolgate.RuleSpec {
				var out []toolgate.RuleSpec
				for _, s := range rs {
					out = append(out, toolgate.RuleSpec{Text: s})
				}
				return out
			}
			ask, prec := toolgate.Ask, toolgate.DenyAskAllow
			cfg, err := toolgate.Compile([]toolgate.Layer{{Source: toolgate.SourceCLI, ClaudeSettings: true, Root: w.project,
				Default: &ask, Precedence: &prec, Allow: spec(tc.allow), Deny: spec(tc.deny)}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := json.Marshal(map[string]string{"command": tc.command})
			if d := cfg.Decide(toolgate.Call{Tool: "Bash", Input: in, Cwd: w.project, Home: w.home}); d.Outcome != tc.toolgate {
				t.Errorf("toolgate: %v (%v), want %v", d.Outcome, d.Reason(), tc.toolgate)
			}
		})
	}
}

// TestClaudeCompatReferencePaths: a deny path rule padded with spaces does
// not stop Claude Code from reading the file; toolgate denies it.
func TestClaudeCompatReferencePaths(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "claude")
	for _, tc := range []struct {
		name       string
		deny       string
		claudeRead bool
	}{
		{"trimmed", "Read(**/*token*)", false},
		{"padded", "Read( ** /*token*)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t, scenario{noHook: true})
			secret := filepath.Join(w.project, "api_token.txt")
			writeFile(t, secret, "TOKEN=e2e-secret\n")
			settings, _ := json.Marshal(map[string]any{"permissions": map[string]any{"deny": []string{tc.deny}}})
			rec := &recorder{}
			srv := httptest.NewServer(claudeMock(t, rec, "Read", map[string]string{"file_path": secret}))
			defer srv.Close()
			env := append(baseEnv(w), "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=toolgate-e2e-fake-key",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_MAX_RETRIES=0", "DISABLE_AUTOUPDATER=1")
			if os.Geteuid() == 0 {
				env = append(env, "IS_SANDBOX=1")
			}
			r := runAgent(t, w, env, bin, "-p", "Read the file.", "--output-format", "json",
				"--permission-mode", "bypassPermissions", "--settings", string(settings))
			_, results := rec.snapshot()
			read := false
			for _, s := range results {
				read = read || strings.Contains(s, "e2e-secret")
			}
			if read != tc.claudeRead {
				t.Errorf("Claude Code read the file under deny %s: %v, docs/rules.md says %v (results %q)", tc.deny, read, tc.claudeRead, results)
				logRun(t, r)
			}
			cfg, err := toolgate.Compile([]toolgate.Layer{{Source: toolgate.SourceCLI, ClaudeSettings: true, Root: w.project,
				Deny: []toolgate.RuleSpec{{Text: tc.deny}}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			in, _ := json.Marshal(map[string]string{"file_path": secret})
			if d := cfg.Decide(toolgate.Call{Tool: "Read", Input: in, Cwd: w.project, Home: w.home}); d.Outcome != toolgate.Deny {
				t.Errorf("toolgate: %v (%v), want deny", d.Outcome, d.Reason())
			}
		})
	}
}
