// Package e2e proves, against the real and unmodified coding agents, that
// toolgate installed as their tool-permission hook is obeyed: Claude Code
// 2.1.332, Gemini CLI 0.61.0 and Codex CLI 0.171.0, each run headless and
// offline against a scripted model written here (a loopback HTTP mock of the
// Anthropic Messages API for Claude Code and of the OpenAI Responses API for
// Codex; Gemini CLI's own --fake-responses-non-strict file for Gemini).
//
// The package holds only tests. The agents are not part of the module: install
// the pinned versions with
//
//	bash .ci/e2e-install [DIR]        # DIR defaults to ~/.cache/toolgate-e2e
//
// and run
//
//	TOOLGATE_E2E_DIR=DIR go test -race -v ./e2e/
//
// Without TOOLGATE_E2E_DIR, or with an agent missing from DIR, the tests
// skip and say so. The tests build ./cmd/toolgate once and install
// "<that binary> hook CLIENT" as the hook; TOOLGATE_E2E_HOOK=FILE tests
// another binary instead (a hook that answers "{}" to everything makes every
// enforcing case fail, which is how the tests were checked to be able to
// fail).
//
// # What each agent test proves
//
// In every run the scripted model proposes exactly one shell command that
// touches a marker file in a fresh project directory, with a fresh HOME, and
// with the agent's own permission checks switched off (Claude Code's
// bypassPermissions mode, Gemini CLI's yolo mode, Codex's
// --dangerously-bypass-approvals-and-sandbox), so that toolgate's hook is the
// only thing between the model and the shell. A control run without the hook
// proves that the agent, as configured, does run the proposed command; the
// other runs have toolgate's hook installed with [hook.Install] and a project
// policy in .toolgate/policy.yaml (trusted through the user's
// ~/.config/toolgate/policy.yaml):
//
//   - allowed: an allow rule matches; the marker file is created;
//   - denied: a deny rule matches; the marker file is not created, and the
//     tool result the model receives in the next turn carries toolgate's
//     reason, naming the rule;
//   - rewritten: a rewrite entry replaces the command; the rewritten command's
//     marker is created and the original's is not;
//   - asked: an ask rule matches; nobody can be asked in a headless run, so
//     the command must not run, and the model is told why;
//   - broken config: the project's policy does not load (a deny list written
//     as a string); the call is blocked and the model receives the load
//     error.
//
// Claude Code also runs the ask case in its default permission mode, and its
// JSON result's permission_denials must list exactly the blocked calls.
// Gemini CLI runs every case twice: with the hook in the project's
// .gemini/settings.json in a trusted folder, and with the hook in the user's
// settings (hook.Install's default for Gemini, because of what follows).
//
// # Hooks that really bind (issue 10)
//
// bind_test.go, codexbind_test.go and geminibind_test.go run the attacks an
// agent could use to get around or switch off its gate — writes into
// .git/hooks (Write, Edit, a shell redirect, apply_patch), replacing the
// agent's own hook settings, rewriting toolgate's policy or binary — with
// toolgate's hook in every Claude Code permission mode, Gemini CLI's yolo
// mode and Codex's bypass mode, and check the disk: the target is
// unchanged. Controls without the hook (and with a hook that always answers
// "ask") show that each attack does happen otherwise. Codex is also run
// without --dangerously-bypass-hook-trust after "toolgate hook install
// codex" from a binary named toolgate-linux-amd64 with no toolgate on PATH.
//
// With TOOLGATE_E2E_REQUIRED=1 (set by .ci/run) a missing agent fails the
// tests instead of skipping them.
//
// # Observed behaviour
//
// What the tests observed on the pinned versions, where it adds to or
// differs from shared/REALCLIENTS.md, is written in each agent's test file.
// The one that matters for users: Gemini CLI ignores a project's
// .gemini/settings.json — and so toolgate's hook installed there — when the
// folder is trusted only by --skip-trust (TestGeminiSkipTrustIgnoresProjectHook).
package e2e
