package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/jsonin"
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
	doc := docs.Get().(*jsonin.Doc)
	defer func() {
		doc.Reset() // the pool keeps no reference to the payload
		docs.Put(doc)
	}()
	f, err := readObject(doc, payload)
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
	// The input is a slice of the payload: the call keeps a copy of its
	// own, so that a caller may reuse the payload's buffer.
	call.Input = bytes.Clone(call.Input)
	m.Input = call.Input
	return call, m, nil
}

// docs keeps parsed payloads' tapes for reuse: nothing decode returns
// refers to one (strings are copies, the input is cloned).
var docs = sync.Pool{New: func() any { return new(jsonin.Doc) }}

// fields is a payload's top-level object, read in one pass by jsonin: valid
// JSON, with no duplicate key in any object (a duplicate could smuggle a
// second tool name past a reader that keeps the first) and nothing after
// the object.
type fields struct{ root jsonin.Value }

// readObject parses b into d as one JSON object.
func readObject(d *jsonin.Doc, b []byte) (fields, error) {
	if err := d.Parse(b); err != nil {
		return fields{}, fmt.Errorf("not JSON: %v", err)
	}
	root := d.Root()
	if root.Kind() != jsonin.Object {
		return fields{}, errors.New("not a JSON object")
	}
	return fields{root}, nil
}

// get returns a field's value as written, and whether it is there and not
// null.
func (f fields) get(key string) (jsonin.Value, bool) {
	v := f.root.Get(key)
	return v, v.Exists() && v.Kind() != jsonin.Null
}

// str returns a string field. A missing or null field is "" (an error when
// required); any other non-string is an error.
func (f fields) str(key string, required bool) (string, error) {
	v, ok := f.get(key)
	if !ok {
		if required {
			return "", fmt.Errorf("missing %s", key)
		}
		return "", nil
	}
	str, ok := v.Str()
	if !ok {
		return "", fmt.Errorf("%s is not a string", key)
	}
	if required && str == "" {
		return "", fmt.Errorf("%s is empty", key)
	}
	return str, nil
}

// object returns an object field, raw. A missing or null field is nil (an
// error when required).
func (f fields) object(key string, required bool) (json.RawMessage, error) {
	v, ok := f.get(key)
	if !ok {
		if required {
			return nil, fmt.Errorf("missing %s", key)
		}
		return nil, nil
	}
	if v.Kind() != jsonin.Object {
		return nil, fmt.Errorf("%s is not a JSON object", key)
	}
	return v.Raw(), nil
}

// sub returns an object field as fields of its own, and whether it is
// there and not null.
func (f fields) sub(key string) (fields, bool, error) {
	v, ok := f.get(key)
	if !ok {
		return fields{}, false, nil
	}
	if v.Kind() != jsonin.Object {
		return fields{}, false, fmt.Errorf("%s is not a JSON object", key)
	}
	return fields{v}, true, nil
}

func (f fields) event(m *Meta, want ...string) error {
	if w, ok := f.literal("hook_event_name", want); ok {
		m.Event = w
		return nil
	}
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

// literal returns the one of names that a string field holds written
// without escapes, so that reading a known name costs no copy; false when
// it holds none of them so written (str then reads it in full).
func (f fields) literal(key string, names []string) (string, bool) {
	v, ok := f.get(key)
	if !ok || v.Kind() != jsonin.String {
		return "", false
	}
	raw := v.Raw()
	if len(raw) < 2 {
		return "", false
	}
	raw = raw[1 : len(raw)-1]
	for _, n := range names {
		if string(raw) == n {
			return n, true
		}
	}
	return "", false
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
