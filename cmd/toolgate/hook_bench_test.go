package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkHookProcess measures what an agent pays per tool call: starting
// the toolgate binary as "toolgate hook claude", discovering and loading a
// 200-rule project policy, deciding and answering. Each iteration is one
// process.
func BenchmarkHookProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "toolgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(filepath.Join(project, ".toolgate"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	var policy strings.Builder
	policy.WriteString("version: 1\ndefault: ask\ndeny:\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&policy, "  - \"Bash(danger%d:*)\"\n", i)
	}
	policy.WriteString("ask:\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&policy, "  - \"mcp__srv%d__put_*\"\n", i)
	}
	if err := os.WriteFile(filepath.Join(project, ".toolgate", "policy.yaml"), []byte(policy.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"session_id":"s","transcript_path":"/tmp/t","cwd":"` + project + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"danger7 --now && ls"},"tool_use_id":"t"}`)
	home := filepath.Join(dir, "home")
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, "hook", "claude")
		cmd.Dir = project
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
		cmd.Stdin = bytes.NewReader(payload)
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte(`"permissionDecision":"deny"`)) {
			b.Fatalf("hook: %v\n%s", err, out)
		}
	}
}
