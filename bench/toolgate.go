package bench

// This file holds every use of toolgate's API, so that a change of that API
// is a change of this file only.

import (
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/hook"
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

// Decide reads the payload as a Claude Code hook host does, with
// hook.Decode, toolgate's public reader of hook payloads: one strict pass
// that refuses malformed JSON, invalid UTF-8, duplicate keys, trailing
// data, a missing or mistyped field and an event other than PreToolUse.
// Anything it refuses is denied.
func (t *toolgateEngine) Decide(payload []byte) Effect {
	call, _, err := hook.Decode(hook.Claude, payload)
	if err != nil {
		return Deny
	}
	call.Home = toolgateHome
	d := t.e.Decide(call)
	switch d.Outcome {
	case toolgate.Allow:
		return Allow
	case toolgate.Ask:
		return Ask
	}
	return Deny
}
