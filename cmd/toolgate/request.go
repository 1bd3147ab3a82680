package main

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/jsonin"
)

// defaults fill the fields a request leaves out: --cwd, --home and --mode,
// else the process's own.
type defaults struct {
	cwd, home string
	mode      *toolgate.Mode
}

// requestError is a malformed request line; it becomes an invalid deny.
type requestError struct{ msg string }

func (e *requestError) Error() string { return e.msg }

func badRequest(format string, args ...any) *requestError {
	return &requestError{msg: fmt.Sprintf(format, args...)}
}

// parseRequest reads one JSON Lines request (SPEC §1, §10): an object with
// the fields tool, input, cwd, home, read_only, agent, session, server and
// mode. The line is validated strictly (invalid UTF-8, a lone surrogate or a
// duplicate key anywhere make it malformed), and an unknown field is an
// error, so that a misspelt "mode" cannot silently loosen a check. The
// returned call refers into line, which must not change while it is used.
func parseRequest(line []byte, def defaults) (toolgate.Call, *requestError) {
	call := toolgate.Call{Cwd: def.cwd, Home: def.home, Mode: def.mode}
	doc, err := jsonin.Parse(line)
	if err != nil {
		return call, badRequest("request is not valid JSON: %v", err)
	}
	root := doc.Root()
	if root.Kind() != jsonin.Object {
		return call, badRequest("request must be a JSON object, not %s", root.Kind())
	}
	var rerr *requestError
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
				call.Cwd = def.cwd
			}
		case "home":
			str(key, v, &call.Home)
			if call.Home == "" {
				call.Home = def.home
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
			m, err := toolgate.ParseMode(text)
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
