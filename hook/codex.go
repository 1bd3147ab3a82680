package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate"
)

// Codex is Codex CLI (verified against 0.171.0): a PreToolUse command hook
// in config.toml.
const Codex Client = "codex"

// codex is Codex CLI's [protocol]: Claude Code's payload and answer, less
// what Codex does not support, and a TOML settings file.
type codex struct{}

func (codex) agent() string { return "Codex" }

func (codex) decode(f fields, call *toolgate.Call, m *Meta) error {
	return f.decodeClaudeLike(call, m, "PreToolUse")
}

func (codex) defaultAsk() AskPolicy { return AskDeny }

// canAsk: never, whatever the policy.
func (codex) canAsk(AskPolicy, Meta) (bool, string) {
	return false, "Codex ignores a hook's \"ask\" and would run the call"
}

// cannotRewrite: Codex applies a rewrite only to a shell call with a string
// command, the only rewrite verified to take effect.
func (codex) cannotRewrite(m Meta, in json.RawMessage) string {
	if m.Tool != "Bash" {
		return fmt.Sprintf("Codex cannot apply a rewritten input to %s", m.Tool)
	}
	var v struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(in, &v); err != nil || v.Command == nil {
		return "Codex applies a rewritten shell call only with a string command"
	}
	return ""
}

// answer is Claude Code's, without a reason where Codex's schema does not
// need one (allow).
func (codex) answer(out toolgate.Outcome, reason string, d toolgate.Decision, _ Meta) (any, string) {
	a := claudeAnswer(out, reason, d)
	if out == toolgate.Allow || out == toolgate.Modify {
		a.HookSpecificOutput.PermissionDecisionReason = ""
	}
	return a, ""
}

func (codex) settingsPath(o InstallOptions) (string, error) {
	if o.scopeOr(ScopeUser) == ScopeUser && o.CodexHome != "" {
		return absPath(filepath.Join(o.CodexHome, "config.toml"))
	}
	return o.settingsFile(ScopeUser, ".codex", "config.toml")
}

func (codex) edit(old []byte, o InstallOptions, install bool) ([]byte, error) {
	return editTOML(old, o.command(Codex), o.matcherOr(".*"), install, o.CodexTrust)
}

// probePayload is a shell write of target in bypassPermissions mode.
func (codex) probePayload(dir, _, shell string) map[string]any {
	return preToolUseProbe(dir, "Bash", map[string]any{"command": shell})
}

func (codex) probeVerdict(stdout []byte) (string, string, error) { return claudeVerdict(stdout) }

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
		if h.EventName == "preToolUse" && h.HandlerType == "command" && isToolgateCommand(h.Command, "") && isAllMatcher(h.Matcher) {
			return h, true
		}
	}
	return codexHook{}, false
}

const codexTrustHelp = "run `toolgate hook install codex` with codex on PATH (or --codex PATH) to record the trust, or start codex and trust the hook in /hooks"

// settings asks Codex itself (hooks/list) which hooks it runs and trusts.
func (codex) settings(ctx context.Context, st *Status, o StatusOptions) (string, bool) {
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
