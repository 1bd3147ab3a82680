package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/internal/jsondoc"
)

// DefaultApprovalTimeout is how long the gate waits for an approver when
// [Options.ApprovalTimeout] is not set.
const DefaultApprovalTimeout = 5 * time.Minute

// DefaultAuditTimeout bounds one Record call when [Options.AuditTimeout] is
// not set.
const DefaultAuditTimeout = 10 * time.Second

// maxRewrites bounds a chain of rewrites of rewrites.
const maxRewrites = 8

// CheckFunc is a host's own check. It may return any of the four outcomes;
// the stricter of its decision and the policy's wins, so returning Allow
// abstains. A Modify carries the rewritten input in Decision.Input and goes
// through the same schema validation and re-check as the policy's. An error
// or a panic denies the call. A decision without reasons gets one of kind
// "hook".
type CheckFunc func(ctx context.Context, c toolgate.Call) (toolgate.Decision, error)

// Options configure a [Gate]. The zero value is ready to use: nobody can be
// asked (ask → deny), no custom checks, no auditing.
type Options struct {
	// Approver is asked when a decision is Ask. Nil: every ask is denied.
	Approver Approver
	// ApprovalTimeout bounds the wait for the approver. Zero or negative:
	// DefaultApprovalTimeout. There is always a deadline.
	ApprovalTimeout time.Duration
	// SessionRules receives "always allow" rules from approvals. Nil: such
	// approvals allow the one call only.
	SessionRules SessionRules

	// Before run, in order, before the policy; After run after it. The
	// stricter decision wins; on a tie the earlier one's reasons are kept.
	// A deny stops the chain.
	Before, After []CheckFunc

	// Visibility filters the tools the model is shown ([Gate.Tools]) and
	// may call. Nil: every registered tool.
	Visibility toolgate.Visibility

	// Sink, if set, receives an event for every decision the gate resolves.
	Sink audit.Sink
	// Redactor masks secrets in the input copy stored in events. Nil:
	// audit.DefaultRedactor.
	Redactor audit.Redactor
	// Revision identifies the policy in events (e.g. a hash of the loaded
	// configuration).
	Revision string
	// BlockOnAuditError denies a call whose event could not be recorded.
	// Default (false): the failure is reported to OnAuditError and the call
	// goes on as decided. Either way a failing sink never turns a deny into
	// an allow.
	BlockOnAuditError bool
	// AuditTimeout bounds one Record. Zero or negative: DefaultAuditTimeout.
	AuditTimeout time.Duration
	// OnAuditError, if set, is told about every failed Record.
	OnAuditError func(e *audit.Event, err error)
}

// Gate resolves decisions into actions before tools run (SPEC §8): allow
// runs the tool; deny returns a [*PermissionError]; ask consults the
// [Approver]; modify validates the rewritten input against the tool's
// schema, checks it again and runs the tool with it. Every error, panic,
// timeout or missing approver ends in deny.
//
// A Gate is safe for concurrent use.
type Gate struct {
	checker  toolgate.Checker
	reg      *Registry
	opts     Options
	timeout  time.Duration
	auditTO  time.Duration
	agent    string            // forced onto calls by a sub-agent gate
	visible  func(string) bool // nil: every tool
	noChecks bool              // no Before/After: fast path
	redactor audit.Redactor
}

// New returns a gate deciding calls with checker and running tools from reg.
// A nil checker denies every call; a nil registry knows no tools. opts may
// be nil.
func New(checker toolgate.Checker, reg *Registry, opts *Options) *Gate {
	g := &Gate{checker: checker, reg: reg}
	if opts != nil {
		g.opts = *opts
		g.opts.Before = append([]CheckFunc(nil), opts.Before...)
		g.opts.After = append([]CheckFunc(nil), opts.After...)
	}
	if reg == nil {
		g.reg = &Registry{}
	}
	g.timeout = g.opts.ApprovalTimeout
	if g.timeout <= 0 {
		g.timeout = DefaultApprovalTimeout
	}
	g.auditTO = g.opts.AuditTimeout
	if g.auditTO <= 0 {
		g.auditTO = DefaultAuditTimeout
	}
	g.noChecks = len(g.opts.Before) == 0 && len(g.opts.After) == 0
	g.redactor = g.opts.Redactor
	if g.redactor == nil {
		g.redactor = audit.DefaultRedactor
	}
	if v := g.opts.Visibility; v != nil {
		g.visible = v.ExposeToModel
	}
	return g
}

// Authorization is the gate's resolution of a permitted call.
type Authorization struct {
	// Decision is the final decision: Allow or Modify, with the reasons
	// (an approval's reason first when a person was asked).
	Decision toolgate.Decision
	// Input is the input to run the tool with: the original, or the
	// validated rewrite.
	Input json.RawMessage
	// Asked reports whether a person approved the call.
	Asked bool
}

// Wrap returns a Handler that runs next only for permitted calls, with the
// input the gate settled on. Wrap is a [Middleware].
func (g *Gate) Wrap(next Handler) Handler {
	return HandlerFunc(func(ctx context.Context, call *ToolCall) (Result, error) {
		_, a, err := g.authorize(ctx, call)
		if err != nil {
			return Result{}, err
		}
		return next.Call(ctx, g.settled(call, a))
	})
}

// settled returns the call to run: call itself when nothing changed, else
// a copy with the settled input (and, for a sub-agent gate, its name).
func (g *Gate) settled(call *ToolCall, a Authorization) *ToolCall {
	if a.Decision.Outcome == toolgate.Allow && g.agent == "" {
		return call
	}
	c := *call
	c.Input = a.Input
	if g.agent != "" {
		c.Context.Agent = g.agent
	}
	return &c
}

// Handler returns the Handler an agent loop calls: the gate wrapped around
// its registry. It behaves as g.Wrap(registry) but looks the tool up once.
func (g *Gate) Handler() Handler {
	return HandlerFunc(func(ctx context.Context, call *ToolCall) (Result, error) {
		ent, a, err := g.authorize(ctx, call)
		if err != nil {
			return Result{}, err
		}
		if ent.tool.Func == nil {
			return Result{}, fmt.Errorf("gate: tool %q has no implementation", call.Tool)
		}
		call = g.settled(call, a)
		return ent.tool.Func(ctx, call.Input, &call.Context)
	})
}

// Call checks call and, if it is permitted, runs the tool.
func (g *Gate) Call(ctx context.Context, call *ToolCall) (Result, error) {
	return g.Handler().Call(ctx, call)
}

// Tools returns what the model is shown: the registered tools it may see, in
// registration order.
func (g *Gate) Tools() []ToolSchema {
	var out []ToolSchema
	for _, e := range g.reg.entries() {
		if g.canSee(e.tool.Name) {
			out = append(out, e.tool.schemaOf())
		}
	}
	return out
}

func (g *Gate) canSee(tool string) bool {
	if g.visible == nil {
		return true
	}
	return g.visible(tool)
}

// Authorize resolves call without running it. It returns a
// [*NotFoundError] for an unknown (or hidden) tool, a [*PermissionError]
// for a call that must not run, and otherwise the input to run the tool
// with. Adapters that run tools themselves (hooks, proxies) use it.
func (g *Gate) Authorize(ctx context.Context, call *ToolCall) (Authorization, error) {
	_, a, err := g.authorize(ctx, call)
	return a, err
}

func (g *Gate) authorize(ctx context.Context, call *ToolCall) (*entry, Authorization, error) {
	if call == nil {
		return nil, Authorization{}, &PermissionError{Decision: toolgate.Denial(toolgate.KindInvalid, "no call")}
	}
	ent := g.reg.lookup(call.Tool)
	if ent == nil || !g.canSee(call.Tool) {
		return nil, Authorization{}, &NotFoundError{Tool: call.Tool}
	}
	auditing := g.opts.Sink != nil
	var start time.Time
	if auditing {
		start = time.Now()
	}

	tc := g.toCall(call)
	d := g.check(ctx, tc)
	input := call.Input
	if d.Outcome == toolgate.Modify || (d.Outcome == toolgate.Ask && d.Input != nil) {
		d, input = g.settleRewrite(ctx, ent, tc, d)
	}
	var evalTime time.Duration
	if auditing {
		evalTime = time.Since(start)
	}

	var cause error
	asked := false
	if d.Outcome == toolgate.Ask {
		asked = true
		d, cause = g.ask(ctx, call, d, input)
	}
	if !d.Allowed() {
		if d.Outcome != toolgate.Deny {
			d = withFirst(d, toolgate.Reason{Kind: toolgate.KindError, Message: "the decision has no outcome"})
		}
		d.Outcome = toolgate.Deny
	}

	if auditing {
		if err := g.record(ctx, call, start, evalTime, d, input, asked); err != nil && g.opts.BlockOnAuditError && d.Allowed() {
			d = withFirst(d, toolgate.Reason{Kind: toolgate.KindError, Message: "the call could not be recorded in the audit log"})
			d.Outcome = toolgate.Deny
			cause = fmt.Errorf("%w: %w", ErrAudit, err)
		}
	}

	if d.Outcome != toolgate.Allow && d.Outcome != toolgate.Modify {
		return nil, Authorization{}, &PermissionError{Tool: call.Tool, Decision: d, Err: cause}
	}
	return ent, Authorization{Decision: d, Input: input, Asked: asked}, nil
}

func (g *Gate) toCall(call *ToolCall) toolgate.Call {
	cc := &call.Context
	agent := cc.Agent
	if g.agent != "" {
		agent = g.agent
	}
	return toolgate.Call{
		Tool:           call.Tool,
		Input:          call.Input,
		Cwd:            cc.Cwd,
		Home:           cc.Home,
		Agent:          agent,
		Session:        cc.Session,
		Server:         cc.Server,
		Mode:           cc.Mode,
		NonInteractive: cc.NonInteractive,
	}
}

// withFirst returns d with r put before its reasons, without sharing d's
// slice.
func withFirst(d toolgate.Decision, r toolgate.Reason) toolgate.Decision {
	rs := make([]toolgate.Reason, 0, len(d.Reasons)+1)
	d.Reasons = append(append(rs, r), d.Reasons...)
	return d
}

func deny(kind toolgate.ReasonKind, msg string, then []toolgate.Reason) toolgate.Decision {
	d := toolgate.Denial(kind, msg)
	d.Reasons = append(d.Reasons, then...)
	return d
}

// check decides one call with the host's checks and the policy. A panic
// anywhere denies.
func (g *Gate) check(ctx context.Context, c toolgate.Call) (d toolgate.Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = toolgate.Denial(toolgate.KindError, fmt.Sprintf("internal error while checking: panic: %v", r))
		}
	}()
	if g.noChecks {
		return normalize(g.policy(c))
	}
	var acc toolgate.Decision
	first := true
	add := func(x toolgate.Decision) bool {
		x = normalize(x)
		if first {
			acc, first = x, false
		} else {
			acc = toolgate.Stricter(acc, x)
		}
		return acc.Outcome != toolgate.Deny
	}
	for _, f := range g.opts.Before {
		if !add(runCheck(ctx, f, c)) {
			return acc
		}
	}
	if !add(g.policy(c)) {
		return acc
	}
	for _, f := range g.opts.After {
		if !add(runCheck(ctx, f, c)) {
			return acc
		}
	}
	return acc
}

func (g *Gate) policy(c toolgate.Call) toolgate.Decision {
	if g.checker == nil {
		return toolgate.Denial(toolgate.KindError, "the gate has no policy")
	}
	return g.checker.Decide(c)
}

func runCheck(ctx context.Context, f CheckFunc, c toolgate.Call) toolgate.Decision {
	if f == nil {
		return toolgate.Denial(toolgate.KindError, "nil host check")
	}
	d, err := f(ctx, c)
	if err != nil {
		return toolgate.Denial(toolgate.KindHook, "host check failed: "+err.Error())
	}
	if len(d.Reasons) == 0 {
		d.Reasons = []toolgate.Reason{{Kind: toolgate.KindHook, Message: "host check: " + d.Outcome.Effective().String()}}
	}
	return d
}

// normalize turns an invalid outcome into a deny and gives a reasonless
// deny a reason.
func normalize(d toolgate.Decision) toolgate.Decision {
	switch d.Outcome {
	case toolgate.Allow, toolgate.Ask, toolgate.Modify:
		return d
	case toolgate.Deny:
		if len(d.Reasons) == 0 {
			d.Reasons = []toolgate.Reason{{Kind: toolgate.KindError, Message: "denied without a reason"}}
		}
		return d
	}
	d = withFirst(d, toolgate.Reason{Kind: toolgate.KindError, Message: "the checker returned no outcome"})
	d.Outcome = toolgate.Deny
	return d
}

// settleRewrite validates a rewritten input against the tool's schema and
// checks the rewritten call again, following rewrites of rewrites up to
// maxRewrites. It returns the final decision (Deny if any check denies or
// validation fails; Ask if any asks; else Modify, or Allow if nothing
// changed) and the input to run.
func (g *Gate) settleRewrite(ctx context.Context, ent *entry, tc toolgate.Call, d toolgate.Decision) (toolgate.Decision, json.RawMessage) {
	orig := tc.Input
	cur := orig
	asking := d.Outcome == toolgate.Ask
	last := d
	reasons := d.Reasons
	for i := 0; ; i++ {
		next := last.Input
		if len(next) == 0 {
			return deny(toolgate.KindError, "a rewrite carries no input", reasons), orig
		}
		if i >= maxRewrites {
			return deny(toolgate.KindError, fmt.Sprintf("rewrites did not settle after %d rounds", maxRewrites), reasons), orig
		}
		if err := ent.validate(next); err != nil {
			return deny(toolgate.KindInvalid, fmt.Sprintf("the rewritten input does not match the input schema of tool %q: %v", tc.Tool, err), reasons), orig
		}
		if jsondoc.Equal(next, cur) {
			break
		}
		tc.Input = next
		d2 := g.check(ctx, tc)
		if d2.Outcome == toolgate.Deny {
			return deny(d2.Reason().Kind, "the rewritten input is denied: "+reasonMessage(d2.Reason()), append(append([]toolgate.Reason(nil), d2.Reasons...), reasons...)), orig
		}
		cur = next
		if d2.Outcome == toolgate.Ask {
			asking = true
			last.Prompt, last.Suggestions = d2.Prompt, d2.Suggestions
			reasons = append(append([]toolgate.Reason(nil), d2.Reasons...), reasons...)
		}
		if (d2.Outcome == toolgate.Modify || d2.Outcome == toolgate.Ask) && d2.Input != nil && !jsondoc.Equal(d2.Input, cur) {
			last.Input = d2.Input
			continue
		}
		break
	}
	out := toolgate.Decision{Reasons: reasons, Prompt: last.Prompt, Suggestions: last.Suggestions}
	if d.Outcome == toolgate.Ask {
		out.Prompt, out.Suggestions = d.Prompt, d.Suggestions
		if last.Prompt != "" {
			out.Prompt, out.Suggestions = last.Prompt, last.Suggestions
		}
	}
	changed := !jsondoc.Equal(cur, orig)
	switch {
	case asking:
		out.Outcome = toolgate.Ask
	case changed:
		out.Outcome = toolgate.Modify
	default:
		out.Outcome = toolgate.Allow
	}
	if changed {
		out.Input = cur
		return out, cur
	}
	return out, orig
}

func reasonMessage(r toolgate.Reason) string {
	if r.Message != "" {
		return r.Message
	}
	return defaultMessage(r.Kind)
}

type approvalResult struct {
	a   Approval
	err error
}

// ask resolves an Ask decision through the approver. It returns an Allow or
// Modify decision when approved, and a Deny otherwise, with the cause.
func (g *Gate) ask(ctx context.Context, call *ToolCall, d toolgate.Decision, input json.RawMessage) (toolgate.Decision, error) {
	denyWith := func(kind toolgate.ReasonKind, msg string, cause error) (toolgate.Decision, error) {
		out := withFirst(d, toolgate.Reason{Kind: kind, Message: msg})
		out.Outcome = toolgate.Deny
		return out, cause
	}
	if call.Context.NonInteractive {
		return denyWith(toolgate.KindMode, "approval required, but nobody can be asked in a non-interactive context", ErrNonInteractive)
	}
	if g.opts.Approver == nil {
		return denyWith(toolgate.KindMode, "approval required, but no approver is configured", ErrNoApprover)
	}
	if err := ctx.Err(); err != nil {
		return denyWith(toolgate.KindError, "approval canceled: "+err.Error(), fmt.Errorf("%w: %w", ErrApprovalCanceled, err))
	}
	actx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	prompt := d.Prompt
	if prompt == "" {
		prompt = fmt.Sprintf("Allow %s with input %s?", call.Tool, input)
	}
	req := ApprovalRequest{
		Tool:        call.Tool,
		Input:       input,
		Prompt:      prompt,
		Suggestions: d.Suggestions,
		Decision:    d,
		Call:        call,
	}
	ch := make(chan approvalResult, 1) // buffered: a late answer never blocks the approver
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- approvalResult{err: fmt.Errorf("panic: %v", r)}
			}
		}()
		a, err := g.opts.Approver.Approve(actx, req)
		ch <- approvalResult{a, err}
	}()
	var res approvalResult
	select {
	case res = <-ch:
	case <-actx.Done():
	}
	switch {
	case ctx.Err() != nil:
		return denyWith(toolgate.KindError, "approval canceled: "+ctx.Err().Error(), fmt.Errorf("%w: %w", ErrApprovalCanceled, ctx.Err()))
	case actx.Err() != nil && (res == approvalResult{} || res.err != nil):
		return denyWith(toolgate.KindError, fmt.Sprintf("approval timed out after %v", g.timeout), ErrApprovalTimeout)
	}
	if res.err != nil {
		return denyWith(toolgate.KindError, "approver failed: "+res.err.Error(), fmt.Errorf("%w: %w", ErrApproverFailed, res.err))
	}
	if !res.a.Allow {
		msg := "the user rejected this call"
		if res.a.Message != "" {
			msg += ": " + res.a.Message
		}
		return denyWith(toolgate.KindHook, msg, ErrRejected)
	}

	out := d
	out.Outcome = toolgate.Allow
	if d.Input != nil {
		out.Outcome = toolgate.Modify
		out.Input = input
	}
	msg := "approved by the user"
	if res.a.AlwaysAllow && len(d.Suggestions) > 0 {
		if g.opts.SessionRules == nil {
			msg += "; no session rules could be added (none configured)"
		} else {
			for _, rule := range d.Suggestions {
				if err := addRule(g.opts.SessionRules, rule); err != nil {
					msg += fmt.Sprintf("; session rule %q not added: %v", rule, err)
				}
			}
		}
	}
	out = withFirst(out, toolgate.Reason{Kind: toolgate.KindHook, Message: msg})
	return out, nil
}

func addRule(s SessionRules, rule string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return s.AddSessionRule(toolgate.EffectAllow, rule)
}

// record sends an audit event. A panicking redactor or sink is an error.
func (g *Gate) record(ctx context.Context, call *ToolCall, start time.Time, eval time.Duration, d toolgate.Decision, input json.RawMessage, asked bool) (err error) {
	e := &audit.Event{
		ID:          audit.NewID(),
		Time:        start,
		Session:     call.Context.Session,
		Agent:       call.Context.Agent,
		Server:      call.Context.Server,
		Tool:        call.Tool,
		InputDigest: audit.Digest(call.Input),
		Input:       g.redact(call.Tool, call.Input),
		Outcome:     d.Outcome,
		Asked:       asked,
		Reasons:     d.Reasons,
		Revision:    g.opts.Revision,
		EvalTime:    eval,
	}
	if g.agent != "" {
		e.Agent = g.agent
	}
	if call.Context.Mode != nil {
		e.Mode = call.Context.Mode.String()
	}
	if d.Outcome == toolgate.Modify && !bytes.Equal(input, call.Input) {
		e.Rewritten = g.redact(call.Tool, input)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("audit sink panicked: %v", r)
		}
		if err != nil && g.opts.OnAuditError != nil {
			g.opts.OnAuditError(e, err)
		}
	}()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.auditTO)
	defer cancel()
	return g.opts.Sink.Record(rctx, e)
}

func (g *Gate) redact(tool string, in json.RawMessage) (out json.RawMessage) {
	placeholder := json.RawMessage(`"` + audit.Redacted + `"`)
	defer func() {
		if recover() != nil {
			out = placeholder
		}
	}()
	if len(in) == 0 {
		return nil
	}
	out = g.redactor(tool, in)
	if !json.Valid(out) {
		return placeholder
	}
	return out
}
