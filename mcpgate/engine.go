package mcpgate

// This file is the proxy's only contact with the policy engine (package
// toolgate) and the audit event type: every call into the engine, every
// engine type the proxy reads, and the building of audit events. The rest
// of the package works with verdict, so a change of the engine's API is
// a change of this file.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
)

// Engine is the policy engine the proxy asks; see [toolgate.NewEngine].
type Engine = toolgate.Engine

// Checker decides calls in place of an in-process [Engine]
// (Options.Checker): a remote decision service's client, for one. It must
// be safe for concurrent use, and fail closed: an error is a deny.
type Checker = toolgate.Checker

// ToolVisibility is implemented by a [Checker] that can say for a whole
// listing at once which tools the model is shown (a remote decision
// service answers in one request). The proxy asks it each time it filters
// a server's tools. A tool the answer leaves out, or every tool when the
// error is not nil, is hidden (fail closed). Visibility is no
// authorisation: each call of a listed tool is still decided by the
// Checker.
//
// A Checker that implements [toolgate.Visibility] instead is asked
// ExposeToModel tool by tool; one that implements neither shows every tool.
type ToolVisibility interface {
	ExposedTools(ctx context.Context, tools []string) (map[string]bool, error)
}

// SessionToolVisibility is implemented by a [Checker] that keeps rules per
// session (a decision service's session rules) and can say which tools one
// session's model is shown, counting that session's own rules as its
// decisions do. With it the proxy lists per session: every tool that pins
// and names allow is registered, each session's tools/list shows what the
// Checker shows that session, and a call of a tool the session is not
// shown is the JSON-RPC "hidden" error. A session rule that allows a tool
// the policy hides thus shows it to that session only. When the Checker
// cannot answer, the session is shown no tool (fail closed), and is told
// the list changed once the answer does. It takes the place of
// [ToolVisibility], which a Checker may implement as well.
type SessionToolVisibility interface {
	SessionExposedTools(ctx context.Context, session string, tools []string) (map[string]bool, error)
}

// ApprovalWaiter is implemented by a [Checker] whose asks become durable
// approvals that a person answers out of band (a toolgate decision
// service). When the Checker asks about a call, the proxy calls
// AwaitApproval before it asks the client's user: it decides the call
// again and, while it is an ask with an approval, waits (within the
// Checker's own bound) for a person to answer. It returns the decision
// then: an allow or a modify once approved, a deny when denied or expired,
// and an ask when nobody answered in time, with pending saying how a
// person approves it ("approval pending: ID — approve it at URL, then
// retry the call"). ctx ends with the tool call.
type ApprovalWaiter interface {
	AwaitApproval(ctx context.Context, c toolgate.Call) (d toolgate.Decision, pending string)
}

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
	// policyAsk reports that the ask is the policy's own (not one the
	// proxy made of an allow); pending says how a person answers it out of
	// band, when the Checker keeps it as an approval.
	policyAsk bool
	pending   string

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

// policy wraps the engine, or the checker, with the calls' context.
type policy struct {
	e         *toolgate.Engine
	chk       toolgate.Checker // when e is nil
	cwd, home string
	// session is the session id sent to chk with the calls of a
	// downstream session that has none of its own (stdio): one per proxy.
	session string
}

// newSessionID is a random session id for a proxy's calls to a checker.
func newSessionID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "mcp-" + hex.EncodeToString(b)
}

// decide asks the engine about a call of an MCP tool made in the
// downstream session. A panic is a deny.
func (p *policy) decide(tool, server, session string, input json.RawMessage, notReadOnly bool) verdict {
	return p.decideCall(toolgate.Call{Tool: tool, Server: server, Input: input, NotReadOnly: notReadOnly}, session)
}

// decideRead asks the engine about reading a file (resources/read of a
// file: URI): a Read-kind call of path.
func (p *policy) decideRead(server, session, path string) verdict {
	in, _ := json.Marshal(map[string]string{"file_path": path})
	return p.decideCall(toolgate.Call{Tool: "Read", Server: server, Input: in}, session)
}

// decideCall decides c. A checker (not the in-process engine, which has
// no use for it) is told the session, so that a decision service can keep
// session rules and approvals per session.
func (p *policy) decideCall(c toolgate.Call, session string) (v verdict) {
	c.Cwd, c.Home = p.cwd, p.home
	if p.e == nil && p.chk != nil {
		c.Session = session
		if c.Session == "" {
			c.Session = p.session
		}
	}
	v.call = c
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			v = verdict{call: c, d: toolgate.Denial(toolgate.KindError, fmt.Sprintf("the policy engine failed: %v", r))}
		}
		v.eval = time.Since(start)
	}()
	switch {
	case p.e != nil:
		v.set(p.e.Decide(c))
	case p.chk != nil:
		v.set(p.chk.Decide(c))
	default:
		v.d = toolgate.Denial(toolgate.KindError, "no policy engine")
	}
	return v
}

// set makes d the verdict's decision.
func (v *verdict) set(d toolgate.Decision) {
	v.d = d
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
	v.policyAsk = v.outcome == outAsk
	if r := v.d.Reason(); r.Kind == toolgate.KindRule || r.Kind == toolgate.KindSession {
		v.byRule = r.Effect == "allow" || r.Effect == "ask" || r.Effect == "rewrite"
	}
}

// await lets a person answer the policy's own ask v out of band, when the
// checker keeps its asks as approvals ([ApprovalWaiter]); the verdict is
// then the checker's decision after the wait. Any other verdict is
// returned as it is. A panic is a deny.
func (p *policy) await(ctx context.Context, v verdict) (out verdict) {
	w, ok := p.chk.(ApprovalWaiter)
	if p.e != nil || !ok || !v.policyAsk {
		return v
	}
	out = verdict{call: v.call, eval: v.eval}
	defer func() {
		if r := recover(); r != nil {
			out = verdict{call: v.call, eval: v.eval, d: toolgate.Denial(toolgate.KindError, fmt.Sprintf("waiting for an approval failed: %v", r))}
		}
	}()
	d, pending := w.AwaitApproval(ctx, v.call)
	out.set(d)
	if out.outcome == outAsk {
		out.pending = pending
	}
	return out
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

// visibility returns what the policy shows of a listing of tools (their
// rule names): the engine's ExposeToModel, or the checker's answer (see
// [ToolVisibility]). When the checker cannot answer, the error says why
// and no tool is listed (fail closed: the listing is filtered again once
// the checker answers); a tool missing from its answer, or a panic, hides
// the tool. A checker with no visibility at all hides nothing: every call
// is still its to decide.
func (p *policy) visibility(ctx context.Context, tools []string) (func(string) bool, error) {
	if p.e != nil || p.chk == nil {
		return p.visible, nil
	}
	switch v := p.chk.(type) {
	case SessionToolVisibility:
		// Filtered per session (sessions.go), not here.
		return func(string) bool { return true }, nil
	case ToolVisibility:
		shown, err := func() (m map[string]bool, err error) {
			defer func() {
				if r := recover(); r != nil {
					m, err = map[string]bool{}, nil
					for _, t := range tools {
						m[t] = false
					}
				}
			}()
			return v.ExposedTools(ctx, tools)
		}()
		if err != nil {
			return func(string) bool { return false }, err
		}
		return func(tool string) bool { return shown[tool] }, nil
	case toolgate.Visibility:
		return func(tool string) (ok bool) {
			defer func() {
				if recover() != nil {
					ok = false
				}
			}()
			return v.ExposeToModel(tool)
		}, nil
	}
	return func(string) bool { return true }, nil
}

// perSession reports whether the checker says per session which tools
// are shown ([SessionToolVisibility]).
func (p *policy) perSession() bool {
	_, ok := p.chk.(SessionToolVisibility)
	return p.e == nil && ok
}

// sessionShown asks the checker which of tools (rule names) it shows the
// downstream session (its id, or the proxy's own for a session without
// one). An error, or a panic, hides them all.
func (p *policy) sessionShown(ctx context.Context, session string, tools []string) (shown map[string]bool, err error) {
	v, ok := p.chk.(SessionToolVisibility)
	if p.e != nil || !ok {
		return nil, errors.New("the policy does not answer per session")
	}
	if session == "" {
		session = p.session
	}
	defer func() {
		if r := recover(); r != nil {
			shown, err = nil, fmt.Errorf("the checker failed: %v", r)
		}
	}()
	shown, err = v.SessionExposedTools(ctx, session, tools)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(tools))
	for _, t := range tools {
		out[t] = shown[t] // a tool the answer leaves out is hidden
	}
	return out, nil
}

// revision identifies the policy in force ("" if unknown).
func (p *policy) revision() (rev string) {
	defer func() {
		if recover() != nil {
			rev = ""
		}
	}()
	switch {
	case p == nil:
		return ""
	case p.e != nil:
		return p.e.Policy().Revision()
	}
	if r, ok := p.chk.(interface{ Revision() string }); ok {
		return r.Revision()
	}
	return ""
}

// record writes v to the audit sink. asked says whether a person was (or
// would have been) asked; session is the downstream session id; latency
// is the whole time the proxy spent on the call, upstream included.
func record(ctx context.Context, sink audit.Sink, v verdict, revision, session string, asked bool, latency time.Duration) error {
	if sink == nil {
		return nil
	}
	c := v.call
	if c.Session == "" {
		c.Session = session
	}
	ev := audit.NewEvent(c, v.d, v.eval, revision, nil)
	ev.Asked = asked
	if ev.Outcome == toolgate.Ask {
		// Not resolved by a person: the call did not run.
		ev.Outcome = toolgate.Deny
	}
	ev.Latency = latency
	return sink.Record(ctx, ev)
}
