package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate"
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

// decodeCursor reads Cursor's beforeShellExecution, beforeMCPExecution and
// beforeReadFile payloads.
func (f fields) decodeCursor(call *toolgate.Call, m *Meta) error {
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
	raw, ok := f["tool_input"]
	switch {
	case !ok || isNull(raw):
		return errors.New("missing tool_input")
	case raw[0] == '{':
		call.Input = raw
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("tool_input: %v", err)
		}
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
	raw, ok := f["workspace_roots"]
	if !ok || isNull(raw) {
		return "", errors.New("missing cwd and workspace_roots")
	}
	var roots []string
	if err := json.Unmarshal(raw, &roots); err != nil {
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
