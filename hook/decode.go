package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate"
)

// Decode maps a client's hook payload to a call.
//
// It is strict, because a payload it misreads could let a call through: the
// payload must be at most [MaxPayload] bytes of valid UTF-8 holding one JSON
// object with no duplicate keys; the hook event must be the client's
// pre-tool event; the fields toolgate uses must be present with the right
// types (tool name, tool input object, absolute working directory); and a
// permission mode, when given, must be one toolgate knows. Fields it does
// not use are ignored, so a client that adds fields keeps working. Any
// problem is an error, and [Run] answers an error with the blocking form.
//
// Per client:
//
//   - Claude: tool_name, tool_input, cwd, session_id, permission_mode
//     (default, acceptEdits, plan, dontAsk, bypassPermissions, auto → the
//     call's mode), mcp_server.name → Call.Server, agent_type → Call.Agent.
//     hook_event_name must be PreToolUse.
//   - Gemini: tool_name (run_shell_command, write_file, read_file, replace,
//     … are toolgate catalog names already), tool_input, cwd, session_id.
//     MCP tools arrive as "mcp_<server>_<tool>" with single underscores,
//     which cannot be split reliably; mcp_context.server_name and
//     mcp_context.tool_name give the parts, and the call's tool is
//     "mcp__<server>__<tool>" with Call.Server set. An "mcp_" tool without
//     mcp_context is an error. hook_event_name must be BeforeTool.
//   - Codex: as Claude, for tool names Bash (tool_input.command a string),
//     apply_patch and mcp__<server>__<tool>; the server is not given apart
//     from the name.
//   - Cursor (from Cursor's hook documentation; not verified against a
//     running Cursor): hook_event_name selects the shape.
//     beforeShellExecution {command, cwd} → tool "Bash" with
//     {"command": ...}; beforeReadFile {file_path} → tool "Read" with
//     {"file_path": ...} (content and attachments are ignored);
//     beforeMCPExecution {tool_name, tool_input} → tool
//     "mcp__<server>__<tool>". Cursor does not name the MCP server (it
//     sends the server's url or command), so the server is "unknown" unless
//     tool_name already has the mcp__<server>__ form; rules for Cursor's
//     MCP tools are written as mcp__unknown__<tool> or with a server glob.
//     tool_input may be an object or a string holding one (both forms
//     appear in the documentation). The working directory is cwd, else the
//     first of workspace_roots; conversation_id is the session.
func Decode(c Client, payload []byte) (toolgate.Call, Meta, error) {
	call, m, err := decode(c, payload)
	if err != nil {
		return toolgate.Call{}, Meta{Client: c}, fmt.Errorf("%s hook payload: %w", c, err)
	}
	return call, m, nil
}

func decode(c Client, payload []byte) (toolgate.Call, Meta, error) {
	m := Meta{Client: c}
	if len(payload) > MaxPayload {
		return toolgate.Call{}, m, fmt.Errorf("larger than %d bytes", MaxPayload)
	}
	if !utf8.Valid(payload) {
		return toolgate.Call{}, m, errors.New("not valid UTF-8")
	}
	f, err := readObject(payload)
	if err != nil {
		return toolgate.Call{}, m, err
	}
	p, ok := protocols[c]
	if !ok {
		return toolgate.Call{}, m, fmt.Errorf("unknown client %q", string(c))
	}
	var call toolgate.Call
	if err := p.decode(f, &call, &m); err != nil {
		return toolgate.Call{}, m, err
	}
	m.Input = call.Input
	return call, m, nil
}

// fields is a payload's top-level object.
type fields map[string]json.RawMessage

// readObject reads one JSON object, refusing duplicate keys and trailing
// data. Values are kept raw (and validated).
func readObject(b []byte) (fields, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err == io.EOF {
		return nil, errors.New("empty")
	}
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	f := make(fields, 16)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("not JSON: object key is not a string")
		}
		if _, dup := f[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		f[key] = raw
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON object")
	}
	return f, nil
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// str returns a string field. A missing or null field is "" (an error when
// required); any other non-string is an error.
func (f fields) str(key string, required bool) (string, error) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		if required {
			return "", fmt.Errorf("missing %s", key)
		}
		return "", nil
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", fmt.Errorf("%s is not a string", key)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %v", key, err)
	}
	if required && s == "" {
		return "", fmt.Errorf("%s is empty", key)
	}
	return s, nil
}

// object returns an object field, raw. A missing or null field is nil (an
// error when required).
func (f fields) object(key string, required bool) (json.RawMessage, error) {
	raw, ok := f[key]
	if !ok || isNull(raw) {
		if required {
			return nil, fmt.Errorf("missing %s", key)
		}
		return nil, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", key)
	}
	return raw, nil
}

func (f fields) event(m *Meta, want ...string) error {
	ev, err := f.str("hook_event_name", true)
	if err != nil {
		return err
	}
	for _, w := range want {
		if ev == w {
			m.Event = ev
			return nil
		}
	}
	return fmt.Errorf("hook_event_name %q is not a pre-tool event (want %s)", ev, strings.Join(want, " or "))
}

func (f fields) cwd(key string) (string, error) {
	cwd, err := f.str(key, true)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("%s %q is not an absolute path", key, cwd)
	}
	return cwd, nil
}

func (f fields) toolAndInput(call *toolgate.Call, m *Meta) error {
	var err error
	if m.Tool, err = f.str("tool_name", true); err != nil {
		return err
	}
	call.Tool = m.Tool
	call.Input, err = f.object("tool_input", true)
	return err
}
