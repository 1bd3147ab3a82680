package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/hook"
)

// Gemini CLI 0.61.0 in --approval-mode yolo, observed for the bindings of
// issue 10: without a hook a shell redirect into .git/hooks and a rewrite of
// ~/.gemini/settings.json (where the hook lives) both run. A hook that
// answers {"decision":"ask"} in a headless yolo run: see
// TestGeminiAskHookHeadless.

// geminiAttack runs one shell command under Gemini CLI in yolo mode with
// the guard g (toolgate's hook in the user's settings, none, or a hook
// script) and reports whether target now holds what the command writes,
// written (Gemini CLI itself rewrites its settings file during a run, so a
// mere change proves nothing).
func geminiAttack(t *testing.T, bin, command, target, written string, g hookKind) (changed bool, results []string, r runResult) {
	t.Helper()
	return geminiAttackFor(t, runTimeout, bin, command, target, written, g)
}

// geminiAttackFor is geminiAttack with the run bounded by timeout.
func geminiAttackFor(t *testing.T, timeout time.Duration, bin, command, target, written string, g hookKind) (changed bool, results []string, r runResult) {
	t.Helper()
	w := newWorkspace(t, scenario{noHook: true})
	writeFile(t, filepath.Join(w.project, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(w.project, ".git", "hooks", ".keep"), "")
	writeFile(t, filepath.Join(w.project, ".toolgate", "policy.yaml"), "version: 1\nallow: [\"Bash\"]\n")
	writeFile(t, filepath.Join(w.home, ".config", "toolgate", "policy.yaml"), "version: 1\ntrusted_projects: [\""+w.project+"\"]\n")
	writeFile(t, filepath.Join(w.home, ".gemini", "settings.json"), geminiSettings)
	switch g {
	case guardToolgate:
		install(t, hook.Gemini, hook.InstallOptions{Scope: hook.ScopeUser, Dir: w.project, Home: w.home})
	case guardAsk:
		p := filepath.Join(w.tmp, "ask-hook.sh")
		writeFile(t, p, "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"ask\",\"reason\":\"the ask hook asks\"}'\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, _, err := hook.Install(hook.Gemini, &hook.InstallOptions{Scope: hook.ScopeUser, Home: w.home, Command: p}); err != nil {
			t.Fatal(err)
		}
	}
	target = strings.NewReplacer("$HOME", w.home, "$PROJECT", w.project).Replace(target)
	command = strings.NewReplacer("$HOME", w.home, "$PROJECT", w.project).Replace(command)
	script := filepath.Join(filepath.Dir(w.tmp), "model.jsonl")
	writeFile(t, script, geminiScript(t, command))
	env := append(baseEnv(w), "GEMINI_API_KEY=toolgate-e2e-fake-key")
	r = runAgentFor(t, timeout, w, env, bin, "--skip-trust", "--fake-responses-non-strict", script,
		"--approval-mode", "yolo", "-o", "json", "-p", "Do it.")
	after, _ := snapshot(t, target)
	results = geminiFunctionResponses(t, w.home)
	t.Cleanup(func() {
		if t.Failed() {
			logRun(t, r)
			t.Logf("function responses: %q", results)
		}
	})
	return strings.Contains(after, written) && (written != "{}" || strings.TrimSpace(after) == "{}"), results, r
}

// TestGeminiBindings: in yolo mode, toolgate's hook stops a shell write into
// .git/hooks and a rewrite of the user's settings that holds the hook; the
// controls without the hook show Gemini CLI runs both.
func TestGeminiBindings(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "gemini")
	attacks := []struct{ name, command, target, written string }{
		{"shell_git_hook", `printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit`, "$PROJECT/.git/hooks/pre-commit", "pwned"},
		{"shell_user_settings", `printf '{}' > $HOME/.gemini/settings.json`, "$HOME/.gemini/settings.json", "{}"},
	}
	for _, a := range attacks {
		for _, g := range []hookKind{guardToolgate, guardNone} {
			t.Run(a.name+"/"+string(g), func(t *testing.T) {
				t.Parallel()
				changed, results, r := geminiAttack(t, bin, a.command, a.target, a.written, g)
				if r.err != nil {
					t.Errorf("gemini: %v", r.err)
				}
				switch g {
				case guardToolgate:
					if changed {
						t.Errorf("SAFETY: %s changed in yolo mode with toolgate's hook installed", a.target)
					}
					if !containsAll(strings.Join(results, "\n"), []string{"toolgate: denied", "protected path"}) {
						t.Errorf("no function response carries toolgate's denial naming the protected path: %q", results)
					}
				case guardNone:
					if !changed {
						t.Errorf("control: Gemini CLI did not run %q without the hook; the attack proves nothing", a.command)
					}
				}
			})
		}
	}
}

// TestGeminiAskHookHeadless records what a headless yolo Gemini CLI does
// with a hook's "ask" — the reason toolgate never sends one to Gemini by
// default: the run must not write the file (if it does, Gemini treats ask
// as allow in yolo mode and --ask-policy ask must be refused for it).
func TestGeminiAskHookHeadless(t *testing.T) {
	t.Parallel()
	bin := agentBin(t, "gemini")
	// The run hangs: bound it well below runTimeout.
	changed, results, r := geminiAttackFor(t, 30*time.Second, bin, "printf asked > ran-asked", "$PROJECT/ran-asked", "asked", guardAsk)
	t.Logf("ask hook: file written: %v; run error: %v; function responses: %q", changed, r.err, results)
	if changed {
		t.Errorf("Gemini CLI ran a call its hook answered \"ask\" in yolo mode")
	}
}
