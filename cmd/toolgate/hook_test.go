package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookProtectsItsOwnFiles: the hook denies, in bypassPermissions mode,
// writes to the policy file it loaded, to $CODEX_HOME and to an agent's
// system settings, although the policy allows every edit.
func TestHookProtectsItsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	codexHome := filepath.Join(dir, "codex-home")
	policy := filepath.Join(dir, "policies", "team.yaml")
	for _, d := range []string{proj, codexHome, filepath.Dir(policy)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(policy, []byte("version: 1\nallow: [\"Edit\", \"Write\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		deny bool
	}{
		{policy, true},
		{filepath.Join(codexHome, "config.toml"), true},
		{"/etc/claude-code/managed-settings.json", true},
		{filepath.Join(proj, "src", "main.go"), false},
	} {
		payload, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": proj,
			"permission_mode": "bypassPermissions", "tool_name": "Write",
			"tool_input": map[string]any{"file_path": tc.file, "content": "{}"}})
		var stdout, stderr bytes.Buffer
		c := &cli{stdin: bytes.NewReader(payload), stdout: &stdout, stderr: &stderr,
			getenv: func(k string) string {
				switch k {
				case "CODEX_HOME":
					return codexHome
				case "HOME":
					return filepath.Join(dir, "home")
				}
				return ""
			},
			getwd: func() (string, error) { return proj, nil }, interactive: func() bool { return false }}
		if exit := c.hook([]string{"claude", "--config", policy}); exit != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, exit, stderr.String())
		}
		denied := strings.Contains(stdout.String(), `"permissionDecision":"deny"`)
		if denied != tc.deny {
			t.Errorf("%s: denied %v, want %v: %s", tc.file, denied, tc.deny, stdout.String())
		}
		if tc.deny && !strings.Contains(stdout.String(), "protected path") {
			t.Errorf("%s: the reason does not name the protected path: %s", tc.file, stdout.String())
		}
	}
}

// TestHookDeniesGateCommands: the agent may not run toolgate's own
// gate-changing commands through its shell, in any spelling.
func TestHookDeniesGateCommands(t *testing.T) {
	proj := t.TempDir()
	for _, tc := range []struct {
		cmd  string
		deny bool
	}{
		{"toolgate hook uninstall claude", true},
		{"/usr/local/bin/toolgate hook install codex --command /bin/true", true},
		{"env toolgate trust --yes .", true},
		{"toolgate mcp unwrap claude", true},
		{"toolgate mcp wrap claude --command /tmp/fake", true},
		{"cd /tmp && toolgate mcp lock --servers s.json", true},
		{"toolgate approvals approve 42 --server http://127.0.0.1:1", true},
		{"toolgate hook status claude", false},
		{"toolgate mcp --upstream-name fs -- mcp-server-filesystem .", false},
		{"toolgate check --tool Bash --input '{}'", false},
	} {
		payload, _ := json.Marshal(map[string]any{"hook_event_name": "PreToolUse", "cwd": proj,
			"permission_mode": "bypassPermissions", "tool_name": "Bash", "tool_input": map[string]any{"command": tc.cmd}})
		var stdout, stderr bytes.Buffer
		c := &cli{stdin: bytes.NewReader(payload), stdout: &stdout, stderr: &stderr,
			getenv: func(k string) string {
				if k == "HOME" {
					return filepath.Join(proj, "home")
				}
				return ""
			},
			getwd: func() (string, error) { return proj, nil }, interactive: func() bool { return false }}
		if exit := c.hook([]string{"claude"}); exit != 0 {
			t.Fatalf("%s: exit %d: %s", tc.cmd, exit, stderr.String())
		}
		if denied := strings.Contains(stdout.String(), `"permissionDecision":"deny"`); denied != tc.deny {
			t.Errorf("%s: denied %v, want %v: %s", tc.cmd, denied, tc.deny, stdout.String())
		}
	}
}
