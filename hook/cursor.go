package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/jsonin"
)

// Cursor is the Cursor editor's agent: beforeShellExecution,
// beforeMCPExecution and beforeReadFile hooks in .cursor/hooks.json. Its
// protocol is implemented from Cursor's documentation only; see [Decode]
// and [Encode] for the assumptions made.
const Cursor Client = "cursor"

// The Cursor hook events that gate a call.
const (
	cursorShell = "beforeShellExecution"
	cursorMCP   = "beforeMCPExecution"
	cursorRead  = "beforeReadFile"
)

// CursorUnknownServer is the MCP server name given to Cursor's MCP calls,
// whose payload does not name the server.
const CursorUnknownServer = "unknown"

// cursor is Cursor's [protocol].
type cursor struct{}

func (cursor) agent() string { return "Cursor" }

// defaultAsk is ask: the IDE shows a prompt.
func (cursor) defaultAsk() AskPolicy { return AskAsk }

func (cursor) canAsk(policy AskPolicy, m Meta) (bool, string) {
	if policy != AskAsk {
		return false, askPolicyDeny
	}
	if m.Event == cursorRead {
		return false, "Cursor's beforeReadFile hook cannot ask"
	}
	return true, ""
}

// cannotRewrite: Cursor's gating events cannot rewrite an input.
func (cursor) cannotRewrite(Meta, json.RawMessage) string {
	return "Cursor cannot apply a rewritten input"
}

// answer writes the reason of a beforeReadFile deny, whose answer cannot
// carry it, on standard error.
func (cursor) answer(out toolgate.Outcome, reason string, _ toolgate.Decision, m Meta) (any, string) {
	if m.Event == cursorRead && out == toolgate.Deny {
		return cursorAnswer(m, out, reason), reason + "\n"
	}
	return cursorAnswer(m, out, reason), ""
}

func (cursor) settingsPath(o InstallOptions) (string, error) {
	return o.settingsFile(ScopeProject, ".cursor", "hooks.json")
}

func (cursor) edit(old []byte, o InstallOptions, install bool) ([]byte, error) {
	return editJSON(old, install, func(root, hooks *object) (bool, error) {
		return editCursor(root, hooks, o.command(Cursor), install)
	})
}

// settings reads the user's and the project's hooks.json.
func (cursor) settings(_ context.Context, st *Status, o StatusOptions) (string, bool) {
	return fileSettings(st, Cursor, jsonSettings{
		files:    []settingsFile{{filepath.Join(o.Home, ".cursor", "hooks.json"), false}, {filepath.Join(o.Dir, ".cursor", "hooks.json"), true}},
		commands: cursorCommands,
	})
}

// cursorCommands returns the commands of toolgate's entries in the settings
// v; each of Cursor's events has a flat list of entries, without matchers.
func cursorCommands(v map[string]any) []string {
	hooks, _ := v["hooks"].(map[string]any)
	var out []string
	for _, ev := range cursorEvents {
		list, _ := hooks[ev].([]any)
		out = append(out, entryCommands(list)...)
	}
	return out
}

// probePayload is a beforeShellExecution of a shell write of target.
func (cursor) probePayload(dir, _, shell string) map[string]any {
	return map[string]any{"conversation_id": "toolgate-probe", "hook_event_name": cursorShell, "cwd": dir, "command": shell}
}

// probeVerdict reads the permission; Cursor's answer carries the reason
// only as messages, which are not reported.
func (cursor) probeVerdict(stdout []byte) (decision, reason string, err error) {
	var out struct {
		Permission string `json:"permission"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		return "", "", err
	}
	return out.Permission, "", nil
}

// decode reads Cursor's beforeShellExecution, beforeMCPExecution and
// beforeReadFile payloads.
func (cursor) decode(f fields, call *toolgate.Call, m *Meta) error {
	if err := f.event(m, cursorShell, cursorMCP, cursorRead); err != nil {
		return err
	}
	var err error
	if call.Session, err = f.str("conversation_id", false); err != nil {
		return err
	}
	if call.Cwd, err = f.cursorCwd(); err != nil {
		return err
	}
	switch m.Event {
	case cursorShell:
		cmd, err := f.str("command", true)
		if err != nil {
			return err
		}
		m.Tool = "Bash"
		call.Tool = "Bash"
		call.Input, err = json.Marshal(struct {
			Command string `json:"command"`
		}{cmd})
		return err
	case cursorRead:
		p, err := f.str("file_path", true)
		if err != nil {
			return err
		}
		m.Tool = "Read"
		call.Tool = "Read"
		call.Input, err = json.Marshal(struct {
			FilePath string `json:"file_path"`
		}{p})
		return err
	}
	if m.Tool, err = f.str("tool_name", true); err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(m.Tool, "mcp__"); ok {
		call.Tool = m.Tool
		if server, _, ok := strings.Cut(rest, "__"); ok {
			call.Server = server
		}
	} else {
		call.Tool = "mcp__" + CursorUnknownServer + "__" + m.Tool
		call.Server = CursorUnknownServer
	}
	v, ok := f.get("tool_input")
	switch {
	case !ok:
		return errors.New("missing tool_input")
	case v.Kind() == jsonin.Object:
		call.Input = v.Raw()
	case v.Kind() == jsonin.String:
		s, _ := v.Str()
		in := json.RawMessage(strings.TrimSpace(s))
		if len(in) == 0 || in[0] != '{' || !json.Valid(in) {
			return errors.New("tool_input is a string that does not hold a JSON object")
		}
		call.Input = in
	default:
		return errors.New("tool_input is neither a JSON object nor a string holding one")
	}
	return nil
}

// cursorCwd is cwd, else the first workspace root.
func (f fields) cursorCwd() (string, error) {
	if cwd, err := f.str("cwd", false); err != nil || cwd != "" {
		if err != nil {
			return "", err
		}
		return f.cwd("cwd")
	}
	v, ok := f.get("workspace_roots")
	if !ok {
		return "", errors.New("missing cwd and workspace_roots")
	}
	var roots []string
	if err := json.Unmarshal(v.Raw(), &roots); err != nil {
		return "", errors.New("workspace_roots is not a list of strings")
	}
	if len(roots) == 0 {
		return "", errors.New("missing cwd, and workspace_roots is empty")
	}
	if !filepath.IsAbs(roots[0]) {
		return "", fmt.Errorf("workspace root %q is not an absolute path", roots[0])
	}
	return roots[0], nil
}

type cursorOutput struct {
	Permission       string `json:"permission"`
	UserMessage      string `json:"user_message,omitempty"`
	AgentMessage     string `json:"agent_message,omitempty"`
	UserMessageCamel string `json:"userMessage,omitempty"`
	AgentMessageCaml string `json:"agentMessage,omitempty"`
}

func cursorAnswer(m Meta, out toolgate.Outcome, reason string) cursorOutput {
	var o cursorOutput
	switch out {
	case toolgate.Allow:
		o.Permission = "allow"
		return o
	case toolgate.Ask:
		o.Permission = "ask"
	default:
		o.Permission = "deny"
	}
	if m.Event != cursorRead {
		o.UserMessage, o.AgentMessage = reason, reason
		o.UserMessageCamel, o.AgentMessageCaml = reason, reason
	}
	return o
}

// cursorEvents are the Cursor events toolgate gates.
var cursorEvents = []string{cursorShell, cursorMCP, cursorRead}

func editCursor(root, hooks *object, cmd string, install bool) (bool, error) {
	entry := newObject()
	entry.set("command", cmd)
	entry.set("failClosed", true)
	changed := false
	for _, ev := range cursorEvents {
		var list []any
		if v, ok := hooks.get(ev); ok {
			if list, ok = v.([]any); !ok {
				return false, fmt.Errorf("hooks.%s is not a list", ev)
			}
		}
		present := false
		var rest []any
		for _, h := range list {
			if install && equalJSON(h, entry) && !present {
				present = true
				rest = append(rest, h)
				continue
			}
			if isToolgateEntry(h, cmd) {
				changed = true
				continue
			}
			rest = append(rest, h)
		}
		if install && !present {
			rest = append(rest, entry)
			changed = true
		}
		if len(rest) == 0 {
			hooks.del(ev)
		} else {
			hooks.set(ev, rest)
		}
	}
	if install {
		if _, ok := root.get("version"); !ok {
			root.set("version", 1)
			changed = true
		}
	}
	return changed, nil
}
