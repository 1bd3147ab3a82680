package e2e

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/hook"
)

// Codex CLI 0.171.0, observed for the bindings of issue 10:
//
//   - apply_patch is offered to catalogued models (gpt-5.5 here) as a
//     custom (freeform) tool; the hook sees tool_name "apply_patch" with
//     tool_input {"command": "<the patch>"}.
//   - Without --dangerously-bypass-hook-trust, a plain `codex exec` skips a
//     hook it has not trusted, silently; "toolgate hook install codex"
//     records the trust (hooks.state."<key>".trusted_hash, the hash
//     codex app-server's hooks/list reports) and then the hook runs.
//   - A hook command that cannot start fails open: the call runs.

// codexRun is one Codex run.
type codexRun struct {
	w         workspace
	codexHome string
	rec       *recorder
	srv       *httptest.Server
}

// newCodexRun makes a workspace and a mock that outputs item once.
func newCodexRun(t *testing.T, item map[string]any) *codexRun {
	t.Helper()
	return newCodexRunFor(t, func(*codexRun) map[string]any { return item })
}

// newCodexRunFor is newCodexRun with the item made from the run's paths
// (before the mock starts serving).
func newCodexRunFor(t *testing.T, mkItem func(r *codexRun) map[string]any) *codexRun {
	t.Helper()
	w := newWorkspace(t, scenario{noHook: true})
	writeFile(t, filepath.Join(w.project, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(w.project, ".git", "hooks", ".keep"), "")
	writeFile(t, filepath.Join(w.home, ".config", "toolgate", "policy.yaml"),
		fmt.Sprintf("version: 1\ntrusted_projects: [%q]\n", w.project))
	writeFile(t, filepath.Join(w.project, ".toolgate", "policy.yaml"),
		"version: 1\nallow: [\"Edit\", \"Bash(printf:*)\", \"Bash(cp:*)\"]\n")
	r := &codexRun{w: w, codexHome: filepath.Join(w.home, ".codex"), rec: &recorder{}}
	r.srv = httptest.NewServer(codexMock(t, r.rec, mkItem(r)))
	t.Cleanup(r.srv.Close)
	writeFile(t, filepath.Join(r.codexHome, "config.toml"), codexMockConfig("gpt-5.5", r.srv.URL))
	return r
}

func (r *codexRun) env() []string {
	return append(baseEnv(r.w), "CODEX_HOME="+r.codexHome, "TOOLGATE_E2E_KEY=toolgate-e2e-fake-key")
}

// run runs codex exec; bypassTrust adds --dangerously-bypass-hook-trust.
func (r *codexRun) run(t *testing.T, bin string, bypassTrust bool, env []string) runResult {
	t.Helper()
	args := []string{"exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json"}
	if bypassTrust {
		args = append(args, "--dangerously-bypass-hook-trust")
	}
	if env == nil {
		env = r.env()
	}
	res := runAgent(t, r.w, env, bin, append(args, "Do it.")...)
	if res.err != nil {
		t.Errorf("codex: %v", res.err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			logRun(t, res)
			_, results := r.rec.snapshot()
			t.Logf("tool results: %q", results)
			cfg, _ := os.ReadFile(filepath.Join(r.codexHome, "config.toml"))
			t.Logf("config.toml:\n%s", cfg)
		}
	})
	return res
}

func patchItem(patch string) map[string]any {
	return map[string]any{"type": "custom_tool_call", "id": "ctc_e2e_1", "call_id": "call_e2e_1",
		"name": "apply_patch", "input": patch}
}

func execItem(cmd string) map[string]any {
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return map[string]any{"type": "function_call", "id": "fc_e2e_1", "call_id": "call_e2e_1",
		"name": "exec_command", "arguments": string(args)}
}

// installCLI runs "toolgate hook install" from bin (the real command line,
// with its final status check) and returns its exit status and output.
func installCLI(t *testing.T, bin string, env []string, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"hook", "install"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s hook install %s: exit %d\n%s", filepath.Base(bin), strings.Join(args, " "), code, out)
	return code, string(out)
}

// TestCodexApplyPatch: Codex sends apply_patch as {"command": patch};
// toolgate reads the file headers, so a harmless patch runs (the project
// allows edits) and a patch into .git/hooks is denied as a protected-path
// write. The control without the hook shows Codex writes .git/hooks.
func TestCodexApplyPatch(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "codex")
	const harmless = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"
	const gitHook = "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+echo pwned-by-the-agent\n*** End Patch\n"
	for _, tc := range []struct {
		name, patch, file string
		hooked, want      bool
		reason            string
	}{
		{"harmless", harmless, "hello.txt", true, true, ""},
		{"git_hook", gitHook, ".git/hooks/pre-commit", true, false, "protected path (.git)"},
		{"git_hook_control_no_hook", gitHook, ".git/hooks/pre-commit", false, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newCodexRun(t, patchItem(tc.patch))
			if tc.hooked {
				install(t, hook.Codex, hook.InstallOptions{Scope: hook.ScopeUser, Home: r.w.home, CodexHome: r.codexHome})
			}
			r.run(t, bin, true, nil)
			_, err := os.Stat(filepath.Join(r.w.project, tc.file))
			if got := err == nil; got != tc.want {
				t.Errorf("%s exists: %v, want %v", tc.file, got, tc.want)
			}
			_, results := r.rec.snapshot()
			t.Logf("tool results the model received: %q", results)
			if len(results) == 0 {
				r.rec.mu.Lock()
				t.Errorf("the model received no tool result; tools offered: %q", r.rec.tools)
				r.rec.mu.Unlock()
			}
			if tc.reason != "" && !containsAll(strings.Join(results, "\n"), []string{"toolgate", tc.reason}) {
				t.Errorf("no tool result holds toolgate's reason %q: %q", tc.reason, results)
			}
			if tc.name == "harmless" && strings.Contains(strings.Join(results, "\n"), "names no path") {
				t.Errorf("the harmless patch was denied as naming no path: %q", results)
			}
		})
	}
}

// TestCodexSelfProtection: the agent must not switch its own gate off by
// rewriting Codex's config.toml (the hook lives there) or toolgate's own
// policy; the controls without the hook show Codex would.
func TestCodexSelfProtection(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "codex")
	for _, tc := range []struct {
		name   string
		target func(r *codexRun) string
		hooked bool
	}{
		{"config_toml", func(r *codexRun) string { return filepath.Join(r.codexHome, "config.toml") }, true},
		{"config_toml_control_no_hook", func(r *codexRun) string { return filepath.Join(r.codexHome, "config.toml") }, false},
		{"policy", func(r *codexRun) string { return filepath.Join(r.w.project, ".toolgate", "policy.yaml") }, true},
		{"policy_control_no_hook", func(r *codexRun) string { return filepath.Join(r.w.project, ".toolgate", "policy.yaml") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newCodexRunFor(t, func(r *codexRun) map[string]any {
				return execItem("printf 'model = \"off\"\\n' > " + tc.target(r))
			})
			target := tc.target(r)
			if tc.hooked {
				install(t, hook.Codex, hook.InstallOptions{Scope: hook.ScopeUser, Home: r.w.home, CodexHome: r.codexHome})
			}
			before, _ := snapshot(t, target)
			r.run(t, bin, true, nil)
			after, _ := snapshot(t, target)
			changed := after != before
			if tc.hooked && changed {
				t.Errorf("SAFETY: %s was rewritten with toolgate's hook installed", target)
			}
			if !tc.hooked && !changed {
				t.Errorf("control: Codex did not rewrite %s without the hook; the attack proves nothing", target)
			}
		})
	}
}

// TestCodexInstallTrustAndRename: "toolgate hook install codex" from a binary
// called toolgate-linux-amd64, with no toolgate on PATH, writes that
// binary's absolute path and records Codex's trust, so a plain `codex exec`
// (no --dangerously-bypass-hook-trust) runs the hook and a secret stays
// put. Controls: the hook written without trust is skipped, and the bare
// "toolgate hook codex" command of the old installer cannot start; in both
// the secret leaks.
func TestCodexInstallTrustAndRename(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "codex")
	const leak = "cp .env leaked.txt"
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, r *codexRun, tg string) // installs the hook
		leaks bool
	}{
		{"installed", func(t *testing.T, r *codexRun, tg string) {
			env := append(r.env(), "PATH="+noToolgatePath(t))
			if code, out := installCLI(t, tg, env, r.w.project, "codex", "--codex", bin); code != 0 {
				t.Fatalf("hook install codex failed (%d):\n%s", code, out)
			}
			cfg, _ := os.ReadFile(filepath.Join(r.codexHome, "config.toml"))
			if !strings.Contains(string(cfg), tg+" hook codex") {
				t.Errorf("config.toml does not hold the absolute path %s:\n%s", tg, cfg)
			}
			if code, out := statusCLI(t, tg, env, r.w.project, "codex", "--codex", bin); code != 0 {
				t.Errorf("hook status codex after install: exit %d\n%s", code, out)
			}
		}, false},
		{"control_untrusted", func(t *testing.T, r *codexRun, tg string) {
			o := hook.InstallOptions{Scope: hook.ScopeUser, Home: r.w.home, CodexHome: r.codexHome, Command: tg + " hook codex"}
			if _, _, err := hook.Install(hook.Codex, &o); err != nil {
				t.Fatal(err)
			}
			env := append(r.env(), "PATH="+noToolgatePath(t))
			code, out := statusCLI(t, tg, env, r.w.project, "codex", "--codex", bin)
			if code != 1 || !strings.Contains(out, "untrusted") {
				t.Errorf("hook status codex of an untrusted hook: exit %d, want 1 naming it untrusted\n%s", code, out)
			}
		}, true},
		{"control_bare_command", func(t *testing.T, r *codexRun, tg string) {
			o := hook.InstallOptions{Scope: hook.ScopeUser, Home: r.w.home, CodexHome: r.codexHome, Command: "toolgate hook codex"}
			if _, _, err := hook.Install(hook.Codex, &o); err != nil {
				t.Fatal(err)
			}
			so := hook.StatusOptions{InstallOptions: o, Codex: bin, Env: r.env()}
			if err := hook.TrustCodex(t.Context(), &so); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newCodexRun(t, execItem(leak))
			writeFile(t, filepath.Join(r.w.project, ".env"), "API_KEY=secret-e2e\n")
			tg := filepath.Join(filepath.Dir(r.w.project), "dist", "toolgate-linux-amd64")
			copyFile(t, hookBin, tg)
			tc.setup(t, r, tg)
			env := append(r.env(), "PATH="+noToolgatePath(t))
			r.run(t, bin, false, env)
			_, err := os.Stat(filepath.Join(r.w.project, "leaked.txt"))
			if leaked := err == nil; leaked != tc.leaks {
				t.Errorf("leaked.txt exists: %v, want %v", leaked, tc.leaks)
			}
		})
	}
}

// statusCLI runs "toolgate hook status".
func statusCLI(t *testing.T, bin string, env []string, dir string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"hook", "status"}, args...)...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("hook status %s: exit %d\n%s", strings.Join(args, " "), code, out)
	return code, string(out)
}

// noToolgatePath is PATH without any directory holding a toolgate.
func noToolgatePath(t *testing.T) string {
	t.Helper()
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "toolgate")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
