package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/hook"
)

// envDir names the environment variable holding the agents' npm prefix.
const envDir = "TOOLGATE_E2E_DIR"

// envHook names an optional environment variable holding a toolgate binary
// to test instead of building one (it must take "hook CLIENT" arguments).
// Pointing it at a hook that always answers "no opinion" shows that the
// tests catch a hook that does not enforce the policy.
const envHook = "TOOLGATE_E2E_HOOK"

// runTimeout bounds one agent run. A run takes one to ten seconds; the
// bound is generous because CI machines are small and the runs parallel.
const runTimeout = 150 * time.Second

// hookBin is the toolgate binary the agents run as their hook, built once
// by TestMain; empty when the tests skip.
var hookBin string

// hookBinErr is why hookBin could not be built.
var hookBinErr error

func TestMain(m *testing.M) {
	var dir string
	if bin := os.Getenv(envHook); bin != "" {
		hookBin, hookBinErr = filepath.Abs(bin)
	} else if os.Getenv(envDir) != "" || os.Getenv(envRequired) == "1" {
		var err error
		dir, err = os.MkdirTemp("", "toolgate-e2e-bin-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		hookBin, hookBinErr = buildHook(dir)
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// buildHook builds the toolgate command into dir and returns its path.
// The binary is named "toolgate", so the hook command reads
// "…/toolgate hook CLIENT" as hook.Install writes it.
func buildHook(dir string) (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build toolgate: %v", err)
	}
	bin := filepath.Join(dir, "toolgate")
	const pkg = "github.com/toolgate/toolgate/cmd/toolgate"
	if out, err := exec.Command(gobin, "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	out, err := exec.Command(bin, "hook", "--help").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("toolgate hook CLIENT")) {
		return "", fmt.Errorf("the built toolgate has no working hook subcommand (toolgate hook --help: %v)\n%s", err, out)
	}
	return bin, nil
}

// envRequired names the environment variable that makes the tests fail
// instead of skipping when an agent is not installed (set by .ci/run).
const envRequired = "TOOLGATE_E2E_REQUIRED"

// skip skips the test, or fails it when the e2e tests are required.
func skip(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv(envRequired) == "1" {
		t.Fatalf("%s=1, so this is a failure: "+format, append([]any{envRequired}, args...)...)
	}
	t.Skipf(format, args...)
}

// agentBin returns the path of an installed agent, or skips the test
// (fails it under TOOLGATE_E2E_REQUIRED=1).
func agentBin(t *testing.T, name string) string {
	t.Helper()
	dir := os.Getenv(envDir)
	if dir == "" {
		skip(t, "%s is not set: install the pinned agents with `bash .ci/e2e-install [DIR]` (DIR defaults to ~/.cache/toolgate-e2e) and run with %s=DIR", envDir, envDir)
	}
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		skip(t, "%s is not installed in %s=%s (%v): run `bash .ci/e2e-install %s`", name, envDir, dir, err, dir)
	}
	if hookBinErr != nil {
		t.Fatalf("cannot build the toolgate hook: %v", hookBinErr)
	}
	if hookBin == "" {
		t.Fatal("the toolgate hook was not built")
	}
	return p
}

// The project policy. Allow rules and the rewrite count only because the
// user's file trusts the project (SPEC §6.1); deny and ask rules would count
// anyway.
const projectPolicy = `version: 1
default: ask
allow:
  - "Bash(touch ran-allowed)"
  - "Bash(touch ran-original)"
  - "Bash(touch ran-rewritten)"
deny:
  - "Bash(touch ran-denied)"
ask:
  - "Bash(touch ran-asked)"
rewrite:
  - match: "Bash(touch ran-original)"
    set: {"/command": "touch ran-rewritten"}
`

// brokenPolicy fails to load: a deny list written as a string, the mistake
// that must never fail open.
const brokenPolicy = `version: 1
deny: "Bash(touch ran-broken)"
`

// scenario is one agent run: the command the model proposes, the policy,
// and what must follow.
type scenario struct {
	name    string
	command string // the shell command the model proposes
	noHook  bool   // the control: no hook installed
	broken  bool   // the project policy does not load
	blocked bool   // the call must be blocked (not run in any form)
	ran     []string
	notRan  []string
	// reason holds texts that must all appear in one tool result the model
	// receives after the call.
	reason []string
}

// scenarios are the runs every agent test makes.
func scenarios() []scenario {
	return []scenario{
		{name: "control_no_hook", command: "touch ran-unhooked", noHook: true, ran: []string{"ran-unhooked"}},
		{name: "allowed", command: "touch ran-allowed", ran: []string{"ran-allowed"}},
		{name: "denied", command: "touch ran-denied", blocked: true, notRan: []string{"ran-denied"},
			reason: []string{"toolgate: denied", `deny rule "Bash(touch ran-denied)"`, ".toolgate/policy.yaml:8:"}},
		{name: "rewritten", command: "touch ran-original", ran: []string{"ran-rewritten"}, notRan: []string{"ran-original"}},
		{name: "asked", command: "touch ran-asked", blocked: true, notRan: []string{"ran-asked"},
			reason: []string{"toolgate", `ask rule "Bash(touch ran-asked)"`}},
		{name: "broken_config", command: "touch ran-broken", broken: true, blocked: true, notRan: []string{"ran-broken"},
			reason: []string{"toolgate", "the configuration does not load", "policy.yaml:2:"}},
	}
}

// workspace is one run's fresh directories.
type workspace struct {
	home, project, tmp string
}

// newWorkspace makes a fresh home and project with the scenario's policy.
func newWorkspace(t *testing.T, sc scenario) workspace {
	t.Helper()
	root := t.TempDir()
	w := workspace{
		home:    filepath.Join(root, "home"),
		project: filepath.Join(root, "project"),
		tmp:     filepath.Join(root, "tmp"),
	}
	for _, d := range []string{w.home, w.project, w.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if sc.noHook {
		return w
	}
	policy := projectPolicy
	if sc.broken {
		policy = brokenPolicy
	}
	writeFile(t, filepath.Join(w.project, ".toolgate", "policy.yaml"), policy)
	writeFile(t, filepath.Join(w.home, ".config", "toolgate", "policy.yaml"),
		fmt.Sprintf("version: 1\ntrusted_projects: [%q]\n", w.project))
	return w
}

// hookCommand is the hook command for a client.
func hookCommand(c hook.Client) string {
	return hookBin + " hook " + string(c)
}

// install adds toolgate's hook for a client, as "toolgate hook install" does.
func install(t *testing.T, c hook.Client, o hook.InstallOptions) {
	t.Helper()
	o.Command = hookCommand(c)
	path, content, err := hook.Install(c, &o)
	if err != nil {
		t.Fatalf("hook.Install(%s): %v", c, err)
	}
	t.Logf("installed the %s hook in %s", c, path)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s:\n%s", path, content)
		}
	})
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// baseEnv is the environment of an agent run: nothing inherited but PATH
// (Gemini CLI and Codex's launcher are Node scripts), so no real API key,
// XDG directory or proxy setting leaks in.
func baseEnv(w workspace) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"TMPDIR=" + w.tmp,
		"LANG=C.UTF-8",
		"NO_COLOR=1",
		"CI=1",
	}
}

// runResult is what an agent run produced.
type runResult struct {
	stdout, stderr string
	err            error
}

// runAgent runs an agent in the project directory, bounded by runTimeout.
func runAgent(t *testing.T, w workspace, env []string, bin string, args ...string) runResult {
	t.Helper()
	return runAgentFor(t, runTimeout, w, env, bin, args...)
}

// runAgentFor is runAgent bounded by timeout.
func runAgentFor(t *testing.T, timeout time.Duration, w workspace, env []string, bin string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = w.project
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s did not finish in %v: %w", filepath.Base(bin), timeout, errors.Join(err, ctx.Err()))
	}
	t.Logf("%s ran in %v (err=%v)", filepath.Base(bin), time.Since(start).Round(time.Millisecond), err)
	return runResult{stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// logRun logs a run's output, shortened.
func logRun(t *testing.T, r runResult) {
	t.Helper()
	t.Logf("stdout:\n%s", clip(r.stdout, 4000))
	t.Logf("stderr:\n%s", clip(r.stderr, 4000))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("\n… (%d more bytes)", len(s)-n)
}

// check asserts a scenario's outcome: the marker files, and that the model
// received a tool result (so the call was really proposed and answered)
// carrying the expected reason.
func check(t *testing.T, sc scenario, w workspace, results []string) {
	t.Helper()
	for _, f := range sc.ran {
		if _, err := os.Stat(filepath.Join(w.project, f)); err != nil {
			t.Errorf("%q should have run and created %s: %v", sc.command, f, err)
		}
	}
	for _, f := range sc.notRan {
		if _, err := os.Stat(filepath.Join(w.project, f)); err == nil {
			t.Errorf("SAFETY: %s exists: the command ran although toolgate should have stopped it", f)
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stat %s: %v", f, err)
		}
	}
	if len(results) == 0 {
		t.Errorf("the model received no tool result: the call of %q was never proposed or never answered", sc.command)
		return
	}
	for i, r := range results {
		t.Logf("tool result %d the model received: %s", i, clip(r, 2000))
	}
	if len(sc.reason) == 0 {
		return
	}
	for _, r := range results {
		if containsAll(r, sc.reason) {
			return
		}
	}
	t.Errorf("no tool result the model received holds all of %q", sc.reason)
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// recorder keeps what a mock model received.
type recorder struct {
	mu       sync.Mutex
	requests []string // "METHOD PATH" of each request
	results  []string // the tool results found in request bodies, in order
	proposed int      // how many times the tool call was proposed
	tools    []string // "TYPE:NAME" of the tools offered (Codex)
}

func (r *recorder) request(method, path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, method+" "+path)
}

func (r *recorder) addResults(rs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range rs {
		dup := false
		for _, old := range r.results {
			dup = dup || old == s
		}
		if !dup {
			r.results = append(r.results, s)
		}
	}
}

// propose reports whether the tool call should be proposed now: once per
// run, and only before any tool result came back.
func (r *recorder) propose() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proposed > 0 || len(r.results) > 0 {
		return false
	}
	r.proposed++
	return true
}

func (r *recorder) snapshot() (requests, results []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...), append([]string(nil), r.results...)
}

// readBody reads a request body, up to 64 MiB.
func readBody(body io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(body, 64<<20))
}
