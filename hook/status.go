package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	if _, err := ParseClient(string(c)); err != nil {
		st.add("settings", false, "%v", err)
		return st
	}
	var cmd string
	var ok bool
	if c == Codex {
		cmd, ok = codexSettings(ctx, &st, o)
	} else {
		cmd, ok = fileSettings(&st, c, o)
	}
	if !ok {
		return st
	}
	st.Command = cmd
	if !checkCommand(&st, cmd) {
		return st
	}
	probe(ctx, &st, c, cmd, o)
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
func isAllMatcher(c Client, m any) bool {
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

// fileSettings finds toolgate's entry in the settings files a JSON-settings
// client reads, as it resolves them.
func fileSettings(st *Status, c Client, o StatusOptions) (string, bool) {
	type file struct {
		path    string
		project bool
	}
	var files []file
	userDir := func(name string) string { return filepath.Join(o.Home, name) }
	switch c {
	case Claude:
		ud := userDir(".claude")
		if d := envValue(o.env(), "CLAUDE_CONFIG_DIR"); d != "" {
			ud = d
		}
		files = []file{{"/etc/claude-code/managed-settings.json", false}, {filepath.Join(ud, "settings.json"), false},
			{filepath.Join(o.Dir, ".claude", "settings.json"), true}, {filepath.Join(o.Dir, ".claude", "settings.local.json"), true}}
	case Gemini:
		ud := userDir(".gemini")
		if d := envValue(o.env(), "GEMINI_CLI_HOME"); d != "" {
			ud = filepath.Join(d, ".gemini")
		}
		files = []file{{"/etc/gemini-cli/settings.json", false}, {filepath.Join(ud, "settings.json"), false},
			{filepath.Join(o.Dir, ".gemini", "settings.json"), true}}
	case Cursor:
		files = []file{{userDir(".cursor/hooks.json"), false}, {filepath.Join(o.Dir, ".cursor", "hooks.json"), true}}
	}
	found := ""
	var where []string
	geminiTrusted, trustWhy := true, ""
	if c == Gemini {
		geminiTrusted, trustWhy = geminiFolderTrusted(o)
	}
	for _, f := range files {
		data, err := os.ReadFile(f.path)
		if err != nil {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			st.add("settings", false, "%s is not valid JSON (%v): the agent may ignore it", f.path, err)
			return "", false
		}
		if c == Claude {
			if b, _ := v["disableAllHooks"].(bool); b {
				st.add("settings", false, "%s sets disableAllHooks: Claude Code runs no hook", f.path)
				return "", false
			}
			if b, _ := v["allowManagedHooksOnly"].(bool); b && strings.HasPrefix(f.path, "/etc/") {
				st.add("settings", false, "%s sets allowManagedHooksOnly: Claude Code runs only managed hooks", f.path)
				return "", false
			}
		}
		if c == Gemini {
			if hc, ok := v["hooksConfig"].(map[string]any); ok {
				if en, ok := hc["enabled"].(bool); ok && !en && (!f.project || geminiTrusted) {
					st.add("settings", false, "%s sets hooksConfig.enabled = false: Gemini CLI runs no hook", f.path)
					return "", false
				}
			}
		}
		cmds := toolgateCommands(c, v)
		if len(cmds) == 0 {
			continue
		}
		if f.project && c == Gemini && !geminiTrusted {
			where = append(where, f.path+" (ignored: "+trustWhy+")")
			continue
		}
		if found == "" {
			found = cmds[0]
			where = append(where, f.path)
		}
	}
	if found == "" {
		var paths []string
		for _, f := range files {
			paths = append(paths, f.path)
		}
		msg := "no toolgate hook gating every tool in " + strings.Join(paths, ", ")
		if len(where) > 0 {
			msg = "the toolgate hook is not read: " + strings.Join(where, "; ")
		}
		st.add("settings", false, "%s; run `toolgate hook install %s`", msg, c)
		return "", false
	}
	if c == Gemini {
		if disabled := geminiDisabled(files[1].path, found); disabled {
			st.add("settings", false, "hooksConfig.disabled lists %q: Gemini CLI skips it", found)
			return "", false
		}
	}
	st.add("settings", true, "%s runs %q for every tool (%s)", agentName(c), found, strings.Join(where, ", "))
	return found, true
}

// Agent returns the name of the client's agent: "Claude Code", "Gemini
// CLI", "Codex" or "Cursor".
func (c Client) Agent() string { return agentName(c) }

// Command returns the hook command that runs the toolgate binary at the
// absolute path exe for client c ("/usr/bin/toolgate hook claude"), quoted
// for the shell.
func Command(exe string, c Client) string { return shellQuote(exe) + " hook " + string(c) }

func agentName(c Client) string {
	switch c {
	case Claude:
		return "Claude Code"
	case Gemini:
		return "Gemini CLI"
	case Codex:
		return "Codex"
	}
	return "Cursor"
}

// toolgateCommands returns the commands of toolgate hook entries that gate
// every tool in a settings object.
func toolgateCommands(c Client, v map[string]any) []string {
	hooks, _ := v["hooks"].(map[string]any)
	var out []string
	if c == Cursor {
		for _, ev := range cursorEvents {
			list, _ := hooks[ev].([]any)
			for _, h := range list {
				if m, ok := h.(map[string]any); ok {
					if s, _ := m["command"].(string); isToolgateCommand(s, "") {
						out = append(out, s)
					}
				}
			}
		}
		return out
	}
	event := "PreToolUse"
	if c == Gemini {
		event = "BeforeTool"
	}
	groups, _ := hooks[event].([]any)
	for _, g := range groups {
		gm, ok := g.(map[string]any)
		if !ok || !isAllMatcher(c, gm["matcher"]) {
			continue
		}
		list, _ := gm["hooks"].([]any)
		for _, h := range list {
			if m, ok := h.(map[string]any); ok {
				if s, _ := m["command"].(string); isToolgateCommand(s, "") {
					out = append(out, s)
				}
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

// geminiFolderTrusted applies Gemini CLI's folder-trust rule to o.Dir: the
// folder is trusted when GEMINI_CLI_TRUST_WORKSPACE=true, when the user's
// settings switch folder trust off (security.folderTrust.enabled = false),
// or when the longest rule of ~/.gemini/trustedFolders.json that covers it
// is TRUST_FOLDER or TRUST_PARENT (which trusts the rule's parent).
func geminiFolderTrusted(o StatusOptions) (bool, string) {
	if envValue(o.env(), "GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return true, ""
	}
	home := filepath.Join(o.Home, ".gemini")
	if data, err := os.ReadFile(filepath.Join(home, "settings.json")); err == nil {
		var s struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if json.Unmarshal(data, &s) == nil && s.Security.FolderTrust.Enabled != nil && !*s.Security.FolderTrust.Enabled {
			return true, ""
		}
	}
	data, err := os.ReadFile(filepath.Join(home, "trustedFolders.json"))
	if err != nil {
		return false, o.Dir + " is not a trusted folder (no " + filepath.Join(home, "trustedFolders.json") + "); trust it in Gemini CLI, or install with --user"
	}
	var rules map[string]string
	if err := json.Unmarshal(data, &rules); err != nil {
		return false, "trustedFolders.json is not valid JSON"
	}
	best, level := -1, ""
	for p, l := range rules {
		eff := p
		if l == "TRUST_PARENT" {
			eff = filepath.Dir(p)
		}
		eff = filepath.Clean(eff)
		if o.Dir == eff || strings.HasPrefix(o.Dir, strings.TrimSuffix(eff, "/")+"/") {
			if len(eff) > best {
				best, level = len(eff), l
			}
		}
	}
	if level == "TRUST_FOLDER" || level == "TRUST_PARENT" {
		return true, ""
	}
	return false, o.Dir + " is not a trusted folder in trustedFolders.json; trust it in Gemini CLI, or install with --user"
}

func geminiDisabled(userSettings, cmd string) bool {
	data, err := os.ReadFile(userSettings)
	if err != nil {
		return false
	}
	var s struct {
		HooksConfig struct {
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
	}
	if json.Unmarshal(data, &s) != nil {
		return false
	}
	for _, d := range s.HooksConfig.Disabled {
		if d == cmd {
			return true
		}
	}
	return false
}

// probe runs the installed command on a call it must deny.
func probe(ctx context.Context, st *Status, c Client, cmd string, o StatusOptions) bool {
	dir := o.Dir
	if dir == "" {
		dir = o.Home
	}
	target := filepath.Join(dir, ".git", "hooks", "toolgate-probe")
	shell := "printf probe > " + shellQuote(target)
	var payload map[string]any
	switch c {
	case Claude, Codex:
		payload = map[string]any{"session_id": "toolgate-probe", "hook_event_name": "PreToolUse", "cwd": dir,
			"permission_mode": "bypassPermissions", "tool_name": "Bash", "tool_input": map[string]any{"command": shell},
			"tool_use_id": "toolgate-probe"}
		if c == Claude {
			payload["tool_name"] = "Write"
			payload["tool_input"] = map[string]any{"file_path": target, "content": "probe"}
		}
	case Gemini:
		payload = map[string]any{"session_id": "toolgate-probe", "hook_event_name": "BeforeTool", "cwd": dir,
			"tool_name": "run_shell_command", "tool_input": map[string]any{"command": shell}}
	case Cursor:
		payload = map[string]any{"conversation_id": "toolgate-probe", "hook_event_name": cursorShell, "cwd": dir, "command": shell}
	}
	in, _ := json.Marshal(payload)
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
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
		Decision   string `json:"decision"`
		Reason     string `json:"reason"`
		Permission string `json:"permission"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return st.add("probe", false, "the hook's answer to a probe call is not JSON (%v): %q", err, stdout.String())
	}
	got, reason := out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason
	switch c {
	case Gemini:
		got, reason = out.Decision, out.Reason
	case Cursor:
		got = out.Permission
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

// codexHook is one entry of Codex's hooks/list.
type codexHook struct {
	Key          string `json:"key"`
	EventName    string `json:"eventName"`
	HandlerType  string `json:"handlerType"`
	Command      string `json:"command"`
	Matcher      string `json:"matcher"`
	SourcePath   string `json:"sourcePath"`
	Enabled      bool   `json:"enabled"`
	CurrentHash  string `json:"currentHash"`
	TrustStatus  string `json:"trustStatus"`
	IsManaged    bool   `json:"isManaged"`
	DisplayOrder int    `json:"displayOrder"`
}

// errNoCodex says that no codex command was found.
var errNoCodex = errors.New("no codex command found")

func (o StatusOptions) codexBin() (string, error) {
	if o.Codex != "" {
		return o.Codex, nil
	}
	p, err := exec.LookPath("codex")
	if err != nil {
		return "", errNoCodex
	}
	return p, nil
}

// codexList asks Codex (its app-server, over stdio) which hooks it would
// run in o.Dir.
func codexList(ctx context.Context, o StatusOptions) ([]codexHook, error) {
	bin, err := o.codexBin()
	if err != nil {
		return nil, err
	}
	dir := o.Dir
	if dir == "" {
		dir = o.Home
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "app-server")
	cmd.Dir = dir
	cmd.Env = o.env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s app-server: %v", bin, err)
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	cwds, _ := json.Marshal([]string{dir})
	fmt.Fprintf(stdin, "%s\n%s\n%s\n",
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"toolgate","version":"1"}}}`,
		`{"method":"initialized"}`,
		`{"id":2,"method":"hooks/list","params":{"cwds":`+string(cwds)+`}}`)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		if len(msg.Error) > 0 {
			return nil, fmt.Errorf("codex app-server: request %d failed: %s", *msg.ID, msg.Error)
		}
		if *msg.ID != 2 {
			continue
		}
		var res struct {
			Data []struct {
				Hooks  []codexHook      `json:"hooks"`
				Errors []map[string]any `json:"errors"`
			} `json:"data"`
		}
		if err := json.Unmarshal(msg.Result, &res); err != nil {
			return nil, fmt.Errorf("codex app-server: hooks/list: %v", err)
		}
		var hooks []codexHook
		for _, d := range res.Data {
			hooks = append(hooks, d.Hooks...)
		}
		return hooks, nil
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("codex app-server: %v", err)
	}
	return nil, fmt.Errorf("codex app-server gave no hooks/list answer: %s", clipText(strings.TrimSpace(stderr.String()), 500))
}

// codexEntry finds toolgate's PreToolUse hook in Codex's list.
func codexEntry(hooks []codexHook) (codexHook, bool) {
	for _, h := range hooks {
		if h.EventName == "preToolUse" && h.HandlerType == "command" && isToolgateCommand(h.Command, "") && isAllMatcher(Codex, h.Matcher) {
			return h, true
		}
	}
	return codexHook{}, false
}

const codexTrustHelp = "run `toolgate hook install codex` with codex on PATH (or --codex PATH) to record the trust, or start codex and trust the hook in /hooks"

func codexSettings(ctx context.Context, st *Status, o StatusOptions) (string, bool) {
	hooks, err := codexList(ctx, o)
	if errors.Is(err, errNoCodex) {
		st.add("settings", false, "cannot ask Codex which hooks it runs: no codex command on PATH; pass --codex PATH")
		return "", false
	}
	if err != nil {
		st.add("settings", false, "cannot ask Codex which hooks it runs: %v", err)
		return "", false
	}
	h, ok := codexEntry(hooks)
	if !ok {
		st.add("settings", false, "Codex lists no toolgate PreToolUse hook for every tool (%d hooks listed); run `toolgate hook install codex`", len(hooks))
		return "", false
	}
	if !h.Enabled {
		st.add("settings", false, "Codex lists the toolgate hook %s as disabled", h.Key)
		return "", false
	}
	if h.TrustStatus != "trusted" && h.TrustStatus != "managed" {
		st.add("settings", false, "Codex lists the toolgate hook %s as %s: a plain `codex exec` skips it; %s", h.Key, h.TrustStatus, codexTrustHelp)
		return "", false
	}
	st.add("settings", true, "Codex lists the toolgate hook %s (%s) as %s", h.Key, h.SourcePath, h.TrustStatus)
	return h.Command, true
}

// TrustCodex records Codex's trust in toolgate's installed hook the way
// Codex does — a hooks.state."<key>".trusted_hash entry holding the hash
// Codex reports for the hook — inside toolgate's marker block of the
// config.toml the hook is in, after asking Codex (hooks/list) for the key
// and the hash. It returns an error, saying what to run, when Codex cannot
// be asked or the hook is not listed.
func TrustCodex(ctx context.Context, options *StatusOptions) error {
	var o StatusOptions
	if options != nil {
		o = *options
	}
	hooks, err := codexList(ctx, o)
	if errors.Is(err, errNoCodex) {
		return errors.New("codex skips a hook it has not trusted, and no codex command is on PATH to record the trust: " +
			"rerun with --codex /path/to/codex, or start codex and trust the hook in /hooks")
	}
	if err != nil {
		return fmt.Errorf("cannot ask Codex to list its hooks (%v); start codex and trust the hook in /hooks", err)
	}
	h, ok := codexEntry(hooks)
	if !ok {
		return fmt.Errorf("codex does not list the hook just written (%d hooks listed): is CODEX_HOME the directory it reads?", len(hooks))
	}
	if h.TrustStatus == "trusted" || h.TrustStatus == "managed" {
		return nil
	}
	if h.Key == "" || h.CurrentHash == "" {
		return errors.New("codex lists the hook without a key or hash to trust; start codex and trust it in /hooks")
	}
	io := o.InstallOptions
	io.CodexTrust = map[string]string{h.Key: h.CurrentHash}
	path, err := SettingsPath(Codex, &io)
	if err != nil {
		return err
	}
	if h.SourcePath != "" && filepath.Clean(h.SourcePath) != filepath.Clean(path) {
		return fmt.Errorf("codex reads the toolgate hook from %s, not %s; trust it in codex's /hooks", h.SourcePath, path)
	}
	if _, _, err := Install(Codex, &io); err != nil {
		return err
	}
	return nil
}
