// Package wire reads the request objects of toolgate's JSON contract (SPEC
// §1 and §10): one call as `toolgate check` reads it from a JSON Lines line
// and as `toolgate serve` reads it from a /v1/decide body. Both read it
// here, so that what a request may say cannot differ between them.
//
// A request is validated strictly: invalid UTF-8, a lone surrogate or a
// duplicate key anywhere make it malformed, and an unknown field is an
// error, so that a misspelt "mode" cannot silently loosen a check. A
// malformed request is for the caller to answer with an invalid decision,
// which is a deny.
package wire

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/jsonin"
)

// Defaults fill the fields a request leaves out.
type Defaults struct {
	Cwd, Home string
	Mode      *toolgate.Mode
}

// RequestError is a malformed request.
type RequestError struct {
	// Msg says what is wrong, naming the field.
	Msg string
}

func (e *RequestError) Error() string { return e.Msg }

func badRequest(format string, args ...any) *RequestError {
	return &RequestError{Msg: fmt.Sprintf(format, args...)}
}

// ParseRequest reads one request object: the fields tool, input, cwd,
// home, read_only, agent, session, server and mode. The returned call
// refers into data, which must not change while it is used.
func ParseRequest(data []byte, def Defaults) (toolgate.Call, *RequestError) {
	doc, err := jsonin.Parse(data)
	if err != nil {
		return toolgate.Call{Cwd: def.Cwd, Home: def.Home, Mode: def.Mode}, badRequest("request is not valid JSON: %v", err)
	}
	return RequestFromValue(doc.Root(), def)
}

// RequestFromValue is ParseRequest of an already parsed value (an element
// of a batch), for callers inside this module.
func RequestFromValue(root jsonin.Value, def Defaults) (toolgate.Call, *RequestError) {
	call := toolgate.Call{Cwd: def.Cwd, Home: def.Home, Mode: def.Mode}
	if root.Kind() != jsonin.Object {
		return call, badRequest("request must be a JSON object, not %s", root.Kind())
	}
	var rerr *RequestError
	str := func(key string, v jsonin.Value, dst *string) {
		switch v.Kind() {
		case jsonin.Null:
		case jsonin.String:
			*dst, _ = v.Str()
		default:
			rerr = badRequest("request field %q must be a string, not %s", key, v.Kind())
		}
	}
	hasTool := false
	root.Members(func(key string, v jsonin.Value) bool {
		switch key {
		case "tool":
			hasTool = true
			if v.Kind() != jsonin.String {
				rerr = badRequest("request field \"tool\" must be a string, not %s", v.Kind())
				break
			}
			call.Tool, _ = v.Str()
		case "input":
			if v.Kind() != jsonin.Null {
				call.Input = json.RawMessage(v.Raw())
			}
		case "cwd":
			str(key, v, &call.Cwd)
			if call.Cwd == "" {
				call.Cwd = def.Cwd
			}
		case "home":
			str(key, v, &call.Home)
			if call.Home == "" {
				call.Home = def.Home
			}
		case "agent":
			str(key, v, &call.Agent)
		case "session":
			str(key, v, &call.Session)
		case "server":
			str(key, v, &call.Server)
		case "read_only":
			switch v.Kind() {
			case jsonin.Null:
			case jsonin.Bool:
				// The hint may only make a call stricter.
				if v.Text() == "false" {
					call.NotReadOnly = true
				}
			default:
				rerr = badRequest("request field \"read_only\" must be a boolean, not %s", v.Kind())
			}
		case "mode":
			var text string
			switch v.Kind() {
			case jsonin.Null:
				return true
			case jsonin.String:
				text, _ = v.Str()
			case jsonin.Object:
				text = string(v.Raw())
			default:
				rerr = badRequest("request field \"mode\" must be a mode name or a plan object, not %s", v.Kind())
				return false
			}
			var m toolgate.Mode
			err := m.UnmarshalText([]byte(text))
			if err != nil {
				rerr = badRequest("request field \"mode\": %v", err)
				break
			}
			call.Mode = &m
		default:
			rerr = badRequest("unknown request field %q (want tool, input, cwd, home, read_only, agent, session, server or mode)", key)
		}
		return rerr == nil
	})
	if rerr != nil {
		return call, rerr
	}
	if !hasTool {
		return call, badRequest("request has no \"tool\"")
	}
	return call, nil
}
