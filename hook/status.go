package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// StatusOptions configure [CheckStatus] and [TrustCodex].
type StatusOptions struct {
	InstallOptions
	// Codex is the codex command used to ask Codex which hooks it runs and
	// trusts; empty means "codex" on PATH.
	Codex string
	// Env is the environment of the probe and of codex; nil means the
	// process's own. CODEX_HOME is set from InstallOptions.CodexHome when
	// that is set.
	Env []string
	// Timeout bounds each command run (the probe, codex); zero means 20s.
	Timeout time.Duration
}

func (o StatusOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 20 * time.Second
}

func (o StatusOptions) env() []string {
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	env = append([]string(nil), env...)
	if o.CodexHome != "" {
		env = append(env, "CODEX_HOME="+o.CodexHome)
	}
	return env
}

// Check is one check of [CheckStatus].
type Check struct {
	// Name says what was checked: "settings", "command", "probe", "codex".
	Name string
	// OK reports whether the check held.
	OK bool
	// Detail says what was found, and on failure what to do.
	Detail string
}

// Status is what [CheckStatus] found.
type Status struct {
	Client Client
	// Command is the installed hook command, or "" when none was found.
	Command string
	// Checks are the checks made, in order; checking stops at the first
	// that fails when the later ones depend on it.
	Checks []Check
}

// OK reports whether every check held: the hook is live.
func (s Status) OK() bool {
	if len(s.Checks) == 0 {
		return false
	}
	for _, c := range s.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// String renders the status for a person, one check a line.
func (s Status) String() string {
	var b strings.Builder
	for _, c := range s.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "%s %-8s %s\n", mark, c.Name, c.Detail)
	}
	return b.String()
}

func (s *Status) add(name string, ok bool, format string, args ...any) bool {
	s.Checks = append(s.Checks, Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, args...)})
	return ok
}

// CheckStatus proves that toolgate's hook is live for a client: that the
// agent will run it, that its command starts, and that it decides.
//
//   - settings: the agent's own view of its hooks where it offers one
//     (Codex: "codex app-server"'s hooks/list, which reports each hook's
//     trust), else the settings files the agent reads, resolved as it does:
//     Claude Code's user, project and local settings (and a
//     disableAllHooks anywhere, or allowManagedHooksOnly in managed
//     settings, switches every hook off); Gemini CLI's user and project
//     settings, where a project's settings count only in a trusted folder
//     (~/.gemini/trustedFolders.json, GEMINI_CLI_TRUST_WORKSPACE=true, or
//     folder trust switched off) and hooksConfig.enabled=false or a
//     hooksConfig.disabled entry switches the hook off; Cursor's hooks.json.
//     A toolgate entry must gate every tool (matcher "*", ".*" or none).
//   - command: the command's program is an absolute path to an executable
//     file (a hook that cannot start fails open in Gemini CLI and Codex).
//   - probe: the installed command, run as the agent runs it (sh -c) in
//     the project directory, is given one call it must deny in every
//     configuration — a write into .git/hooks, which is a protected path,
//     in the mode where nobody can be asked — and must answer deny in the
//     client's format.
func CheckStatus(ctx context.Context, c Client, options *StatusOptions) Status {
	var o StatusOptions
	if options != nil {
		o = *options
	}
	st := Status{Client: c}
	p, err := c.protocol()
	if err != nil {
		st.add("settings", false, "%v", err)
		return st
	}
	cmd, ok := p.settings(ctx, &st, o)
	if !ok {
		return st
	}
	st.Command = cmd
	if !checkCommand(&st, cmd) {
		return st
	}
	runProbe(ctx, &st, p, cmd, o)
	return st
}

// splitCommand splits a hook command into words: blanks separate, single
// and double quotes group, a backslash escapes outside single quotes.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false
	var quote rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\':
			esc, in = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, errors.New("unbalanced quote or trailing backslash")
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// shellQuote quotes s for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~=%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func checkCommand(st *Status, cmd string) bool {
	words, err := splitCommand(cmd)
	if err != nil || len(words) == 0 {
		return st.add("command", false, "cannot read the hook command %q: %v", cmd, err)
	}
	prog := words[0]
	if !filepath.IsAbs(prog) {
		return st.add("command", false, "%q is not an absolute path: the agent looks it up in its own PATH, and a hook that cannot start is skipped by Gemini CLI and Codex; reinstall with `toolgate hook install %s` from the binary you want it to run", prog, st.Client)
	}
	fi, err := os.Stat(prog)
	if err != nil {
		return st.add("command", false, "%s does not exist (%v); reinstall the hook", prog, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return st.add("command", false, "%s is not an executable file", prog)
	}
	return st.add("command", true, "%s exists and is executable", prog)
}

// isAllMatcher reports whether a matcher gates every tool.
func isAllMatcher(m any) bool {
	s, ok := m.(string)
	if m == nil {
		return true
	}
	if !ok {
		return false
	}
	switch s {
	case "", "*", ".*":
		return true
	}
	return false
}

// settingsFile is one settings file an agent reads.
type settingsFile struct {
	path string
	// project says the file belongs to the project, not to the user or
	// the machine.
	project bool
}

// jsonSettings says how an agent with JSON settings files resolves them.
type jsonSettings struct {
	// files are the files the agent reads, in order.
	files []settingsFile
	// untrusted, if set, says why the agent ignores the project's files.
	untrusted string
	// off, if set, returns why the settings v of file f switch toolgate's
	// hook off, or "".
	off func(f settingsFile, v map[string]any) string
	// commands returns the commands of toolgate's entries that gate every
	// tool in the settings v.
	commands func(v map[string]any) []string
	// skipped, if set, returns why the agent skips the installed command,
	// or "".
	skipped func(cmd string) string
}

// fileSettings finds toolgate's entry in the settings files a JSON-settings
// client reads, as it resolves them.
func fileSettings(st *Status, c Client, js jsonSettings) (string, bool) {
	found := ""
	var where []string
	for _, f := range js.files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			st.add("settings", false, "%s is not valid JSON (%v): the agent may ignore it", f.path, err)
			return "", false
		}
		if js.off != nil {
			if why := js.off(f, v); why != "" {
				st.add("settings", false, "%s", why)
				return "", false
			}
		}
		cmds := js.commands(v)
		if len(cmds) == 0 {
			continue
		}
		if f.project && js.untrusted != "" {
			where = append(where, f.path+" (ignored: "+js.untrusted+")")
			continue
		}
		if found == "" {
			found = cmds[0]
			where = append(where, f.path)
		}
	}
	if found == "" {
		var paths []string
		for _, f := range js.files {
			paths = append(paths, f.path)
		}
		msg := "no toolgate hook gating every tool in " + strings.Join(paths, ", ")
		if len(where) > 0 {
			msg = "the toolgate hook is not read: " + strings.Join(where, "; ")
		}
		st.add("settings", false, "%s; run `toolgate hook install %s`", msg, c)
		return "", false
	}
	if js.skipped != nil {
		if why := js.skipped(found); why != "" {
			st.add("settings", false, "%s", why)
			return "", false
		}
	}
	st.add("settings", true, "%s runs %q for every tool (%s)", c.Agent(), found, strings.Join(where, ", "))
	return found, true
}

// Command returns the hook command that runs the toolgate binary at the
// absolute path exe for client c ("/usr/bin/toolgate hook claude"), quoted
// for the shell.
func Command(exe string, c Client) string { return shellQuote(exe) + " hook " + string(c) }

// groupCommands returns the commands of toolgate's entries in the
// hooks.<event> matcher groups of settings v (Claude Code's, Gemini CLI's)
// whose matcher gates every tool.
func groupCommands(v map[string]any, event string) []string {
	hooks, _ := v["hooks"].(map[string]any)
	groups, _ := hooks[event].([]any)
	var out []string
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok || !isAllMatcher(gm["matcher"]) {
			continue
		}
		list, _ := gm["hooks"].([]any)
		out = append(out, entryCommands(list)...)
	}
	return out
}

// entryCommands returns the commands of the toolgate entries in a list of
// hook entries.
func entryCommands(list []any) []string {
	var out []string
	for _, h := range list {
		if m, ok := h.(map[string]any); ok {
			if s, _ := m["command"].(string); isToolgateCommand(s, "") {
				out = append(out, s)
			}
		}
	}
	return out
}

func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// runProbe runs the installed command on a call it must deny.
func runProbe(ctx context.Context, st *Status, p protocol, cmd string, o StatusOptions) bool {
	dir := o.Dir
	if dir == "" {
		dir = o.Home
	}
	target := filepath.Join(dir, ".git", "hooks", "toolgate-probe")
	shell := "printf probe > " + shellQuote(target)
	in, _ := json.Marshal(p.probePayload(dir, target, shell))
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	run := exec.CommandContext(ctx, "/bin/sh", "-c", cmd)
	run.Dir = dir
	run.Env = o.env()
	run.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	err := run.Run()
	what := "a write to " + target
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 2 {
			return st.add("probe", false, "the hook blocks every call (exit status 2): %s", strings.TrimSpace(stderr.String()))
		}
		return st.add("probe", false, "the hook command failed on a probe call (%v): %s", err, strings.TrimSpace(stderr.String()))
	}
	got, reason, err := p.probeVerdict(stdout.Bytes())
	if err != nil {
		return st.add("probe", false, "the hook's answer to a probe call is not JSON (%v): %q", err, stdout.String())
	}
	if got != "deny" {
		return st.add("probe", false, "the hook answered %q to %s, which it must deny: it is not toolgate deciding (output %q)", got, what, stdout.String())
	}
	return st.add("probe", true, "the hook denied %s: %s", what, clipText(reason, 200))
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
