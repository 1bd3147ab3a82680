package mcpgate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
)

// fakeChecker stands in for a remote decision service: it decides with an
// engine, remembers the calls, answers visibility from a map and asks with
// a scripted out-of-band answer.
type fakeChecker struct {
	e      *Engine
	shown  map[string]bool // nil: decided by the engine
	visErr error
	// answer, when set, is the out-of-band answer to an ask.
	answer  func(c toolgate.Call, d toolgate.Decision) (toolgate.Decision, string)
	panicOn string // a tool whose decision panics

	mu      sync.Mutex
	calls   []toolgate.Call
	awaited []toolgate.Call
}

func (f *fakeChecker) Decide(c toolgate.Call) toolgate.Decision {
	if c.Tool == f.panicOn {
		panic("checker broke")
	}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()
	return f.e.Decide(c)
}

func (f *fakeChecker) ExposedTools(_ context.Context, tools []string) (map[string]bool, error) {
	if f.visErr != nil {
		return nil, f.visErr
	}
	if f.shown != nil {
		return f.shown, nil
	}
	m := map[string]bool{}
	for _, t := range tools {
		m[t] = f.e.ExposeToModel(t)
	}
	return m, nil
}

func (f *fakeChecker) AwaitApproval(_ context.Context, c toolgate.Call) (toolgate.Decision, string) {
	f.mu.Lock()
	f.awaited = append(f.awaited, c)
	f.mu.Unlock()
	d := f.e.Decide(c)
	if f.answer == nil {
		return d, "approval pending: ap1 — approve it at http://tg/approvals/ap1, then retry the call"
	}
	return f.answer(c, d)
}

func (f *fakeChecker) Revision() string { return "remote-rev-1" }

func (f *fakeChecker) seen() (calls, awaited []toolgate.Call) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls), slices.Clone(f.awaited)
}

// plainChecker is a Checker and nothing else.
type plainChecker struct{ e *Engine }

func (p plainChecker) Decide(c toolgate.Call) toolgate.Decision { return p.e.Decide(c) }

// visChecker is a Checker that answers visibility tool by tool.
type visChecker struct{ plainChecker }

func (v visChecker) ExposeToModel(tool string) bool      { return v.e.ExposeToModel(tool) }
func (v visChecker) DeclaresToolAccess(tool string) bool { return v.e.DeclaresToolAccess(tool) }

// withChecker is a fixture option deciding with chk instead of the engine.
func withChecker(chk Checker) func(*Options) {
	return func(o *Options) { o.Engine, o.Checker = nil, chk }
}

func TestNewNeedsOneDecider(t *testing.T) {
	e := newEngine(t, testPolicy)
	base := Options{Servers: []ServerSpec{{Name: "up", Command: []string{"x"}}}, Cwd: "/work"}
	for name, tc := range map[string]struct {
		e    *Engine
		c    Checker
		want string
	}{
		"neither": {want: "no policy engine"},
		"both":    {e: e, c: plainChecker{e}, want: "not both"},
		"engine":  {e: e},
		"checker": {c: plainChecker{e}},
	} {
		o := base
		o.Engine, o.Checker = tc.e, tc.c
		p, err := New(&o)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
		if p != nil {
			p.Close()
		}
	}
}

// TestCheckerDecides: with a Checker, every call is its decision, sent
// with the call's server and a session id; its revision is the policy's.
func TestCheckerDecides(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			chk := &fakeChecker{e: newEngine(t, testPolicy), panicOn: "mcp__up__slow"}
			f := newFixture(t, fixtureOpts{protocol: proto, opts: withChecker(chk)})
			tests := []struct {
				tool    string
				args    map[string]any
				wantErr bool
				want    string
			}{
				{"mcp__up__echo", map[string]any{"text": "hi"}, false, "hi"},
				{"mcp__up__write_thing", map[string]any{"path": "/etc/passwd"}, true, `"mcp__up__write_thing(path:/etc/*)"`},
				{"mcp__up__echo", map[string]any{"text": "rewrite me"}, false, "rewritten"},
				{"mcp__up__slow", map[string]any{}, true, "the policy engine failed: checker broke"},
			}
			for _, tc := range tests {
				text, isErr, err := f.call(t, tc.tool, tc.args)
				if err != nil || isErr != tc.wantErr || !strings.Contains(text, tc.want) {
					t.Errorf("%s %v: %q isError=%v err=%v; want %q isError=%v", tc.tool, tc.args, text, isErr, err, tc.want, tc.wantErr)
				}
			}
			if ran := f.up.ran(); !slices.Equal(ran, []string{`echo {"text":"hi"}`, `echo {"text":"rewritten"}`}) {
				t.Errorf("upstream ran %v", ran)
			}
			calls, _ := chk.seen()
			if len(calls) < 3 {
				t.Fatalf("the checker saw %d calls", len(calls))
			}
			for _, c := range calls {
				if c.Server != "up" || !strings.HasPrefix(c.Session, "mcp-") || c.Cwd != "/work" || c.Home != "/home/u" {
					t.Errorf("call sent to the checker: %+v; want server up, a session, cwd and home", c)
				}
			}
			for _, ev := range f.sink.all() {
				if ev.Revision != "remote-rev-1" || ev.Session != calls[0].Session {
					t.Errorf("audit event revision %q session %q; want the checker's revision and the session it was sent", ev.Revision, ev.Session)
				}
			}
		})
	}
}

// TestCheckerVisibility: tools/list shows what the checker says; a tool it
// leaves out, or every tool when it cannot answer, is hidden (fail
// closed); a checker with no visibility at all hides nothing.
func TestCheckerVisibility(t *testing.T) {
	all := []string{"mcp__up__ask_user", "mcp__up__crash", "mcp__up__echo", "mcp__up__erase",
		"mcp__up__read_thing", "mcp__up__secret_tool", "mcp__up__slow", "mcp__up__write_thing"}
	byPolicy := slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == "mcp__up__secret_tool" })
	e := newEngine(t, testPolicy)
	tests := []struct {
		name string
		chk  Checker
		want []string
	}{
		{"batch", &fakeChecker{e: e}, byPolicy},
		{"batch, some left out", &fakeChecker{e: e, shown: map[string]bool{"mcp__up__echo": false, "mcp__up__slow": true}},
			[]string{"mcp__up__slow"}},
		{"batch fails", &fakeChecker{e: e, visErr: errors.New("unreachable")}, nil},
		{"tool by tool", visChecker{plainChecker{e}}, byPolicy},
		{"no visibility", plainChecker{e}, all},
		{"per session", &sessionChecker{base: e}, byPolicy},
		{"per session fails", &sessionChecker{base: e, fail: errors.New("unreachable")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{protocol: "2025-11-25", opts: withChecker(tc.chk)})
			got := f.toolNames(t)
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("tools/list = %v\nwant %v", got, tc.want)
			}
			// A listed tool the policy denies is still denied by the checker.
			if slices.Contains(got, "mcp__up__secret_tool") {
				text, isErr, err := f.call(t, "mcp__up__secret_tool", map[string]any{})
				if err != nil || !isErr || !strings.Contains(text, "toolgate denied the call") {
					t.Errorf("secret_tool: %q isError=%v err=%v; want a denial", text, isErr, err)
				}
			}
			if slices.ContainsFunc(f.up.ran(), func(s string) bool { return strings.HasPrefix(s, "secret_tool") }) {
				t.Error("secret_tool ran upstream")
			}
		})
	}
}

// TestCheckerAsk: the checker's ask is first put to its out-of-band
// approval; what stands after is put to the client's user, as the engine's
// ask is, and a client that cannot be asked is told how to approve it.
func TestCheckerAsk(t *testing.T) {
	allow := func(_ toolgate.Call, d toolgate.Decision) (toolgate.Decision, string) {
		return toolgate.Decision{Outcome: toolgate.Allow, Reasons: append([]toolgate.Reason{{Kind: "approval", Message: "approved by alice"}}, d.Reasons...)}, ""
	}
	deny := func(_ toolgate.Call, d toolgate.Decision) (toolgate.Decision, string) {
		out := toolgate.Denial(toolgate.KindHook, "alice denied the call (approval ap1)")
		out.Reasons = append(out.Reasons, d.Reasons...)
		return out, ""
	}
	var elicited sync.Map
	elicitOK := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		elicited.Store(req.Params.Message, true)
		return approve(ctx, req)
	}
	write := map[string]any{"path": "/tmp/x"}
	tests := []struct {
		name    string
		answer  func(toolgate.Call, toolgate.Decision) (toolgate.Decision, string)
		elicit  func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		tool    string
		wantErr bool
		want    []string
		ran     bool
		outcome toolgate.Outcome
		awaits  int
	}{
		{name: "approved out of band", answer: allow, tool: "mcp__up__write_thing", want: []string{"wrote /tmp/x"}, ran: true,
			outcome: toolgate.Allow, awaits: 1},
		{name: "approved out of band, client could be asked", answer: allow, elicit: elicitOK, tool: "mcp__up__write_thing",
			want: []string{"wrote /tmp/x"}, ran: true, outcome: toolgate.Allow, awaits: 1},
		{name: "denied out of band", answer: deny, elicit: elicitOK, tool: "mcp__up__write_thing", wantErr: true,
			want: []string{"alice denied the call (approval ap1)", `"mcp__up__write_thing"`}, outcome: toolgate.Deny, awaits: 1},
		{name: "pending, client cannot be asked", tool: "mcp__up__write_thing", wantErr: true,
			want: []string{"cannot be asked", "approval pending: ap1", "http://tg/approvals/ap1"}, outcome: toolgate.Deny, awaits: 1},
		{name: "pending, client asked", elicit: elicitOK, tool: "mcp__up__write_thing", want: []string{"wrote /tmp/x"}, ran: true,
			outcome: toolgate.Allow, awaits: 1},
		{name: "allow: nothing to wait for", answer: deny, tool: "mcp__up__echo", want: []string{"hi"}, ran: true, outcome: toolgate.Allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			chk := &fakeChecker{e: newEngine(t, testPolicy), answer: tc.answer}
			f := newFixture(t, fixtureOpts{protocol: "2025-11-25", elicit: tc.elicit, opts: withChecker(chk)})
			args := write
			if tc.tool == "mcp__up__echo" {
				args = map[string]any{"text": "hi"}
			}
			text, isErr, err := f.call(t, tc.tool, args)
			if err != nil || isErr != tc.wantErr {
				t.Fatalf("%q isError=%v err=%v; want isError=%v", text, isErr, err, tc.wantErr)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("result %q\ndoes not contain %q", text, w)
				}
			}
			if ran := len(f.up.ran()) > 0; ran != tc.ran {
				t.Errorf("upstream ran %v, want ran=%v", f.up.ran(), tc.ran)
			}
			_, awaited := chk.seen()
			if len(awaited) != tc.awaits {
				t.Errorf("%d out-of-band waits, want %d", len(awaited), tc.awaits)
			}
			for _, c := range awaited {
				if c.Tool != tc.tool || c.Server != "up" || c.Session == "" || c.Cwd != "/work" {
					t.Errorf("waited on %+v", c)
				}
			}
			evs := f.sink.all()
			if len(evs) != 1 || evs[0].Outcome != tc.outcome {
				t.Fatalf("audit events %v, want one with outcome %v", evs, tc.outcome)
			}
			if wantAsked := tc.awaits > 0; evs[0].Asked != wantAsked {
				t.Errorf("audit event asked = %v, want %v", evs[0].Asked, wantAsked)
			}
			if tc.answer != nil {
				elicited.Range(func(k, _ any) bool {
					t.Errorf("the client's user was asked although the ask was answered out of band: %v", k)
					return true
				})
			}
			elicited.Clear()
		})
	}
}

// TestCheckerProxyAskNotAwaited: an ask the proxy makes of an allow (a
// destructive annotation) is its own, and is not sent to be approved out
// of band.
func TestCheckerProxyAskNotAwaited(t *testing.T) {
	chk := &fakeChecker{e: newEngine(t, "version: 1\ndefault: allow\n")}
	f := newFixture(t, fixtureOpts{protocol: "2025-11-25", opts: withChecker(chk)})
	text, isErr, err := f.call(t, "mcp__up__erase", map[string]any{})
	if err != nil || !isErr || !strings.Contains(text, "declares mcp__up__erase destructive") || strings.Contains(text, "approval pending") {
		t.Errorf("%q isError=%v err=%v", text, isErr, err)
	}
	if _, awaited := chk.seen(); len(awaited) != 0 {
		t.Errorf("waited out of band on %v", awaited)
	}
}

// TestCheckerResourceRead: a read the checker asks about can be approved
// out of band only.
func TestCheckerResourceRead(t *testing.T) {
	policy := strings.Replace(testPolicy, "ask:\n", "ask:\n  - mcp__up__resources/read(uri:test://private/*)\n", 1)
	for _, tc := range []struct {
		name    string
		answer  func(toolgate.Call, toolgate.Decision) (toolgate.Decision, string)
		want    string
		wantErr string
	}{
		{name: "approved", answer: func(toolgate.Call, toolgate.Decision) (toolgate.Decision, string) {
			return toolgate.Decision{Outcome: toolgate.Allow}, ""
		}, want: "private b"},
		{name: "pending", wantErr: "approval pending: ap1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chk := &fakeChecker{e: newEngine(t, policy), answer: tc.answer}
			f := newFixture(t, fixtureOpts{protocol: "2025-11-25", opts: withChecker(chk)})
			res, err := f.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "test://private/b"})
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want %q", err, tc.wantErr)
				}
			case err != nil || len(res.Contents) != 1 || res.Contents[0].Text != tc.want:
				t.Errorf("read: %v %+v", err, res)
			}
		})
	}
}
