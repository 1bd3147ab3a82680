package bench

// This file holds every use of toolgate's API, so that a change of that API
// is a change of this file only.

import (
	"encoding/json"

	"github.com/toolgate/toolgate"
)

// toolgateEngine is a compiled toolgate configuration behind an Engine, as
// a host holds it.
type toolgateEngine struct {
	e *toolgate.Engine
}

// toolgateHome is the home directory of every call.
const toolgateHome = "/home/u"

// NewToolgate compiles the policy as one project layer whose default is ask,
// for read-only calls too (so that a read-only command such as git diff is
// allowed by its rule, as in the other engines, not by the default).
func NewToolgate(p *Policy) (Engine, error) {
	cfg, err := compileToolgate(p)
	if err != nil {
		return nil, err
	}
	return &toolgateEngine{e: toolgate.NewEngine(cfg)}, nil
}

func compileToolgate(p *Policy) (*toolgate.Policy, error) {
	l := toolgate.Layer{Source: toolgate.SourceProject, File: p.Cwd + "/.toolgate/policy.yaml", Root: p.Cwd}
	ask := toolgate.Ask
	l.Default, l.DefaultReadOnly = &ask, &ask
	for i, r := range p.Rules {
		spec := toolgate.RuleSpec{Text: r.Text(), Pos: toolgate.Position{File: l.File, Line: i + 1, Column: 5}}
		switch r.Effect {
		case Deny:
			l.Deny = append(l.Deny, spec)
		case Allow:
			l.Allow = append(l.Allow, spec)
		default:
			l.Ask = append(l.Ask, spec)
		}
	}
	return toolgate.Compile([]toolgate.Layer{l}, nil)
}

// toolgateCall is the part of a hook payload toolgate reads. The tool input
// stays raw: toolgate decodes and validates it itself.
type toolgateCall struct {
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
	Cwd       string          `json:"cwd"`
}

// Decide decodes the payload and decides the call.
func (t *toolgateEngine) Decide(payload []byte) Effect {
	var c toolgateCall
	if err := json.Unmarshal(payload, &c); err != nil {
		return Deny
	}
	d := t.e.Decide(toolgate.Call{Tool: c.ToolName, Input: c.ToolInput, Cwd: c.Cwd, Home: toolgateHome})
	switch d.Outcome {
	case toolgate.Allow:
		return Allow
	case toolgate.Ask:
		return Ask
	}
	return Deny
}
