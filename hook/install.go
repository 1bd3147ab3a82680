package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/toolgate/toolgate/internal/tomltext"
)

// Scope says which settings file [Install] writes.
type Scope string

const (
	// ScopeDefault is the client's usual place: the project for Claude Code
	// and Cursor; the user's settings for Gemini CLI (it ignores a project's
	// .gemini/settings.json unless the folder is trusted before it starts,
	// so a project hook can silently not run) and Codex (config.toml).
	ScopeDefault Scope = ""
	// ScopeProject is the project's settings, under InstallOptions.Dir.
	ScopeProject Scope = "project"
	// ScopeUser is the user's settings, under InstallOptions.Home.
	ScopeUser Scope = "user"
)

// FS is the file access of [Install] and [Uninstall]. [OSFS] is the real
// file system; tests use it on a temporary directory or fake it.
type FS interface {
	// ReadFile reads a file; an error satisfying errors.Is(err,
	// fs.ErrNotExist) means there is none.
	ReadFile(name string) ([]byte, error)
	// WriteFile replaces a file's content, creating its directory.
	WriteFile(name string, data []byte) error
}

// OSFS is the operating system's file system. WriteFile writes a temporary
// file next to the target and renames it over the target, keeping the
// target's permissions (0644 for a new file), so a reader never sees half a
// file.
type OSFS struct{}

// ReadFile implements [FS].
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// WriteFile implements [FS].
func (OSFS) WriteFile(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		perm = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".toolgate-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// InstallOptions configure [Install] and [Uninstall].
type InstallOptions struct {
	// Scope selects the project's or the user's settings.
	Scope Scope
	// Dir is the project directory, for ScopeProject.
	Dir string
	// Home is the user's home directory, for ScopeUser.
	Home string
	// CodexHome is $CODEX_HOME; empty means Home/.codex.
	CodexHome string
	// Command is the hook command; empty means "toolgate hook <client>".
	Command string
	// Matcher is the tool matcher of the entry (Claude Code, Gemini CLI,
	// Codex); empty means every tool: "*" for Claude Code, ".*" for Gemini
	// CLI and Codex (whose matchers are regular expressions).
	Matcher string
	// DryRun computes the new content without writing it.
	DryRun bool
	// CodexTrust holds hooks.state entries (hook key → trusted_hash, as
	// Codex's hooks/list reports them) to record in toolgate's Codex block;
	// see [TrustCodex].
	CodexTrust map[string]string
	// FS is the file access; nil means [OSFS].
	FS FS
}

func (o InstallOptions) fsys() FS {
	if o.FS == nil {
		return OSFS{}
	}
	return o.FS
}

func (o InstallOptions) command(c Client) string {
	if o.Command != "" {
		return o.Command
	}
	return "toolgate hook " + string(c)
}

// matcherOr is the configured matcher, or def (the client's "every tool").
func (o InstallOptions) matcherOr(def string) string {
	if o.Matcher != "" {
		return o.Matcher
	}
	return def
}

// scopeOr is the configured scope, or def (the client's usual place).
func (o InstallOptions) scopeOr(def Scope) Scope {
	if o.Scope == ScopeDefault {
		return def
	}
	return o.Scope
}

// settingsFile is the file at the path rel inside the directory of o's
// scope (def when o sets none).
func (o InstallOptions) settingsFile(def Scope, rel ...string) (string, error) {
	var base string
	scope := o.scopeOr(def)
	switch scope {
	case ScopeProject:
		base = o.Dir
	case ScopeUser:
		base = o.Home
	default:
		return "", fmt.Errorf("unknown scope %q (want project or user)", scope)
	}
	if base == "" {
		return "", fmt.Errorf("no %s directory to install into", scope)
	}
	return absPath(filepath.Join(append([]string{base}, rel...)...))
}

// SettingsPath returns the file [Install] writes for a client and scope:
//
//	claude  project DIR/.claude/settings.json   user HOME/.claude/settings.json
//	gemini  project DIR/.gemini/settings.json   user HOME/.gemini/settings.json
//	codex   project DIR/.codex/config.toml      user CODEX_HOME/config.toml (default HOME/.codex)
//	cursor  project DIR/.cursor/hooks.json      user HOME/.cursor/hooks.json
//
// Codex reads a project's .codex/config.toml only when the project is
// trusted.
func SettingsPath(c Client, options *InstallOptions) (string, error) {
	var o InstallOptions
	if options != nil {
		o = *options
	}
	p, err := c.protocol()
	if err != nil {
		return "", err
	}
	return p.settingsPath(o)
}

func absPath(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not an absolute path", p)
	}
	return p, nil
}

// Install adds toolgate's hook entry to the client's settings file (see
// [SettingsPath]), merging with what is there, and returns the file's path
// and its new content. It writes only when the content changes, and never
// with DryRun.
//
// The entries it writes:
//
//   - Claude Code: hooks.PreToolUse gets {"matcher": "*", "hooks":
//     [{"type": "command", "command": CMD, "timeout": 10, "onFailure":
//     "block"}]} — "onFailure": "block" makes a crash or timeout of the hook
//     block the call instead of letting it run.
//   - Gemini CLI: hooks.BeforeTool gets {"matcher": ".*", "hooks": [{"type":
//     "command", "command": CMD, "timeout": 10000}]} (milliseconds).
//   - Codex: a block of [[hooks.PreToolUse]] with matcher = ".*" and
//     [[hooks.PreToolUse.hooks]] type = "command", command = CMD,
//     timeout = 10, between "# >>> toolgate hook" and "# <<< toolgate hook"
//     marker comments. It is appended as text, so comments and formatting
//     elsewhere in config.toml are kept exactly (a TOML round trip would lose
//     them); the result is parsed to check it is valid TOML, and an existing
//     file whose hooks.PreToolUse is written inline cannot take the block
//     (an error, nothing written).
//   - Cursor: beforeShellExecution, beforeMCPExecution and beforeReadFile
//     each get {"command": CMD, "failClosed": true}, and "version": 1 is set
//     when absent.
//
// JSON files keep their keys in order and are rewritten with two-space
// indentation; a file that is not plain JSON (for instance with comments)
// is an error and is not touched.
//
// Install is idempotent: when the entry is already there, nothing changes.
// An older toolgate entry (a command "toolgate hook …", or the Codex marker
// block) is replaced rather than duplicated.
func Install(c Client, options *InstallOptions) (path string, content []byte, err error) {
	var o InstallOptions
	if options != nil {
		o = *options
	}
	return edit(c, o, true)
}

// Uninstall removes toolgate's entries — hooks whose command is the
// configured Command or runs "toolgate hook" — from the client's settings
// file, keeping everything else, and returns the file's path and new
// content. Matcher groups and event lists left empty by the removal are
// removed too. A file without toolgate entries is left alone.
func Uninstall(c Client, options *InstallOptions) (path string, content []byte, err error) {
	var o InstallOptions
	if options != nil {
		o = *options
	}
	return edit(c, o, false)
}

func edit(c Client, o InstallOptions, install bool) (string, []byte, error) {
	p, err := c.protocol()
	if err != nil {
		return "", nil, err
	}
	path, err := p.settingsPath(o)
	if err != nil {
		return "", nil, err
	}
	fsys := o.fsys()
	old, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		old, err = nil, nil
	}
	if err != nil {
		return path, nil, err
	}
	updated, err := p.edit(old, o, install)
	if err != nil {
		return path, nil, fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(updated, old) || o.DryRun || (old == nil && !install) {
		return path, updated, nil
	}
	if err := fsys.WriteFile(path, updated); err != nil {
		return path, nil, err
	}
	return path, updated, nil
}

// isToolgateCommand reports whether a hook command runs "toolgate hook":
// the configured command, a program named toolgate or toolgate.exe run as
// "PROG hook …", or one whose name starts with "toolgate" (a renamed
// release binary, toolgate-linux-amd64) run as "PROG hook CLIENT …".
func isToolgateCommand(cmd, configured string) bool {
	if configured != "" && cmd == configured {
		return true
	}
	f, err := splitCommand(cmd)
	if err != nil || len(f) < 2 || f[1] != "hook" {
		return false
	}
	switch base := filepath.Base(f[0]); {
	case base == "toolgate" || base == "toolgate.exe":
		return true
	case strings.HasPrefix(base, "toolgate") && len(f) >= 3:
		_, err := ParseClient(f[2])
		return err == nil
	}
	return false
}

// editJSON edits a JSON settings file: editHooks adds or removes toolgate's
// entries in its "hooks" object (and may set other members of root), and
// reports whether it changed anything.
func editJSON(old []byte, install bool, editHooks func(root, hooks *object) (bool, error)) ([]byte, error) {
	root := newObject()
	if len(bytes.TrimSpace(old)) > 0 {
		v, err := parseOrdered(old)
		if err != nil {
			return nil, fmt.Errorf("not valid JSON (%v); fix or remove it, or add the hook by hand", err)
		}
		r, ok := v.(*object)
		if !ok {
			return nil, errors.New("the settings are not a JSON object")
		}
		root = r
	} else if !install {
		return old, nil
	}
	var hooks *object
	if v, ok := root.get("hooks"); ok {
		if hooks, ok = v.(*object); !ok {
			return nil, errors.New(`"hooks" is not an object`)
		}
	} else if !install {
		return old, nil
	} else {
		hooks = newObject()
	}
	changed, err := editHooks(root, hooks)
	if err != nil {
		return nil, err
	}
	if !changed {
		return old, nil
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks)
	}
	return marshalOrdered(root)
}

// commandEntry is the hook entry {"type": "command", "command": cmd,
// "timeout": timeout} of Claude Code's and Gemini CLI's settings.
func commandEntry(cmd string, timeout int) *object {
	entry := newObject()
	entry.set("type", "command")
	entry.set("command", cmd)
	entry.set("timeout", timeout)
	return entry
}

// editGroups edits a hooks.<event> list of matcher groups (Claude Code's,
// Gemini CLI's): with install, one group holding entry, whose command is
// cmd, under matcher.
func editGroups(hooks *object, event, matcher, cmd string, entry *object, install bool) (bool, error) {
	group := newObject()
	group.set("matcher", matcher)
	group.set("hooks", []any{entry})

	var groups []any
	if v, ok := hooks.get(event); ok {
		if groups, ok = v.([]any); !ok {
			return false, fmt.Errorf("hooks.%s is not a list", event)
		}
	}
	if install {
		for _, g := range groups {
			if equalJSON(g, group) {
				return false, nil // already installed
			}
		}
	}
	kept, removed, err := removeHooks(groups, event, cmd)
	if err != nil {
		return false, err
	}
	if install {
		kept = append(kept, group)
	} else if !removed {
		return false, nil
	}
	if len(kept) == 0 {
		hooks.del(event)
	} else {
		hooks.set(event, kept)
	}
	return true, nil
}

// removeHooks drops toolgate's hooks from matcher groups, and groups it
// empties.
func removeHooks(groups []any, event, cmd string) (kept []any, removed bool, err error) {
	for i, g := range groups {
		gob, ok := g.(*object)
		if !ok {
			kept = append(kept, g)
			continue
		}
		hv, ok := gob.get("hooks")
		if !ok {
			kept = append(kept, g)
			continue
		}
		list, ok := hv.([]any)
		if !ok {
			return nil, false, fmt.Errorf("hooks.%s[%d].hooks is not a list", event, i)
		}
		var rest []any
		for _, h := range list {
			if isToolgateEntry(h, cmd) {
				removed = true
				continue
			}
			rest = append(rest, h)
		}
		if len(rest) == len(list) {
			kept = append(kept, g)
			continue
		}
		if len(rest) == 0 {
			continue
		}
		gob.set("hooks", rest)
		kept = append(kept, gob)
	}
	return kept, removed, nil
}

func isToolgateEntry(h any, cmd string) bool {
	o, ok := h.(*object)
	if !ok {
		return false
	}
	v, _ := o.get("command")
	s, ok := v.(string)
	return ok && isToolgateCommand(s, cmd)
}

const (
	tomlBegin = "# >>> toolgate hook (managed by `toolgate hook install codex`; `toolgate hook uninstall codex` removes it)"
	tomlEnd   = "# <<< toolgate hook"
)

func editTOML(old []byte, cmd, matcher string, install bool, trust map[string]string) ([]byte, error) {
	var probe map[string]any
	if _, err := toml.Decode(string(old), &probe); err != nil {
		return nil, fmt.Errorf("not valid TOML (%v); fix it, or add the hook by hand", err)
	}
	text := string(old)
	rest, found, err := cutTOMLBlock(text)
	if err != nil {
		return nil, err
	}
	if install && trust == nil && found {
		// Keep the trust recorded in the old block: installing again
		// must not make Codex skip the hook. (A stale hash is harmless:
		// Codex then reports the hook as modified.)
		trust = blockTrust(text)
	}
	if !install {
		if !found {
			return old, nil
		}
		return []byte(rest), nil
	}
	block := "[[hooks.PreToolUse]]\nmatcher = " + tomltext.Quote(matcher) + "\n\n" +
		"[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = " + tomltext.Quote(cmd) + "\ntimeout = 10\n"
	keys := make([]string, 0, len(trust))
	for k := range trust {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// Codex's own record of a trusted hook (what trusting it in
		// codex's /hooks writes).
		block += "\n[hooks.state." + tomltext.Quote(k) + "]\ntrusted_hash = " + tomltext.Quote(trust[k]) + "\n"
	}
	out := rest
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if out != "" {
		out += "\n"
	}
	out += tomlBegin + "\n" + block + tomlEnd + "\n"
	if out == text {
		return old, nil
	}
	var check struct {
		Hooks struct {
			PreToolUse []struct {
				Hooks []struct{ Command string }
			}
		}
	}
	if _, err := toml.Decode(out, &check); err != nil {
		return nil, fmt.Errorf("cannot append the hook to this config.toml (%v); add it by hand", err)
	}
	ok := false
	for _, g := range check.Hooks.PreToolUse {
		for _, h := range g.Hooks {
			ok = ok || h.Command == cmd
		}
	}
	if !ok {
		return nil, errors.New("internal error: the appended hook does not read back")
	}
	return []byte(out), nil
}

// blockTrust returns the hooks.state entries inside toolgate's marker block
// of text.
func blockTrust(text string) map[string]string {
	i := strings.Index(text, tomlBegin)
	if i < 0 {
		return nil
	}
	j := strings.Index(text[i:], tomlEnd)
	if j < 0 {
		return nil
	}
	var v struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(text[i:i+j], &v); err != nil {
		return nil
	}
	out := make(map[string]string, len(v.Hooks.State))
	for k, st := range v.Hooks.State {
		if st.TrustedHash != "" {
			out[k] = st.TrustedHash
		}
	}
	return out
}

// cutTOMLBlock removes toolgate's marker block, with the blank line before
// it, from text.
func cutTOMLBlock(text string) (string, bool, error) {
	i := strings.Index(text, tomlBegin)
	if i < 0 {
		return text, false, nil
	}
	j := strings.Index(text[i:], tomlEnd)
	if j < 0 {
		return "", false, errors.New("toolgate's hook block has no end marker; fix it by hand")
	}
	end := i + j + len(tomlEnd)
	if end < len(text) && text[end] == '\n' {
		end++
	}
	start := i
	if start >= 2 && text[start-2:start] == "\n\n" {
		start--
	}
	if start == 1 && text[0] == '\n' {
		start = 0
	}
	out := text[:start] + text[end:]
	if strings.Contains(out, tomlBegin) {
		return cutTOMLBlock(out)
	}
	return out, true, nil
}
