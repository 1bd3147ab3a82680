package mcpgate

// This file is the proxy's only contact with the policy engine (package
// toolgate) and the audit event type: every call into the engine, every
// engine type the proxy reads, and the building of audit events. The rest
// of the package works with verdict, so a change of the engine's API is
// a change of this file.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
)

// Engine is the policy engine the proxy asks; see [toolgate.NewEngine].
type Engine = toolgate.Engine

// outcome is what the proxy does with a call. The zero value is deny.
type outcome uint8

const (
	outDeny outcome = iota
	outAllow
	outAsk
	outModify
)

func (o outcome) String() string {
	return [...]string{"deny", "allow", "ask", "modify"}[o]
}

// verdict is the engine's decision on one call, as the proxy uses it.
type verdict struct {
	outcome outcome
	// input is the rewritten input (modify, or ask with a rewrite).
	input json.RawMessage
	// prompt says what will happen (ask).
	prompt string
	// byRule reports whether the deciding reason is an allow rule a
	// person wrote (a file rule or a session rule), not a default or a mode.
	byRule bool

	call toolgate.Call
	d    toolgate.Decision
	eval time.Duration
}

// reason renders the deciding reason and the ones after it for the model
// and the person: rule, layer and file:line:col.
func (v verdict) reason() string {
	if len(v.d.Reasons) == 0 {
		return "no reason given (denied)"
	}
	var b strings.Builder
	for i, r := range v.d.Reasons {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(v.d.Reasons)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// policy wraps the engine with the calls' context.
type policy struct {
	e         *toolgate.Engine
	cwd, home string
}

// decide asks the engine about a call of an MCP tool. A panic is a deny.
func (p *policy) decide(tool, server string, input json.RawMessage, notReadOnly bool) verdict {
	return p.decideCall(toolgate.Call{Tool: tool, Server: server, Input: input, NotReadOnly: notReadOnly})
}

// decideRead asks the engine about reading a file (resources/read of a
// file: URI): a Read-kind call of path.
func (p *policy) decideRead(server, path string) verdict {
	in, _ := json.Marshal(map[string]string{"file_path": path})
	return p.decideCall(toolgate.Call{Tool: "Read", Server: server, Input: in})
}

func (p *policy) decideCall(c toolgate.Call) (v verdict) {
	c.Cwd, c.Home = p.cwd, p.home
	v.call = c
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			v = verdict{call: c, d: toolgate.Denial(toolgate.KindError, fmt.Sprintf("the policy engine failed: %v", r))}
		}
		v.eval = time.Since(start)
	}()
	if p == nil || p.e == nil {
		v.d = toolgate.Denial(toolgate.KindError, "no policy engine")
		return v
	}
	v.d = p.e.Decide(c)
	switch v.d.Outcome {
	case toolgate.Allow:
		v.outcome = outAllow
	case toolgate.Ask:
		v.outcome = outAsk
		v.prompt = v.d.Prompt
		v.input = v.d.Input
	case toolgate.Modify:
		v.outcome = outModify
		v.input = v.d.Input
		if len(v.input) == 0 {
			v.outcome = outDeny
			v.d = toolgate.Denial(toolgate.KindError, "the engine rewrote the call without giving the new input")
		}
	default:
		v.outcome = outDeny
	}
	if r := v.d.Reason(); r.Kind == toolgate.KindRule || r.Kind == toolgate.KindSession {
		v.byRule = r.Effect == "allow" || r.Effect == "ask" || r.Effect == "rewrite"
	}
	return v
}

// passed is the verdict recorded for a request the proxy passes through
// without a policy decision (prompts/get): an allow by the proxy itself.
func (p *policy) passed(tool, server string, input json.RawMessage) verdict {
	c := toolgate.Call{Tool: tool, Server: server, Input: input, Cwd: p.cwd, Home: p.home}
	return verdict{outcome: outAllow, call: c, d: toolgate.Decision{Outcome: toolgate.Allow,
		Reasons: []toolgate.Reason{{Kind: toolgate.KindHook, Message: "passed through: the proxy does not gate prompts"}}}}
}

// deny turns v into a denial whose deciding reason is message (kind
// "error" when internal, otherwise "hook": the proxy is a host checker);
// the engine's reasons follow.
func (v verdict) deny(internal bool, message string) verdict {
	kind := toolgate.KindHook
	if internal {
		kind = toolgate.KindError
	}
	v.outcome = outDeny
	d := v.d
	d.Outcome = toolgate.Deny
	d.Input, d.Prompt, d.Suggestions = nil, "", nil
	d.Reasons = append([]toolgate.Reason{{Kind: kind, Message: message}}, v.d.Reasons...)
	v.d = d
	return v
}

// ask turns an allow into an ask whose deciding reason is message.
func (v verdict) ask(message string) verdict {
	v.outcome = outAsk
	d := v.d
	d.Outcome = toolgate.Ask
	d.Reasons = append([]toolgate.Reason{{Kind: toolgate.KindHook, Message: message}}, v.d.Reasons...)
	if d.Prompt == "" {
		d.Prompt = message
	}
	v.prompt = d.Prompt
	v.d = d
	return v
}

// approved records that a person approved an ask: the call runs (with the
// rewritten input, if the ask carried one).
func (v verdict) approved() verdict {
	v.d.Reasons = append([]toolgate.Reason{{Kind: toolgate.KindHook, Message: "approved by the person through the MCP client"}}, v.d.Reasons...)
	if len(v.input) > 0 {
		v.outcome = outModify
		v.d.Outcome = toolgate.Modify
	} else {
		v.outcome = outAllow
		v.d.Outcome = toolgate.Allow
	}
	return v
}

// visible reports whether the policy shows a tool to the model. A panic
// hides it.
func (p *policy) visible(tool string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return p != nil && p.e != nil && p.e.ExposeToModel(tool)
}

// revision identifies the policy in force ("" if unknown).
func (p *policy) revision() (rev string) {
	defer func() {
		if recover() != nil {
			rev = ""
		}
	}()
	if p == nil || p.e == nil {
		return ""
	}
	return p.e.Config().Revision()
}

// record writes v to the audit sink. asked says whether a person was (or
// would have been) asked; session is the downstream session id; latency
// is the whole time the proxy spent on the call, upstream included.
func record(ctx context.Context, sink audit.Sink, v verdict, revision, session string, asked bool, latency time.Duration) error {
	if sink == nil {
		return nil
	}
	c := v.call
	c.Session = session
	ev := audit.NewEvent(c, v.d, v.eval, revision, nil)
	ev.Asked = asked
	if ev.Outcome == toolgate.Ask {
		// Not resolved by a person: the call did not run.
		ev.Outcome = toolgate.Deny
	}
	ev.Latency = latency
	return sink.Record(ctx, ev)
}
