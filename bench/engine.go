package bench

import (
	"encoding/json"
	"fmt"
)

// Engine decides calls handed over as hook payloads.
type Engine interface {
	// Decide returns the list that decided the call: Deny, Allow or Ask
	// (no rule matched: the default). Any error is Deny.
	Decide(payload []byte) Effect
}

// Builder builds one engine from a policy.
type Builder struct {
	Name  string
	Build func(*Policy) (Engine, error)
}

// Engines are the engines compared, toolgate first.
var Engines = []Builder{
	{"toolgate", NewToolgate},
	{"cedar", NewCedar},
	{"opa", NewOPA},
	{"floor", NewFloor},
}

// Call is one benchmark or agreement call: a tool and its input.
type Call struct {
	Name  string
	Tool  string
	Input string // a JSON object
}

// Payload is the call as a Claude Code PreToolUse hook hands it over.
func (c Call) Payload() []byte {
	p := map[string]any{
		"session_id":      "s1",
		"hook_event_name": "PreToolUse",
		"tool_name":       c.Tool,
		"tool_input":      json.RawMessage(c.Input),
		"cwd":             Cwd,
		"permission_mode": "default",
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(fmt.Sprintf("call %s: %v", c.Name, err))
	}
	return b
}

// Bash is a Bash call of the command.
func Bash(name, command string) Call {
	return Call{Name: name, Tool: "Bash", Input: jsonObject("command", command)}
}

// FileCall is a Read or Edit call of the path.
func FileCall(name, tool, path string) Call {
	in := jsonObject("file_path", path)
	if tool == "Edit" {
		in = in[:len(in)-1] + `,"old_string":"a","new_string":"b"}`
	}
	return Call{Name: name, Tool: tool, Input: in}
}

func jsonObject(key, value string) string {
	b, err := json.Marshal(map[string]string{key: value})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// BenchCalls are the measured calls. Every engine allows each of them by
// a base rule, at every policy size and shape, so a decision has to get past
// every deny rule.
var BenchCalls = []Call{
	Bash("BashSimple", "git diff --stat HEAD~1"),
	Bash("BashCompound", "cargo build --release && npm run test -- --ci && git diff --stat HEAD~1"),
	FileCall("Read", "Read", Cwd+"/src/engine/decide.go"),
	FileCall("Edit", "Edit", Cwd+"/src/engine/decide.go"),
	{Name: "MCP", Tool: "mcp__github__get_issue", Input: `{"owner":"o","repo":"r","number":12}`},
}

// hostCall is the part of a payload the peers read: they decode the JSON
// into the fields their policies use.
type hostCall struct {
	ToolName  string `json:"tool_name"`
	ToolInput struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
	} `json:"tool_input"`
	Cwd string `json:"cwd"`
}
