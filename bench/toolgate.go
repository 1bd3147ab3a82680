package bench

// This file holds every use of toolgate's API, so that a change of that API
// is a change of this file only.

import (
	"sync"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/jsonin"
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

// Decide reads the payload as toolgate's own front ends read a request
// (wire.ParseRequest): one strict pass of jsonin over the bytes, which
// refuses invalid UTF-8, duplicate keys and trailing data as well as
// malformed JSON; tool_input is handed to toolgate as the slice of the
// payload that holds it, which toolgate reads and validates itself. A
// payload that is not such an object, or whose tool_name or cwd is not a
// string, is denied.
func (t *toolgateEngine) Decide(payload []byte) Effect {
	doc := docs.Get().(*jsonin.Doc)
	defer func() {
		doc.Reset() // keep no reference to the payload
		docs.Put(doc)
	}()
	if doc.Parse(payload) != nil {
		return Deny
	}
	root := doc.Root()
	if root.Kind() != jsonin.Object {
		return Deny
	}
	call := toolgate.Call{Home: toolgateHome}
	var ok bool
	if call.Tool, ok = optString(root.Get("tool_name")); !ok {
		return Deny
	}
	if call.Cwd, ok = optString(root.Get("cwd")); !ok {
		return Deny
	}
	call.Input = root.Get("tool_input").Raw()
	d := t.e.Decide(call)
	switch d.Outcome {
	case toolgate.Allow:
		return Allow
	case toolgate.Ask:
		return Ask
	}
	return Deny
}

// docs holds parsed payloads' tapes for reuse, as a host deciding calls
// on many goroutines keeps them (a small payload's tape lives in the Doc).
var docs = sync.Pool{New: func() any { return new(jsonin.Doc) }}

// optString returns a string member's text: "" for a missing or null one,
// false for one of another kind.
func optString(v jsonin.Value) (string, bool) {
	switch v.Kind() {
	case jsonin.Null:
		return "", true
	case jsonin.String:
		return v.Str()
	}
	return "", false
}
