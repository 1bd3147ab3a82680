package gate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
)

// policyFunc is a fake engine.
type policyFunc func(c toolgate.Call) toolgate.Decision

func (f policyFunc) Decide(c toolgate.Call) toolgate.Decision { return f(c) }

func fixed(d toolgate.Decision) policyFunc {
	return func(toolgate.Call) toolgate.Decision { return d }
}

var (
	allow = toolgate.Decision{Outcome: toolgate.Allow, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Rule: "Echo", Effect: "allow"}}}
	ask   = toolgate.Decision{Outcome: toolgate.Ask, Prompt: "Run echo?", Suggestions: []string{"Echo(text:hi)"},
		Reasons: []toolgate.Reason{{Kind: toolgate.KindDefault, Message: "no rule matched"}}}
	denyRule = toolgate.Decision{Outcome: toolgate.Deny, Reasons: []toolgate.Reason{{
		Kind: toolgate.KindRule, Rule: "Echo(text:rm*)", Effect: "deny", Source: "project",
		File: "/p/.toolgate/policy.yaml", Line: 3, Column: 5, Part: "rm -rf /", Message: "removing files is not allowed",
	}}}
)

func modify(input string) toolgate.Decision {
	return toolgate.Decision{Outcome: toolgate.Modify, Input: json.RawMessage(input),
		Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Effect: "rewrite", Rule: "Echo"}}}
}

// echoTool records the inputs it ran with.
type echoTool struct {
	mu    sync.Mutex
	calls []string
}

func (e *echoTool) run(_ context.Context, in json.RawMessage, _ *CallContext) (Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, string(in))
	return Result{Content: "ran " + string(in)}, nil
}

func (e *echoTool) ran() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.calls...)
}

const echoSchema = `{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer"}},"required":["text"],"additionalProperties":false}`

func newRig(t *testing.T, p toolgate.Checker, opts *Options) (*Gate, *echoTool) {
	t.Helper()
	et := &echoTool{}
	reg, err := NewRegistry(
		Tool{Name: "Echo", Description: "echoes", InputSchema: json.RawMessage(echoSchema), Func: et.run},
		Tool{Name: "Other", Func: et.run},
	)
	if err != nil {
		t.Fatal(err)
	}
	return New(p, reg, opts), et
}

func echo(text string) *ToolCall {
	in, _ := json.Marshal(map[string]string{"text": text})
	return &ToolCall{Tool: "Echo", Input: in, Context: CallContext{Cwd: "/work", Session: "s1"}}
}

func approverOf(a Approval, err error) Approver {
	return ApproverFunc(func(context.Context, ApprovalRequest) (Approval, error) { return a, err })
}

func mustPermErr(t *testing.T, err error) *PermissionError {
	t.Helper()
	var pe *PermissionError
	if !errors.As(err, &pe) {
		t.Fatalf("want *PermissionError, got %T %v", err, err)
	}
	if pe.Decision.Outcome != toolgate.Deny {
		t.Errorf("permission error with outcome %v", pe.Decision.Outcome)
	}
	if len(pe.Decision.Reasons) == 0 {
		t.Errorf("permission error without reasons")
	}
	return pe
}

func TestAllowRunsTool(t *testing.T) {
	g, et := newRig(t, fixed(allow), nil)
	res, err := g.Call(t.Context(), echo("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != `ran {"text":"hi"}` {
		t.Errorf("result %q", res.Content)
	}
	if got := et.ran(); len(got) != 1 {
		t.Errorf("tool ran %d times", len(got))
	}
}

func TestCallMapsContext(t *testing.T) {
	var got toolgate.Call
	mode := toolgate.Mode{Name: toolgate.ModePlan}
	g, _ := newRig(t, policyFunc(func(c toolgate.Call) toolgate.Decision { got = c; return allow }), nil)
	call := echo("hi")
	call.Context = CallContext{Cwd: "/w", Home: "/h", Session: "S", Agent: "A", Server: "srv", Mode: &mode, NonInteractive: true}
	if _, err := g.Call(t.Context(), call); err != nil {
		t.Fatal(err)
	}
	want := toolgate.Call{Tool: "Echo", Input: call.Input, Cwd: "/w", Home: "/h", Session: "S", Agent: "A", Server: "srv", Mode: &mode, NonInteractive: true}
	if got.Tool != want.Tool || string(got.Input) != string(want.Input) || got.Cwd != want.Cwd || got.Home != want.Home ||
		got.Session != want.Session || got.Agent != want.Agent || got.Server != want.Server || got.Mode != want.Mode || !got.NonInteractive {
		t.Errorf("call %+v, want %+v", got, want)
	}
}

func TestDenyDoesNotRun(t *testing.T) {
	g, et := newRig(t, fixed(denyRule), nil)
	_, err := g.Call(t.Context(), echo("rm -rf /"))
	pe := mustPermErr(t, err)
	want := `permission denied for tool "Echo": removing files is not allowed on "rm -rf /" (deny rule "Echo(text:rm*)" from project /p/.toolgate/policy.yaml:3:5)`
	if err.Error() != want {
		t.Errorf("error text\n got %s\nwant %s", err, want)
	}
	if pe.Tool != "Echo" || pe.Unwrap() != nil {
		t.Errorf("error %+v", pe)
	}
	if len(et.ran()) != 0 {
		t.Error("denied tool ran")
	}
}

func TestPermissionErrorWording(t *testing.T) {
	for _, tc := range []struct {
		d    toolgate.Decision
		want string
	}{
		{toolgate.Denial(toolgate.KindMode, ""), `permission denied for tool "T": the session mode denies this call`},
		{toolgate.Denial(toolgate.KindDefault, "nothing allows it"), `permission denied for tool "T": nothing allows it`},
		{toolgate.Decision{}, `permission denied for tool "T": the call could not be checked`},
		{toolgate.Decision{Outcome: toolgate.Deny, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Rule: "T", Effect: "deny", Source: "cli"}}},
			`permission denied for tool "T": a rule denies this call (deny rule "T" from cli)`},
	} {
		e := &PermissionError{Tool: "T", Decision: tc.d}
		if e.Error() != tc.want {
			t.Errorf("got  %s\nwant %s", e.Error(), tc.want)
		}
	}
}

func TestInvalidOutcomeDenies(t *testing.T) {
	for name, d := range map[string]toolgate.Decision{
		"zero":           {},
		"unknown":        {Outcome: 99},
		"deny no reason": {Outcome: toolgate.Deny},
	} {
		t.Run(name, func(t *testing.T) {
			g, et := newRig(t, fixed(d), nil)
			_, err := g.Call(t.Context(), echo("hi"))
			mustPermErr(t, err)
			if len(et.ran()) != 0 {
				t.Error("tool ran")
			}
		})
	}
}

func TestNilCheckerDenies(t *testing.T) {
	g, et := newRig(t, nil, nil)
	_, err := g.Call(t.Context(), echo("hi"))
	mustPermErr(t, err)
	if len(et.ran()) != 0 {
		t.Error("tool ran")
	}
}

func TestUnknownToolNotFound(t *testing.T) {
	called := false
	g, _ := newRig(t, policyFunc(func(toolgate.Call) toolgate.Decision { called = true; return allow }), nil)
	_, err := g.Call(t.Context(), &ToolCall{Tool: "Nope", Input: json.RawMessage(`{}`)})
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Tool != "Nope" {
		t.Fatalf("got %T %v", err, err)
	}
	var pe *PermissionError
	if errors.As(err, &pe) {
		t.Error("not-found is a permission error")
	}
	if called {
		t.Error("checker consulted for an unknown tool")
	}
	if err.Error() != `tool "Nope" not found` {
		t.Errorf("text %q", err)
	}
}

func TestCheckerPanicDenies(t *testing.T) {
	g, et := newRig(t, policyFunc(func(toolgate.Call) toolgate.Decision { panic("boom") }), nil)
	_, err := g.Call(t.Context(), echo("hi"))
	pe := mustPermErr(t, err)
	if pe.Decision.Reason().Kind != toolgate.KindError || !strings.Contains(err.Error(), "panic: boom") {
		t.Errorf("error %v", err)
	}
	if len(et.ran()) != 0 {
		t.Error("tool ran")
	}
}

// --- ask ---

func TestAskApproved(t *testing.T) {
	var req ApprovalRequest
	ap := ApproverFunc(func(_ context.Context, r ApprovalRequest) (Approval, error) {
		req = r
		return Approval{Allow: true}, nil
	})
	g, et := newRig(t, fixed(ask), &Options{Approver: ap})
	a, err := g.Authorize(t.Context(), echo("hi"))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Asked || a.Decision.Outcome != toolgate.Allow || a.Decision.Reason().Kind != toolgate.KindHook {
		t.Errorf("authorization %+v", a)
	}
	if req.Prompt != "Run echo?" || req.Tool != "Echo" || string(req.Input) != `{"text":"hi"}` || len(req.Suggestions) != 1 {
		t.Errorf("request %+v", req)
	}
	if _, err := g.Call(t.Context(), echo("hi")); err != nil || len(et.ran()) != 1 {
		t.Errorf("call: %v, ran %d", err, len(et.ran()))
	}
}

func TestAskDenials(t *testing.T) {
	never := ApproverFunc(func(context.Context, ApprovalRequest) (Approval, error) { select {} }) // ignores ctx too
	for _, tc := range []struct {
		name     string
		opts     Options
		ctx      func(t *testing.T) context.Context
		headless bool
		cause    error
		kind     toolgate.ReasonKind
	}{
		{name: "no approver", cause: ErrNoApprover, kind: toolgate.KindMode},
		{name: "non-interactive", opts: Options{Approver: approverOf(Approval{Allow: true}, nil)}, headless: true, cause: ErrNonInteractive, kind: toolgate.KindMode},
		{name: "rejected", opts: Options{Approver: approverOf(Approval{Message: "use staging"}, nil)}, cause: ErrRejected, kind: toolgate.KindHook},
		{name: "approver error", opts: Options{Approver: approverOf(Approval{Allow: true}, errors.New("tty gone"))}, cause: ErrApproverFailed, kind: toolgate.KindError},
		{name: "approver panic", opts: Options{Approver: ApproverFunc(func(context.Context, ApprovalRequest) (Approval, error) { panic("x") })}, cause: ErrApproverFailed, kind: toolgate.KindError},
		{name: "timeout", opts: Options{Approver: never, ApprovalTimeout: 20 * time.Millisecond}, cause: ErrApprovalTimeout, kind: toolgate.KindError},
		{name: "canceled", opts: Options{Approver: never}, cause: ErrApprovalCanceled, kind: toolgate.KindError,
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				time.AfterFunc(20*time.Millisecond, cancel)
				return ctx
			}},
		{name: "canceled before", opts: Options{Approver: approverOf(Approval{Allow: true}, nil)}, cause: ErrApprovalCanceled, kind: toolgate.KindError,
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				return ctx
			}},
		{name: "deadline from ctx", opts: Options{Approver: never}, cause: ErrApprovalCanceled, kind: toolgate.KindError,
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, et := newRig(t, fixed(ask), &tc.opts)
			ctx := t.Context()
			if tc.ctx != nil {
				ctx = tc.ctx(t)
			}
			call := echo("hi")
			call.Context.NonInteractive = tc.headless
			done := make(chan error, 1)
			go func() { _, err := g.Call(ctx, call); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("gate hung waiting for the approver")
			}
			pe := mustPermErr(t, err)
			if !errors.Is(err, tc.cause) {
				t.Errorf("cause: got %v, want %v", pe.Err, tc.cause)
			}
			if pe.Decision.Reason().Kind != tc.kind {
				t.Errorf("reason kind %v, want %v", pe.Decision.Reason().Kind, tc.kind)
			}
			// The ask's own reason follows the gate's.
			if len(pe.Decision.Reasons) < 2 || pe.Decision.Reasons[1].Kind != toolgate.KindDefault {
				t.Errorf("reasons %+v", pe.Decision.Reasons)
			}
			if len(et.ran()) != 0 {
				t.Error("tool ran")
			}
		})
	}
}

func TestRejectionMessageReachesModel(t *testing.T) {
	g, _ := newRig(t, fixed(ask), &Options{Approver: approverOf(Approval{Message: "use staging"}, nil)})
	_, err := g.Call(t.Context(), echo("hi"))
	if !strings.Contains(err.Error(), "the user rejected this call: use staging") {
		t.Errorf("error %v", err)
	}
}

// TestSeedHeadless is seed 000's headless loop: in a non-interactive context
// an Ask is treated as a Deny, and the approver is never called.
func TestSeedHeadless(t *testing.T) {
	var asked atomic.Bool
	ap := ApproverFunc(func(context.Context, ApprovalRequest) (Approval, error) {
		asked.Store(true)
		return Approval{Allow: true}, nil
	})
	g, et := newRig(t, fixed(ask), &Options{Approver: ap})
	call := echo("hi")
	call.Context.NonInteractive = true
	_, err := g.Call(t.Context(), call)
	if !errors.Is(err, ErrNonInteractive) {
		t.Fatalf("got %v", err)
	}
	if asked.Load() || len(et.ran()) != 0 {
		t.Error("approver asked or tool ran")
	}
	// Allow and Deny are unaffected by the headless flag.
	g2, _ := newRig(t, fixed(allow), nil)
	if _, err := g2.Call(t.Context(), call); err != nil {
		t.Errorf("headless allow: %v", err)
	}
}

// TestFixedResolverNeverAnswers is SPEC §12: an approver that never answers
// (and ignores its context) no longer hangs the loop.
func TestFixedResolverNeverAnswers(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	ap := ApproverFunc(func(context.Context, ApprovalRequest) (Approval, error) { <-block; return Approval{Allow: true}, nil })
	g, et := newRig(t, fixed(ask), &Options{Approver: ap, ApprovalTimeout: 30 * time.Millisecond})
	start := time.Now()
	_, err := g.Call(t.Context(), echo("hi"))
	if !errors.Is(err, ErrApprovalTimeout) {
		t.Fatalf("got %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if len(et.ran()) != 0 {
		t.Error("tool ran")
	}
}

type fakeSessions struct {
	mu    sync.Mutex
	rules []string
	err   error
}

func (f *fakeSessions) AddSessionRule(e toolgate.Effect, rule string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.rules = append(f.rules, e.String()+":"+rule)
	return nil
}

func TestAlwaysAllowAddsSessionRules(t *testing.T) {
	s := &fakeSessions{}
	d := ask
	d.Suggestions = []string{"Echo(text:hi)", "Echo(text:ho)"}
	g, _ := newRig(t, fixed(d), &Options{Approver: approverOf(Approval{Allow: true, AlwaysAllow: true}, nil), SessionRules: s})
	if _, err := g.Call(t.Context(), echo("hi")); err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.rules, ",") != "allow:Echo(text:hi),allow:Echo(text:ho)" {
		t.Errorf("rules %v", s.rules)
	}
	// Without AlwaysAllow nothing is added.
	s2 := &fakeSessions{}
	g2, _ := newRig(t, fixed(d), &Options{Approver: approverOf(Approval{Allow: true}, nil), SessionRules: s2})
	if _, err := g2.Call(t.Context(), echo("hi")); err != nil || len(s2.rules) != 0 {
		t.Errorf("err %v rules %v", err, s2.rules)
	}
	// A failing rule store does not undo the person's approval of this call,
	// and says so in the reasons.
	s3 := &fakeSessions{err: errors.New("read-only")}
	g3, _ := newRig(t, fixed(d), &Options{Approver: approverOf(Approval{Allow: true, AlwaysAllow: true}, nil), SessionRules: s3})
	a, err := g3.Authorize(t.Context(), echo("hi"))
	if err != nil || !strings.Contains(a.Decision.Reason().Message, "not added: read-only") {
		t.Errorf("err %v decision %+v", err, a.Decision)
	}
}

// --- modify ---

func TestModifyRunsRewrittenInput(t *testing.T) {
	var seen []string
	p := policyFunc(func(c toolgate.Call) toolgate.Decision {
		seen = append(seen, string(c.Input))
		if strings.Contains(string(c.Input), "safe") {
			return allow
		}
		return modify(`{"text":"safe"}`)
	})
	g, et := newRig(t, p, nil)
	a, err := g.Authorize(t.Context(), echo("raw"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Decision.Outcome != toolgate.Modify || string(a.Input) != `{"text":"safe"}` {
		t.Errorf("authorization %+v", a)
	}
	if len(seen) != 2 || seen[1] != `{"text":"safe"}` {
		t.Errorf("rewritten call not re-checked: %v", seen)
	}
	orig := echo("raw")
	if _, err := g.Call(t.Context(), orig); err != nil {
		t.Fatal(err)
	}
	if got := et.ran(); len(got) != 1 || got[0] != `{"text":"safe"}` {
		t.Errorf("tool ran with %v", got)
	}
	if string(orig.Input) != `{"text":"raw"}` {
		t.Error("the caller's call was modified")
	}
}

func TestModifyUnchangedIsAllow(t *testing.T) {
	g, _ := newRig(t, fixed(modify(`{ "text" : "hi" }`)), nil)
	a, err := g.Authorize(t.Context(), echo("hi"))
	if err != nil || a.Decision.Outcome != toolgate.Allow || string(a.Input) != `{"text":"hi"}` {
		t.Errorf("err %v auth %+v", err, a)
	}
}

// TestFixedModifyNeverRunsUnchecked is SPEC §12: a Modify that fails the
// schema, or whose rewritten call is denied, never runs.
func TestFixedModifyNeverRunsUnchecked(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p       policyFunc
		kind    toolgate.ReasonKind
		message string
	}{
		{"schema: wrong type", fixed(modify(`{"text":42}`)), toolgate.KindInvalid, "does not match the input schema"},
		{"schema: extra key", fixed(modify(`{"text":"x","evil":true}`)), toolgate.KindInvalid, "does not match the input schema"},
		{"schema: missing key", fixed(modify(`{}`)), toolgate.KindInvalid, "does not match the input schema"},
		{"not an object", fixed(modify(`["x"]`)), toolgate.KindInvalid, "not a JSON object"},
		{"not JSON", fixed(modify(`{"text":`)), toolgate.KindInvalid, "not valid JSON"},
		{"no input", fixed(toolgate.Decision{Outcome: toolgate.Modify}), toolgate.KindError, "carries no input"},
		{"denied on re-check", func(c toolgate.Call) toolgate.Decision {
			if strings.Contains(string(c.Input), "rm") {
				return denyRule
			}
			return modify(`{"text":"rm -rf /"}`)
		}, toolgate.KindRule, "the rewritten input is denied: removing files"},
		{"re-check panics", func(c toolgate.Call) toolgate.Decision {
			if strings.Contains(string(c.Input), "new") {
				panic("engine bug")
			}
			return modify(`{"text":"new"}`)
		}, toolgate.KindError, "panic: engine bug"},
		{"never settles", func(c toolgate.Call) toolgate.Decision {
			var in struct{ Text string }
			_ = json.Unmarshal(c.Input, &in)
			b, _ := json.Marshal(map[string]string{"text": in.Text + "x"})
			return modify(string(b))
		}, toolgate.KindError, "did not settle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, et := newRig(t, tc.p, &Options{Approver: approverOf(Approval{Allow: true}, nil)})
			_, err := g.Call(t.Context(), echo("hi"))
			pe := mustPermErr(t, err)
			if pe.Decision.Reason().Kind != tc.kind || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("got %v (kind %v)", err, pe.Decision.Reason().Kind)
			}
			if len(et.ran()) != 0 {
				t.Error("tool ran")
			}
		})
	}
}

func TestModifyRecheckAsks(t *testing.T) {
	var req ApprovalRequest
	p := policyFunc(func(c toolgate.Call) toolgate.Decision {
		if strings.Contains(string(c.Input), "new") {
			return ask
		}
		return modify(`{"text":"new"}`)
	})
	ap := ApproverFunc(func(_ context.Context, r ApprovalRequest) (Approval, error) {
		req = r
		return Approval{Allow: true}, nil
	})
	g, et := newRig(t, p, &Options{Approver: ap})
	if _, err := g.Call(t.Context(), echo("old")); err != nil {
		t.Fatal(err)
	}
	if string(req.Input) != `{"text":"new"}` || req.Prompt != "Run echo?" {
		t.Errorf("the person was not shown the rewritten input: %+v", req)
	}
	if got := et.ran(); len(got) != 1 || got[0] != `{"text":"new"}` {
		t.Errorf("ran %v", got)
	}
	// Headless: the ask from the re-check denies.
	call := echo("old")
	call.Context.NonInteractive = true
	if _, err := g.Call(t.Context(), call); !errors.Is(err, ErrNonInteractive) {
		t.Errorf("got %v", err)
	}
}

func TestAskWithRewriteValidatesBeforeAsking(t *testing.T) {
	var asked atomic.Bool
	ap := ApproverFunc(func(context.Context, ApprovalRequest) (Approval, error) {
		asked.Store(true)
		return Approval{Allow: true}, nil
	})
	d := ask
	d.Input = json.RawMessage(`{"text":1}`)
	g, et := newRig(t, fixed(d), &Options{Approver: ap})
	_, err := g.Call(t.Context(), echo("hi"))
	mustPermErr(t, err)
	if asked.Load() || len(et.ran()) != 0 {
		t.Error("an invalid rewrite was asked about or ran")
	}
}

func TestModifyChainSettles(t *testing.T) {
	// Two rewrites: "a" → "b" → "c", then stable.
	p := policyFunc(func(c toolgate.Call) toolgate.Decision {
		switch string(c.Input) {
		case `{"text":"a"}`:
			return modify(`{"text":"b"}`)
		case `{"text":"b"}`:
			return modify(`{"text":"c"}`)
		}
		return allow
	})
	g, et := newRig(t, p, nil)
	if _, err := g.Call(t.Context(), echo("a")); err != nil {
		t.Fatal(err)
	}
	if got := et.ran(); len(got) != 1 || got[0] != `{"text":"c"}` {
		t.Errorf("ran %v", got)
	}
}

// --- custom checks ---

func hostCheck(d toolgate.Decision, err error, calls *atomic.Int32) CheckFunc {
	return func(context.Context, toolgate.Call) (toolgate.Decision, error) {
		if calls != nil {
			calls.Add(1)
		}
		return d, err
	}
}

func TestHostChecks(t *testing.T) {
	hookDeny := toolgate.Decision{Outcome: toolgate.Deny, Reasons: []toolgate.Reason{{Kind: toolgate.KindHook, Message: "host says no"}}}
	for _, tc := range []struct {
		name          string
		policy        toolgate.Decision
		before, after []CheckFunc
		want          toolgate.Outcome
		wantMsg       string
		policyCalled  bool
	}{
		{name: "before deny short-circuits", policy: allow, before: []CheckFunc{hostCheck(hookDeny, nil, nil)}, want: toolgate.Deny, wantMsg: "host says no"},
		{name: "after deny beats allow", policy: allow, after: []CheckFunc{hostCheck(hookDeny, nil, nil)}, want: toolgate.Deny, wantMsg: "host says no", policyCalled: true},
		{name: "policy deny beats host allow", policy: denyRule, before: []CheckFunc{hostCheck(toolgate.Decision{Outcome: toolgate.Allow}, nil, nil)}, want: toolgate.Deny, wantMsg: "removing files", policyCalled: true},
		{name: "host allow cannot loosen ask", policy: ask, after: []CheckFunc{hostCheck(toolgate.Decision{Outcome: toolgate.Allow}, nil, nil)}, want: toolgate.Allow /* approved */, policyCalled: true},
		{name: "host ask", policy: allow, after: []CheckFunc{hostCheck(toolgate.Decision{Outcome: toolgate.Ask}, nil, nil)}, want: toolgate.Allow /* approved */, policyCalled: true},
		{name: "host error denies", policy: allow, before: []CheckFunc{hostCheck(allow, errors.New("classifier down"), nil)}, want: toolgate.Deny, wantMsg: "host check failed: classifier down"},
		{name: "host zero decision denies", policy: allow, after: []CheckFunc{hostCheck(toolgate.Decision{}, nil, nil)}, want: toolgate.Deny, policyCalled: true},
		{name: "host panic denies", policy: allow, before: []CheckFunc{func(context.Context, toolgate.Call) (toolgate.Decision, error) { panic("hook bug") }}, want: toolgate.Deny, wantMsg: "panic: hook bug"},
		{name: "nil host check denies", policy: allow, before: []CheckFunc{nil}, want: toolgate.Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var policyCalled atomic.Bool
			p := policyFunc(func(toolgate.Call) toolgate.Decision { policyCalled.Store(true); return tc.policy })
			var asked atomic.Bool
			ap := ApproverFunc(func(context.Context, ApprovalRequest) (Approval, error) {
				asked.Store(true)
				return Approval{Allow: true}, nil
			})
			g, et := newRig(t, p, &Options{Before: tc.before, After: tc.after, Approver: ap})
			a, err := g.Authorize(t.Context(), echo("hi"))
			got := a.Decision.Outcome
			if err != nil {
				got = mustPermErr(t, err).Decision.Outcome
			}
			if got != tc.want {
				t.Errorf("outcome %v, want %v (err %v)", got, tc.want, err)
			}
			if tc.wantMsg != "" && (err == nil || !strings.Contains(err.Error(), tc.wantMsg)) {
				t.Errorf("error %v, want %q", err, tc.wantMsg)
			}
			if policyCalled.Load() != tc.policyCalled {
				t.Errorf("policy called = %v", policyCalled.Load())
			}
			if tc.want == toolgate.Allow && !asked.Load() && (tc.policy.Outcome == toolgate.Ask || strings.Contains(tc.name, "ask")) {
				t.Error("ask was not put to the approver")
			}
			if len(et.ran()) != 0 {
				t.Error("Authorize ran the tool")
			}
		})
	}
}

func TestHostModifyValidatedAndRechecked(t *testing.T) {
	var policySaw []string
	p := policyFunc(func(c toolgate.Call) toolgate.Decision {
		policySaw = append(policySaw, string(c.Input))
		if strings.Contains(string(c.Input), "forbidden") {
			return denyRule
		}
		return allow
	})
	rewrite := func(to string) CheckFunc {
		return func(_ context.Context, c toolgate.Call) (toolgate.Decision, error) {
			if string(c.Input) == to {
				return toolgate.Decision{Outcome: toolgate.Allow}, nil
			}
			return toolgate.Decision{Outcome: toolgate.Modify, Input: json.RawMessage(to)}, nil
		}
	}
	g, et := newRig(t, p, &Options{After: []CheckFunc{rewrite(`{"text":"clean"}`)}})
	if _, err := g.Call(t.Context(), echo("dirty")); err != nil {
		t.Fatal(err)
	}
	if got := et.ran(); len(got) != 1 || got[0] != `{"text":"clean"}` {
		t.Errorf("ran %v", got)
	}
	if len(policySaw) != 2 || policySaw[1] != `{"text":"clean"}` {
		t.Errorf("policy did not re-check the host's rewrite: %v", policySaw)
	}
	// A host rewrite the policy denies never runs.
	g2, et2 := newRig(t, p, &Options{Before: []CheckFunc{rewrite(`{"text":"forbidden"}`)}})
	_, err := g2.Call(t.Context(), echo("x"))
	mustPermErr(t, err)
	// A host rewrite failing the schema never runs.
	g3, et3 := newRig(t, p, &Options{Before: []CheckFunc{rewrite(`{"text":"x","n":"NaN"}`)}})
	_, err = g3.Call(t.Context(), echo("x"))
	if pe := mustPermErr(t, err); pe.Decision.Reason().Kind != toolgate.KindInvalid {
		t.Errorf("reason %+v", pe.Decision.Reason())
	}
	if len(et2.ran())+len(et3.ran()) != 0 {
		t.Error("tool ran")
	}
}

func TestHostAskKeepsPolicyRewrite(t *testing.T) {
	// The policy rewrites, a host check asks: the person approves the
	// rewritten input, and it is what runs.
	p := policyFunc(func(c toolgate.Call) toolgate.Decision {
		if string(c.Input) == `{"text":"safe"}` {
			return allow
		}
		return modify(`{"text":"safe"}`)
	})
	var req ApprovalRequest
	ap := ApproverFunc(func(_ context.Context, r ApprovalRequest) (Approval, error) {
		req = r
		return Approval{Allow: true}, nil
	})
	hostAsk := hostCheck(toolgate.Decision{Outcome: toolgate.Ask, Prompt: "really?"}, nil, nil)
	g, et := newRig(t, p, &Options{After: []CheckFunc{hostAsk}, Approver: ap})
	if _, err := g.Call(t.Context(), echo("raw")); err != nil {
		t.Fatal(err)
	}
	if string(req.Input) != `{"text":"safe"}` {
		t.Errorf("asked about %s", req.Input)
	}
	if got := et.ran(); len(got) != 1 || got[0] != `{"text":"safe"}` {
		t.Errorf("ran %v", got)
	}
}

// --- registry ---

func TestRegistry(t *testing.T) {
	r, err := NewRegistry(Tool{Name: "a", Description: "A"}, Tool{Name: "b"}, Tool{Name: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Register(Tool{Name: "b", Description: "B2", InputSchema: json.RawMessage(`{"type":"object"}`)}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Names(), ","); got != "a,b,c" {
		t.Errorf("names %s", got)
	}
	s := r.Schemas()
	if len(s) != 3 || s[1].Description != "B2" || string(s[1].InputSchema) != `{"type":"object"}` || s[0].Description != "A" {
		t.Errorf("schemas %+v", s)
	}
	if tool, ok := r.Lookup("b"); !ok || tool.Description != "B2" {
		t.Errorf("lookup %+v %v", tool, ok)
	}
	if _, ok := r.Lookup("zz"); ok {
		t.Error("lookup of unknown tool")
	}
	for _, bad := range []Tool{
		{Name: ""},
		{Name: "x", InputSchema: json.RawMessage(`{"type":`)},
		{Name: "x", InputSchema: json.RawMessage(`{"type":"nonsense"}`)},
		{Name: "x", InputSchema: json.RawMessage(`{"$ref":"file:///etc/passwd"}`)},
	} {
		if err := r.Register(bad); err == nil {
			t.Errorf("Register(%+v) succeeded", bad)
		}
	}
	var zero Registry
	if len(zero.Names()) != 0 {
		t.Error("zero registry not empty")
	}
	if _, err := zero.Call(t.Context(), &ToolCall{Tool: "a"}); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("zero registry call: %v", err)
	}
	if _, err := r.Call(t.Context(), &ToolCall{Tool: "a"}); err == nil {
		t.Error("tool without Func ran")
	}
}

func TestWrapMiddleware(t *testing.T) {
	g, _ := newRig(t, fixed(modify(`{"text":"new"}`)), nil)
	var got *ToolCall
	inner := HandlerFunc(func(_ context.Context, c *ToolCall) (Result, error) { got = c; return Result{Content: "ok"}, nil })
	var mw Middleware = g.Wrap
	h := mw(inner)
	res, err := h.Call(t.Context(), echo("old"))
	if err != nil || res.Content != "ok" || string(got.Input) != `{"text":"new"}` || got.Context.Cwd != "/work" {
		t.Errorf("res %+v err %v call %+v", res, err, got)
	}
}

// --- delegation ---

// TestDelegateCompiled checks the delegation with compiled policies: the
// child's deny wins over the parent's allow, and the stricter of allow and
// ask is ask.
func TestDelegateCompiled(t *testing.T) {
	compile := func(allow, deny []string) *toolgate.Policy {
		t.Helper()
		l := toolgate.Layer{Source: toolgate.SourceProject}
		for _, r := range allow {
			l.Allow = append(l.Allow, toolgate.RuleSpec{Text: r})
		}
		for _, r := range deny {
			l.Deny = append(l.Deny, toolgate.RuleSpec{Text: r})
		}
		c, err := toolgate.Compile([]toolgate.Layer{l}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	d := delegation{compile([]string{"Bash", "Read"}, nil), compile([]string{"Read"}, []string{"Bash(git push:*)"})}
	bash := func(cmd string) toolgate.Call {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return toolgate.Call{Tool: "Bash", Input: in, Cwd: "/p"}
	}
	if got := d.Decide(bash("git push")); got.Outcome != toolgate.Deny {
		t.Fatalf("child deny must win: %s", got)
	}
	if got := d.Decide(bash("make")); got.Outcome != toolgate.Ask {
		t.Fatalf("stricter of allow (parent) and ask (child) is ask: %s", got)
	}
}

func TestDelegateChecker(t *testing.T) {
	for _, tc := range []struct {
		parent, sub toolgate.Decision
		want        toolgate.Outcome
	}{
		{allow, allow, toolgate.Allow},
		{allow, ask, toolgate.Ask},
		{ask, allow, toolgate.Ask},
		{allow, denyRule, toolgate.Deny},
		{denyRule, allow, toolgate.Deny},
		{modify(`{"text":"x"}`), allow, toolgate.Modify},
		{allow, toolgate.Decision{}, toolgate.Deny},
	} {
		d := delegation{fixed(tc.parent), fixed(tc.sub)}.Decide(toolgate.Call{Tool: "Echo"})
		if d.Outcome != tc.want {
			t.Errorf("parent %v sub %v: got %v", tc.parent.Outcome, tc.sub.Outcome, d.Outcome)
		}
	}
	// The stricter side's reasons are given.
	d := delegation{fixed(allow), fixed(denyRule)}.Decide(toolgate.Call{})
	if d.Reason().Rule != "Echo(text:rm*)" {
		t.Errorf("reasons %+v", d.Reasons)
	}
	if (delegation{nil, fixed(allow)}).Decide(toolgate.Call{}).Outcome != toolgate.Deny {
		t.Error("nil parent allowed")
	}
	if (delegation{fixed(allow), nil}).Decide(toolgate.Call{}).Outcome != toolgate.Deny {
		t.Error("nil sub allowed")
	}
	// A sub-agent gate without a policy of its own has the parent's checks.
	g, _ := newRig(t, fixed(allow), nil)
	sub := g.SubAgent(SubAgent{Name: "x"})
	if _, err := sub.Call(t.Context(), echo("hi")); err != nil {
		t.Errorf("nil sub policy changed the parent's allow: %v", err)
	}
}

func TestSubAgentGate(t *testing.T) {
	et := &echoTool{}
	reg, _ := NewRegistry(
		Tool{Name: "Read", Func: et.run},
		Tool{Name: "Edit", Func: et.run},
		Tool{Name: "Bash", Func: et.run},
		Tool{Name: "Secret", Func: et.run},
	)
	var parentSaw, subSaw []string
	parent := policyFunc(func(c toolgate.Call) toolgate.Decision {
		parentSaw = append(parentSaw, c.Agent+":"+c.Tool)
		return allow
	})
	sub := policyFunc(func(c toolgate.Call) toolgate.Decision {
		subSaw = append(subSaw, c.Agent+":"+c.Tool)
		if c.Tool == "Edit" {
			return toolgate.Denial(toolgate.KindRule, "reviewer may not edit")
		}
		return allow
	})
	g := New(parent, reg, &Options{Visibility: VisibilityFuncs{Expose: func(t string) bool { return t != "Secret" }}})
	if got := names(g.Tools()); got != "Read,Edit,Bash" {
		t.Errorf("parent tools %s", got)
	}
	rv := g.SubAgent(SubAgent{
		Name:   "reviewer",
		Policy: sub,
		Visibility: VisibilityFuncs{
			Expose:   func(t string) bool { return t != "Bash" },   // hides Bash
			Declares: func(t string) bool { return t == "Secret" }, // declares Secret
		},
	})
	if rv.Agent() != "reviewer" {
		t.Errorf("agent %q", rv.Agent())
	}
	if got := names(rv.Tools()); got != "Read,Edit,Secret" {
		t.Errorf("sub-agent tools %s", got)
	}
	ctx := t.Context()
	in := json.RawMessage(`{}`)
	if _, err := rv.Call(ctx, &ToolCall{Tool: "Read", Input: in, Context: CallContext{Agent: "spoofed"}}); err != nil {
		t.Errorf("Read: %v", err)
	}
	if _, err := rv.Call(ctx, &ToolCall{Tool: "Edit", Input: in}); !strings.Contains(fmtErr(err), "reviewer may not edit") {
		t.Errorf("Edit: %v", err)
	}
	if _, err := rv.Call(ctx, &ToolCall{Tool: "Bash", Input: in}); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("hidden Bash: %v", err)
	}
	if _, err := g.Call(ctx, &ToolCall{Tool: "Secret", Input: in}); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("parent Secret: %v", err)
	}
	if strings.Join(parentSaw, ",") != "reviewer:Read,reviewer:Edit" || strings.Join(subSaw, ",") != "reviewer:Read,reviewer:Edit" {
		t.Errorf("parent saw %v, sub saw %v", parentSaw, subSaw)
	}
	// Parent deny wins over the sub-agent's allow.
	g2 := New(fixed(denyRule), reg, nil).SubAgent(SubAgent{Name: "x", Policy: fixed(allow)})
	if _, err := g2.Call(ctx, &ToolCall{Tool: "Read", Input: in}); err == nil {
		t.Error("sub-agent allow beat parent deny")
	}
	// Nested sub-agents tighten further.
	g3 := g.SubAgent(SubAgent{Name: "a", Policy: fixed(allow)}).SubAgent(SubAgent{Name: "b", Policy: fixed(denyRule)})
	if _, err := g3.Call(ctx, &ToolCall{Tool: "Read", Input: in}); err == nil {
		t.Error("nested deny ignored")
	}
}

func names(ts []ToolSchema) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.Name)
	}
	return strings.Join(s, ",")
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// --- audit ---

type memSink struct {
	mu     sync.Mutex
	events []*audit.Event
	err    error
}

func (m *memSink) Record(_ context.Context, e *audit.Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.events = append(m.events, e.Clone())
	return nil
}

func (m *memSink) Close() error { return nil }

func TestAuditEvents(t *testing.T) {
	sink := &memSink{}
	mode := toolgate.Mode{Name: toolgate.ModeDontAsk}
	p := policyFunc(func(c toolgate.Call) toolgate.Decision {
		if strings.Contains(string(c.Input), "rm") {
			return denyRule
		}
		if strings.Contains(string(c.Input), "REWRITE") {
			return modify(`{"text":"done","n":1}`)
		}
		if strings.Contains(string(c.Input), "ASK") {
			return ask
		}
		return allow
	})
	g, _ := newRig(t, p, &Options{Sink: sink, Revision: "rev-1", Approver: approverOf(Approval{Allow: true}, nil)})
	ctx := t.Context()
	c1 := &ToolCall{Tool: "Other", Input: json.RawMessage(`{"user":"bob","password":"hunter2"}`), Context: CallContext{Session: "S", Agent: "A", Mode: &mode}}
	_, _ = g.Call(ctx, c1)
	_, _ = g.Call(ctx, echo("rm -rf /"))
	_, _ = g.Call(ctx, echo("REWRITE"))
	_, _ = g.Call(ctx, echo("ASK"))
	_, _ = g.Call(ctx, &ToolCall{Tool: "Unknown"})
	if len(sink.events) != 4 {
		t.Fatalf("%d events", len(sink.events))
	}
	e := sink.events[0]
	if len(e.ID) != 32 || e.Time.IsZero() || e.Session != "S" || e.Agent != "A" || e.Tool != "Other" ||
		e.InputDigest != audit.Digest(c1.Input) || e.Outcome != toolgate.Allow || e.Mode != "dontAsk" || e.Revision != "rev-1" || e.EvalTime <= 0 {
		t.Errorf("event %+v", e)
	}
	if strings.Contains(string(e.Input), "hunter2") || !strings.Contains(string(e.Input), "bob") {
		t.Errorf("input not redacted: %s", e.Input)
	}
	if sink.events[1].Outcome != toolgate.Deny || sink.events[1].Reasons[0].Rule != "Echo(text:rm*)" {
		t.Errorf("deny event %+v", sink.events[1])
	}
	if sink.events[2].Outcome != toolgate.Modify || string(sink.events[2].Rewritten) != `{"text":"done","n":1}` {
		t.Errorf("modify event %+v", sink.events[2])
	}
	if !sink.events[3].Asked || sink.events[3].Outcome != toolgate.Allow {
		t.Errorf("ask event %+v", sink.events[3])
	}
	if sink.events[0].ID == sink.events[1].ID {
		t.Error("ids repeat")
	}
}

func TestAuditFailure(t *testing.T) {
	bad := &memSink{err: errors.New("disk full")}
	var reported atomic.Int32
	onErr := func(*audit.Event, error) { reported.Add(1) }

	// Default: record the failure, continue.
	g, et := newRig(t, fixed(allow), &Options{Sink: bad, OnAuditError: onErr})
	if _, err := g.Call(t.Context(), echo("hi")); err != nil || len(et.ran()) != 1 || reported.Load() != 1 {
		t.Errorf("err %v ran %d reported %d", err, len(et.ran()), reported.Load())
	}
	// Blocking: deny.
	g, et = newRig(t, fixed(allow), &Options{Sink: bad, BlockOnAuditError: true})
	_, err := g.Call(t.Context(), echo("hi"))
	if !errors.Is(err, ErrAudit) || len(et.ran()) != 0 {
		t.Errorf("err %v ran %d", err, len(et.ran()))
	}
	// A failing sink never turns a deny into an allow, in either setting.
	for _, block := range []bool{false, true} {
		g, et = newRig(t, fixed(denyRule), &Options{Sink: bad, BlockOnAuditError: block})
		if _, err := g.Call(t.Context(), echo("rm")); err == nil || len(et.ran()) != 0 {
			t.Errorf("block=%v: deny became %v", block, err)
		}
	}
	// A panicking sink or redactor is a failure, not a crash.
	panicky := audit.Multi(sinkFunc(func(context.Context, *audit.Event) error { panic("sink bug") }))
	g, et = newRig(t, fixed(allow), &Options{Sink: panicky, BlockOnAuditError: true,
		Redactor: func(string, json.RawMessage) json.RawMessage { panic("redactor bug") }})
	if _, err := g.Call(t.Context(), echo("hi")); !errors.Is(err, ErrAudit) || len(et.ran()) != 0 {
		t.Errorf("panicking sink: %v", err)
	}
}

type sinkFunc func(ctx context.Context, e *audit.Event) error

func (f sinkFunc) Record(ctx context.Context, e *audit.Event) error { return f(ctx, e) }
func (f sinkFunc) Close() error                                     { return nil }

func TestRedactorFallback(t *testing.T) {
	sink := &memSink{}
	g, _ := newRig(t, fixed(allow), &Options{Sink: sink, Redactor: func(string, json.RawMessage) json.RawMessage { return json.RawMessage("{bad") }})
	_, _ = g.Call(t.Context(), echo("hi"))
	if string(sink.events[0].Input) != `"[REDACTED]"` {
		t.Errorf("input %s", sink.events[0].Input)
	}
}

func TestConcurrentCalls(t *testing.T) {
	sink := &memSink{}
	p := policyFunc(func(c toolgate.Call) toolgate.Decision {
		switch {
		case strings.Contains(string(c.Input), "d"):
			return denyRule
		case strings.Contains(string(c.Input), "a"):
			return ask
		}
		return allow
	})
	g, et := newRig(t, p, &Options{Sink: sink, Approver: approverOf(Approval{Allow: true}, nil)})
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			text := []string{"x", "d", "a"}[i%3]
			_, _ = g.Call(t.Context(), echo(text))
		})
	}
	wg.Wait()
	if len(sink.events) != 50 || len(et.ran()) != 33 {
		t.Errorf("%d events, %d runs", len(sink.events), len(et.ran()))
	}
}
