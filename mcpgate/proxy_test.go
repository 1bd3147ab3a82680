package mcpgate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
)

// protocols are the two kinds of downstream session: stateful (elicitation
// requests) and 2026-07-28 (input_required with a request state).
var protocols = []string{"2025-11-25", "2026-07-28"}

func TestListFiltered(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{protocol: proto})
			got := f.toolNames(t)
			want := []string{"mcp__up__ask_user", "mcp__up__crash", "mcp__up__echo", "mcp__up__erase",
				"mcp__up__read_thing", "mcp__up__slow", "mcp__up__write_thing"}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("tools/list = %v\nwant %v", got, want)
			}
			_, _, err := f.call(t, "mcp__up__secret_tool", map[string]any{})
			if err == nil || !strings.Contains(err.Error(), "hidden by the policy") {
				t.Errorf("calling a hidden tool: err = %v, want a JSON-RPC error saying it is hidden by the policy", err)
			}
			if slices.ContainsFunc(f.up.ran(), func(s string) bool { return strings.HasPrefix(s, "secret_tool") }) {
				t.Error("the hidden tool ran upstream")
			}
			_, _, err = f.call(t, "mcp__up__nonexistent", map[string]any{})
			if err == nil {
				t.Error("calling an unknown tool: no error")
			}
		})
	}
}

func TestCall(t *testing.T) {
	hang := func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	answer := func(action string, content map[string]any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: action, Content: content}, nil
		}
	}
	tests := []struct {
		name   string
		tool   string
		args   map[string]any
		elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		// wantErr: the result is a denial holding every one of want; else the
		// upstream result's text is want[0].
		wantErr bool
		want    []string
		ran     string // the call the upstream must have run; "" none
		outcome toolgate.Outcome
	}{
		{name: "allow", tool: "mcp__up__echo", args: map[string]any{"text": "hi"}, want: []string{"hi"},
			ran: `echo {"text":"hi"}`, outcome: toolgate.Allow},
		{name: "deny with rule and position", tool: "mcp__up__write_thing", args: map[string]any{"path": "/etc/passwd", "content": "x"},
			wantErr: true, want: []string{"toolgate denied the call", `"mcp__up__write_thing(path:/etc/*)"`, "/etc/policy.yaml:13:5"},
			outcome: toolgate.Deny},
		{name: "modify", tool: "mcp__up__echo", args: map[string]any{"text": "rewrite me"}, want: []string{"rewritten"},
			ran: `echo {"text":"rewritten"}`, outcome: toolgate.Modify},
		{name: "modify outside the schema", tool: "mcp__up__echo", args: map[string]any{"text": "badrewrite"},
			wantErr: true, want: []string{"do not fit the tool's input schema"}, outcome: toolgate.Deny},
		{name: "ask, client cannot be asked", tool: "mcp__up__write_thing", args: map[string]any{"path": "/tmp/x"},
			wantErr: true, want: []string{"cannot be asked", "elicitation capability", `"mcp__up__write_thing"`}, outcome: toolgate.Deny},
		{name: "ask accepted", tool: "mcp__up__write_thing", args: map[string]any{"path": "/tmp/x"}, elicit: approve,
			want: []string{"wrote /tmp/x"}, ran: `write_thing {"path":"/tmp/x"}`, outcome: toolgate.Allow},
		{name: "ask accepted without the tick", tool: "mcp__up__write_thing", args: map[string]any{"path": "/tmp/x"},
			elicit: answer("accept", map[string]any{"approve": false}), wantErr: true, want: []string{"did not tick approve"}, outcome: toolgate.Deny},
		{name: "ask declined", tool: "mcp__up__write_thing", args: map[string]any{"path": "/tmp/x"},
			elicit: answer("decline", nil), wantErr: true, want: []string{"the person declined"}, outcome: toolgate.Deny},
		{name: "ask cancelled", tool: "mcp__up__write_thing", args: map[string]any{"path": "/tmp/x"},
			elicit: answer("cancel", nil), wantErr: true, want: []string{"dismissed"}, outcome: toolgate.Deny},
		{name: "destructive annotation, allowed by a rule", tool: "mcp__up__erase", args: map[string]any{},
			want: []string{"erased"}, ran: "erase {}", outcome: toolgate.Allow},
	}
	for _, proto := range protocols {
		for _, tc := range tests {
			t.Run(proto+"/"+tc.name, func(t *testing.T) {
				f := newFixture(t, fixtureOpts{protocol: proto, elicit: tc.elicit})
				text, isErr, err := f.call(t, tc.tool, tc.args)
				if err != nil {
					t.Fatalf("protocol error: %v", err)
				}
				if isErr != tc.wantErr {
					t.Fatalf("isError = %v, want %v; text: %s", isErr, tc.wantErr, text)
				}
				if tc.wantErr {
					for _, w := range tc.want {
						if !strings.Contains(text, w) {
							t.Errorf("denial %q\ndoes not contain %q", text, w)
						}
					}
				} else if text != tc.want[0] {
					t.Errorf("result = %q, want %q", text, tc.want[0])
				}
				ran := f.up.ran()
				if tc.ran == "" && tc.wantErr && len(ran) > 0 {
					t.Errorf("denied, yet the upstream ran %v", ran)
				}
				if tc.ran != "" && !slices.Contains(ran, tc.ran) {
					t.Errorf("upstream ran %v, want %q", ran, tc.ran)
				}
				evs := f.sink.all()
				if len(evs) != 1 {
					t.Fatalf("%d audit events, want 1", len(evs))
				}
				ev := evs[0]
				if ev.Outcome != tc.outcome || ev.Tool != tc.tool || ev.InputDigest == "" {
					t.Errorf("audit event: outcome %v tool %q digest %q; want %v %q", ev.Outcome, ev.Tool, ev.InputDigest, tc.outcome, tc.tool)
				}
				if ev.Server != "up" || ev.Latency <= 0 || ev.Latency < ev.EvalTime {
					t.Errorf("audit event: server %q latency %v (eval %v); want server \"up\" and the whole latency", ev.Server, ev.Latency, ev.EvalTime)
				}
			})
		}
	}
	t.Run("upstream elicitation relayed", func(t *testing.T) {
		for _, proto := range protocols {
			f := newFixture(t, fixtureOpts{protocol: proto, elicit: answer("accept", map[string]any{"name": "ada"})})
			text, isErr, err := f.call(t, "mcp__up__ask_user", map[string]any{})
			if err != nil {
				t.Fatal(err)
			}
			// A 2026-07-28 session cannot be sent a request in the middle
			// of a call: the relay fails, and says so.
			if want := proto < "2026-07-28"; want != !isErr || (want && text != "accept ada") || (!want && !strings.Contains(text, "cannot be asked in the middle of a call")) {
				t.Errorf("%s: %q isError=%v", proto, text, isErr)
			}
		}
	})
	t.Run("ask timed out", func(t *testing.T) {
		f := newFixture(t, fixtureOpts{protocol: "2025-11-25", elicit: hang, opts: func(o *Options) { o.AskTimeout = 100 * time.Millisecond }})
		text, isErr, err := f.call(t, "mcp__up__write_thing", map[string]any{"path": "/tmp/x"})
		if err != nil || !isErr || !strings.Contains(text, "nobody answered") {
			t.Errorf("got %q isError=%v err=%v; want a denial saying nobody answered", text, isErr, err)
		}
		if len(f.up.ran()) != 0 {
			t.Errorf("upstream ran %v", f.up.ran())
		}
	})
}

func TestDestructiveAnnotationAsks(t *testing.T) {
	// With default allow, a tool that declares itself destructive is asked
	// about: its own annotation makes the call stricter.
	policy := "version: 1\ndefault: allow\n"
	f := newFixture(t, fixtureOpts{policy: policy, protocol: "2025-11-25"})
	text, isErr, _ := f.call(t, "mcp__up__erase", map[string]any{})
	if !isErr || !strings.Contains(text, "declares mcp__up__erase destructive") {
		t.Errorf("erase under default allow: %q isError=%v; want an ask that cannot be put, naming the annotation", text, isErr)
	}
	// The same default allows a tool that declares nothing.
	if text, isErr, _ := f.call(t, "mcp__up__echo", map[string]any{"text": "x"}); isErr || text != "x" {
		t.Errorf("echo: %q isError=%v", text, isErr)
	}
}

func TestTrustedAnnotations(t *testing.T) {
	policy := "version: 1\ndefault: allow\n"
	probe := newFixture(t, fixtureOpts{policy: policy})
	lock := &Lock{}
	var tools []*mcp.Tool
	for tool, err := range probe.proxy.byName["up"].cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	if _, _, _, err := lock.Set("up", tools); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		server     bool
		tools      map[string]bool
		wantErased bool
	}{
		{name: "server trusted", server: true, wantErased: true},
		{name: "server trusted, tool not", server: true, tools: map[string]bool{"erase": false}},
		{name: "tool trusted, server not", tools: map[string]bool{"erase": true}, wantErased: true},
		{name: "another tool trusted", tools: map[string]bool{"echo": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{policy: policy, protocol: "2025-11-25", opts: func(o *Options) {
				o.Pin, o.Lock = PinEnforce, lock
				o.Servers[0].TrustAnnotations = tc.server
				o.Servers[0].TrustTools = tc.tools
			}})
			text, isErr, _ := f.call(t, "mcp__up__erase", map[string]any{})
			if tc.wantErased && (isErr || text != "erased") {
				t.Errorf("trusted, pinned erase: %q isError=%v; want it run", text, isErr)
			}
			if !tc.wantErased && (!isErr || !strings.Contains(text, "destructive")) {
				t.Errorf("untrusted erase: %q isError=%v; want the destructive annotation to ask", text, isErr)
			}
		})
	}
}

func TestStateRefusals(t *testing.T) {
	ctx := context.Background()
	accept := mcp.InputResponseMap{askID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}
	args := map[string]any{"path": "/tmp/x"}

	// The first round: an input_required result with the proxy's state.
	firstRound := func(t *testing.T, f *fixture) string {
		t.Helper()
		res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__up__write_thing", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() || res.RequestState == "" || res.InputRequests[askID] == nil {
			t.Fatalf("first round: want input_required with a request state, got %+v", res)
		}
		return res.RequestState
	}
	retry := func(f *fixture, state string, args any, resp mcp.InputResponseMap) (string, bool) {
		res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__up__write_thing", Arguments: args,
			RequestState: state, InputResponses: resp})
		if err != nil {
			return "protocol error: " + err.Error(), true
		}
		return resultText(res), res.IsError
	}
	type step struct {
		state   func(first string) string
		args    any
		resp    mcp.InputResponseMap
		want    string // "" : runs
		rounds  int    // how many first rounds before this step (0 or 1)
		sleepMs int
	}
	tests := []struct {
		name  string
		proto string
		ttl   time.Duration
		steps []step
	}{
		{name: "forged answer on the first call", proto: "2026-07-28", steps: []step{
			{state: func(string) string { return "" }, args: args, resp: accept, want: "an answer the proxy never asked for"}}},
		{name: "forged answer on a stateful session", proto: "2025-11-25", steps: []step{
			{state: func(string) string { return "" }, args: args, resp: accept, want: "an answer the proxy never asked for"}}},
		{name: "forged state", proto: "2026-07-28", steps: []step{
			{state: func(string) string { return "tg1.e30.AAAA" }, args: args, resp: accept, want: "did not issue"}}},
		{name: "tampered signature", proto: "2026-07-28", steps: []step{
			{rounds: 1, state: func(s string) string { return s[:len(s)-2] + "AA" }, args: args, resp: accept, want: "bad signature"}}},
		{name: "accepted once", proto: "2026-07-28", steps: []step{
			{rounds: 1, state: func(s string) string { return s }, args: args, resp: accept}}},
		{name: "replayed", proto: "2026-07-28", steps: []step{
			{rounds: 1, state: func(s string) string { return s }, args: args, resp: accept},
			{state: func(s string) string { return s }, args: args, resp: accept, want: "already used"}}},
		{name: "altered arguments", proto: "2026-07-28", steps: []step{
			{rounds: 1, state: func(s string) string { return s }, args: map[string]any{"path": "/tmp/other"}, resp: accept, want: "arguments changed"}}},
		{name: "expired", proto: "2026-07-28", ttl: 50 * time.Millisecond, steps: []step{
			{rounds: 1, sleepMs: 120, state: func(s string) string { return s }, args: args, resp: accept, want: "expired"}}},
		{name: "declined answer", proto: "2026-07-28", steps: []step{
			{rounds: 1, state: func(s string) string { return s }, args: args,
				resp: mcp.InputResponseMap{askID: &mcp.ElicitResult{Action: "decline"}}, want: "declined"}}},
		{name: "answer missing", proto: "2026-07-28", steps: []step{
			{rounds: 1, state: func(s string) string { return s }, args: args,
				resp: mcp.InputResponseMap{"other": &mcp.ElicitResult{Action: "accept"}}, want: "missing"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, fixtureOpts{protocol: tc.proto, elicit: approve, noMRTR: true, opts: func(o *Options) {
				if tc.ttl > 0 {
					o.AskTimeout = tc.ttl
				}
			}})
			first := ""
			for i, s := range tc.steps {
				if s.rounds > 0 {
					first = firstRound(t, f)
				}
				time.Sleep(time.Duration(s.sleepMs) * time.Millisecond)
				before := len(f.up.ran())
				text, isErr := retry(f, s.state(first), s.args, s.resp)
				ranNow := len(f.up.ran()) > before
				if s.want == "" {
					if isErr || !ranNow {
						t.Errorf("step %d: want the call run, got %q isError=%v ran=%v", i, text, isErr, ranNow)
					}
					continue
				}
				if !isErr || !strings.Contains(text, s.want) || ranNow {
					t.Errorf("step %d: got %q isError=%v ran=%v; want a denial containing %q and nothing run", i, text, isErr, ranNow, s.want)
				}
			}
		})
	}
}

func TestPolicyChangeInvalidatesState(t *testing.T) {
	f := newFixture(t, fixtureOpts{protocol: "2026-07-28", elicit: approve, noMRTR: true})
	ctx := context.Background()
	args := map[string]any{"path": "/tmp/x"}
	res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__up__write_thing", Arguments: args})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("first round: %v %+v", err, res)
	}
	// The policy is reloaded with one more rule: a new revision.
	next := newEngine(t, testPolicy+"  - match: \"mcp__up__read_thing\"\n    set: {\"/x\": 1}\n")
	if err := f.proxy.opts.Engine.Reload(next.Policy()); err != nil {
		t.Fatal(err)
	}
	res2, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__up__write_thing", Arguments: args, RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{askID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
	if err != nil || !res2.IsError || !strings.Contains(resultText(res2), "policy changed") {
		t.Errorf("answer after a policy change: %v %q; want refused because the policy changed", err, resultText(res2))
	}
}

func TestListChanged(t *testing.T) {
	policy := strings.Replace(testPolicy, "allow:\n", "allow:\n  - mcp__up__new_*\n", 1)
	ch := make(chan struct{}, 1)
	f := newFixture(t, fixtureOpts{policy: policy, protocol: "2025-11-25", toolsCh: ch})
	waitFor := func(what string, cond func([]string) bool) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			if cond(f.toolNames(t)) {
				return
			}
			select {
			case <-ch:
			case <-time.After(50 * time.Millisecond):
			case <-deadline:
				t.Fatalf("timed out waiting until %s; tools: %v", what, f.toolNames(t))
			}
		}
	}
	f.up.server.AddTool(&mcp.Tool{Name: "new_tool", InputSchema: objSchema(nil)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil
	})
	f.up.server.AddTool(&mcp.Tool{Name: "hidden_new", InputSchema: objSchema(nil)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("must not run")
	})
	waitFor("new_tool is listed", func(n []string) bool { return slices.Contains(n, "mcp__up__new_tool") })
	if n := f.toolNames(t); slices.Contains(n, "mcp__up__hidden_new") {
		t.Errorf("a new tool the policy hides is listed: %v", n)
	}
	if text, isErr, err := f.call(t, "mcp__up__new_tool", map[string]any{}); err != nil || isErr || text != "new" {
		t.Errorf("new tool: %q %v %v", text, isErr, err)
	}
	f.up.server.RemoveTools("echo")
	waitFor("echo is gone", func(n []string) bool { return !slices.Contains(n, "mcp__up__echo") })
	if _, _, err := f.call(t, "mcp__up__echo", map[string]any{"text": "x"}); err == nil {
		t.Error("a removed tool can still be called")
	}
}

func TestUpstreamCrashAndTimeout(t *testing.T) {
	f := newFixture(t, fixtureOpts{protocol: "2025-11-25", opts: func(o *Options) { o.CallTimeout = 300 * time.Millisecond }})
	text, isErr, err := f.call(t, "mcp__up__crash", map[string]any{})
	if err != nil || !isErr || !strings.Contains(text, `"up"`) {
		t.Fatalf("crash mid-call: %q isError=%v err=%v; want a denial naming the server", text, isErr, err)
	}
	// The server is restarted; echo works again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		text, isErr, _ := f.call(t, "mcp__up__echo", map[string]any{"text": "back"})
		if !isErr && text == "back" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the crashed server did not come back: %q", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.up.mu.Lock()
	f.up.release = make(chan struct{})
	f.up.mu.Unlock()
	start := time.Now()
	text, isErr, err = f.call(t, "mcp__up__slow", map[string]any{})
	if err != nil || !isErr || !strings.Contains(text, "did not answer within") {
		t.Errorf("slow server: %q isError=%v err=%v; want a timeout denial", text, isErr, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the timeout took %s", d)
	}
}

func TestAuditFailureStopsCall(t *testing.T) {
	f := newFixture(t, fixtureOpts{protocol: "2025-11-25"})
	f.sink.mu.Lock()
	f.sink.fail = true
	f.sink.mu.Unlock()
	text, isErr, _ := f.call(t, "mcp__up__echo", map[string]any{"text": "x"})
	if !isErr || !strings.Contains(text, "audit log") || len(f.up.ran()) != 0 {
		t.Errorf("with a broken audit sink: %q isError=%v ran=%v; want a denial and nothing run", text, isErr, f.up.ran())
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	f := newFixture(t, fixtureOpts{protocol: "2025-11-25"})
	ctx := context.Background()
	res, err := f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://public/a"})
	if err != nil || len(res.Contents) != 1 || res.Contents[0].Text != "public a" {
		t.Errorf("allowed resource: %v %+v", err, res)
	}
	_, err = f.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://private/b"})
	if err == nil || !strings.Contains(err.Error(), "toolgate denied the read") {
		t.Errorf("denied resource: err = %v", err)
	}
	var names []string
	for p, err := range f.cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"up__greet"}) {
		t.Errorf("prompts = %v", names)
	}
	pr, err := f.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "up__greet"})
	if err != nil || len(pr.Messages) != 1 {
		t.Errorf("prompt: %v %+v", err, pr)
	}
	evs := f.sink.all()
	if len(evs) != 3 || evs[0].Outcome != toolgate.Allow || evs[1].Outcome != toolgate.Deny ||
		evs[2].Tool != "mcp__up__prompts/get" || evs[2].Outcome != toolgate.Allow {
		t.Errorf("audit of the two reads and the prompt: %d events", len(evs))
	}
}

func TestKeepNames(t *testing.T) {
	f := newFixture(t, fixtureOpts{protocol: "2025-11-25", opts: func(o *Options) { o.KeepNames = true }})
	got := f.toolNames(t)
	slices.Sort(got)
	want := []string{"ask_user", "crash", "echo", "erase", "read_thing", "slow", "write_thing"}
	if !slices.Equal(got, want) {
		t.Errorf("tools/list = %v, want %v", got, want)
	}
	if text, isErr, _ := f.call(t, "echo", map[string]any{"text": "hi"}); isErr || text != "hi" {
		t.Errorf("echo: %q %v", text, isErr)
	}
	text, isErr, _ := f.call(t, "write_thing", map[string]any{"path": "/etc/x"})
	if !isErr || !strings.Contains(text, `"mcp__up__write_thing(path:/etc/*)"`) {
		t.Errorf("write_thing /etc/x: %q %v; want denied by the mcp__up__ rule", text, isErr)
	}
	if _, _, err := f.call(t, "secret_tool", map[string]any{}); err == nil || !strings.Contains(err.Error(), "mcp__up__secret_tool is hidden by the policy") {
		t.Errorf("hidden tool: %v", err)
	}
	if _, err := New(&Options{Engine: f.proxy.opts.Engine, Cwd: "/", KeepNames: true, Servers: []ServerSpec{{Name: "a"}, {Name: "b"}}}); err == nil {
		t.Error("KeepNames with two servers: no error")
	}
}

func TestProgressToken(t *testing.T) {
	// Claude Code sends a numeric progress token; it arrives as a JSON
	// number and must be passed on, not break the call.
	f := newFixture(t, fixtureOpts{protocol: "2025-11-25"})
	for _, tok := range []any{7, "tok-1"} {
		params := &mcp.CallToolParams{Name: "mcp__up__echo", Arguments: map[string]any{"text": "with progress"}}
		params.SetProgressToken(tok)
		res, err := f.cs.CallTool(context.Background(), params)
		if err != nil || res.IsError || resultText(res) != "with progress" {
			t.Errorf("progress token %v: %v %q", tok, err, resultText(res))
		}
	}
	for in, want := range map[any]any{1.0: int64(1), 1.5: nil, "s": "s", true: nil, nil: nil} {
		if got := progressToken(in); got != want {
			t.Errorf("progressToken(%v) = %v, want %v", in, got, want)
		}
	}
}

// With DenyAsks a call that needs approval is denied without asking, even
// a client that would approve it, on both protocol versions.
func TestDenyAsks(t *testing.T) {
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(proto, func(t *testing.T) {
			asked := false
			f := newFixture(t, fixtureOpts{protocol: proto, noMRTR: true,
				elicit: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = true
					return approve(ctx, r)
				},
				opts: func(o *Options) { o.DenyAsks = true }})
			text, isErr, err := f.call(t, "mcp__up__write_thing", map[string]any{"path": "/tmp/x"})
			if err != nil {
				t.Fatal(err)
			}
			if !isErr || !strings.Contains(text, "this gateway does not ask") || asked {
				t.Fatalf("got %q (isError %v, asked %v), want a denial without asking", text, isErr, asked)
			}
			if ran := f.up.ran(); len(ran) != 0 {
				t.Fatalf("the upstream ran %q", ran)
			}
		})
	}
}
