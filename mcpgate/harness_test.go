package mcpgate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/config"
)

// testPolicy is the policy of most tests. The upstream is named "up".
const testPolicy = `version: 1
default: deny
allow:
  - mcp__up__echo
  - mcp__up__read_thing
  - mcp__up__slow
  - mcp__up__crash
  - mcp__up__ask_user
  - mcp__up__erase
  - mcp__up__resources/read(uri:test://public/*)
  - Read(/srv/public/**)
deny:
  - mcp__up__write_thing(path:/etc/*)
ask:
  - mcp__up__write_thing
rewrite:
  - match: "mcp__up__echo(text:rewrite*)"
    set: {"/text": "rewritten"}
  - match: "mcp__up__echo(text:badrewrite*)"
    set: {"/text": 5}
`

// newEngine builds an engine from a policy file's text.
func newEngine(t testing.TB, policy string) *Engine {
	t.Helper()
	fsys := fstest.MapFS{"etc/policy.yaml": {Data: []byte(policy)}}
	cfg, _, err := config.Build(&config.Options{FS: fsys, Cwd: "/work", Home: "/home/u", Explicit: []string{"/etc/policy.yaml"}})
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	return toolgate.NewEngine(cfg)
}

// testUpstream is a Go MCP server standing in for a real one.
type testUpstream struct {
	server *mcp.Server
	mu     sync.Mutex
	calls  []string // "tool args" of every call it ran
	// release, when set, is waited for by the slow tool.
	release chan struct{}
	// sessions are its live sessions (one per proxy connection).
	sessions []*mcp.ServerSession
}

func objSchema(props map[string]string, required ...string) map[string]any {
	p := map[string]any{}
	for k, typ := range props {
		p[k] = map[string]any{"type": typ}
	}
	s := map[string]any{"type": "object", "properties": p}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func yes() *bool { b := true; return &b }

func newTestUpstream() *testUpstream {
	u := &testUpstream{}
	u.server = mcp.NewServer(&mcp.Implementation{Name: "test-upstream"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	add := func(t *mcp.Tool, h func(ctx context.Context, req *mcp.CallToolRequest, args map[string]any) *mcp.CallToolResult) {
		u.server.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			u.mu.Lock()
			u.calls = append(u.calls, t.Name+" "+string(req.Params.Arguments))
			u.mu.Unlock()
			return h(ctx, req, args), nil
		})
	}
	add(&mcp.Tool{Name: "echo", Description: "echoes text", InputSchema: objSchema(map[string]string{"text": "string"}, "text")},
		func(_ context.Context, _ *mcp.CallToolRequest, a map[string]any) *mcp.CallToolResult {
			return text(fmt.Sprint(a["text"]))
		})
	add(&mcp.Tool{Name: "read_thing", Description: "reads", InputSchema: objSchema(map[string]string{"path": "string"}),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, a map[string]any) *mcp.CallToolResult {
			return text("content of " + fmt.Sprint(a["path"]))
		})
	add(&mcp.Tool{Name: "write_thing", Description: "writes", InputSchema: objSchema(map[string]string{"path": "string", "content": "string"})},
		func(_ context.Context, _ *mcp.CallToolRequest, a map[string]any) *mcp.CallToolResult {
			return text("wrote " + fmt.Sprint(a["path"]))
		})
	add(&mcp.Tool{Name: "secret_tool", Description: "not in any rule", InputSchema: objSchema(nil)},
		func(context.Context, *mcp.CallToolRequest, map[string]any) *mcp.CallToolResult {
			return text("secret ran")
		})
	add(&mcp.Tool{Name: "erase", Description: "erases everything", InputSchema: objSchema(nil),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: yes()}},
		func(context.Context, *mcp.CallToolRequest, map[string]any) *mcp.CallToolResult { return text("erased") })
	add(&mcp.Tool{Name: "slow", Description: "waits", InputSchema: objSchema(nil)},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ map[string]any) *mcp.CallToolResult {
			u.mu.Lock()
			rel := u.release
			u.mu.Unlock()
			select {
			case <-rel:
			case <-ctx.Done():
			}
			return text("slow done")
		})
	add(&mcp.Tool{Name: "crash", Description: "the server dies", InputSchema: objSchema(nil)},
		func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) *mcp.CallToolResult {
			go req.Session.Close()
			<-ctx.Done()
			return text("never seen")
		})
	add(&mcp.Tool{Name: "ask_user", Description: "asks the user something", InputSchema: objSchema(nil)},
		func(_ context.Context, req *mcp.CallToolRequest, _ map[string]any) *mcp.CallToolResult {
			if r, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
				return text(r.Action + " " + fmt.Sprint(r.Content["name"]))
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{
				Message: "your name?", RequestedSchema: objSchema(map[string]string{"name": "string"})}}}
		})
	u.server.AddResource(&mcp.Resource{URI: "test://public/a", Name: "a"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://public/a", Text: "public a"}}}, nil
	})
	u.server.AddResource(&mcp.Resource{URI: "test://private/b", Name: "b"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://private/b", Text: "private b"}}}, nil
	})
	u.server.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	return u
}

// connect is an Options.Connect that serves the test upstream in memory.
func (u *testUpstream) connect(ctx context.Context, _ ServerSpec) (mcp.Transport, error) {
	a, b := mcp.NewInMemoryTransports()
	ss, err := u.server.Connect(ctx, a, nil)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	u.sessions = append(u.sessions, ss)
	u.mu.Unlock()
	return b, nil
}

func (u *testUpstream) ran() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.calls...)
}

// memSink is an audit sink that keeps events.
type memSink struct {
	mu     sync.Mutex
	events []*audit.Event
	fail   bool
}

func (s *memSink) Record(_ context.Context, e *audit.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return fmt.Errorf("sink broken")
	}
	s.events = append(s.events, e.Clone())
	return nil
}

func (s *memSink) Close() error { return nil }

func (s *memSink) all() []*audit.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*audit.Event(nil), s.events...)
}

// fixture is a proxy in front of a test upstream, and a client of it.
type fixture struct {
	up    *testUpstream
	proxy *Proxy
	sink  *memSink
	cs    *mcp.ClientSession
}

type fixtureOpts struct {
	policy   string
	protocol string // the client's protocol version; "" the latest
	elicit   func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
	toolsCh  chan struct{} // receives on downstream tools/list_changed
	opts     func(*Options)
	up       *testUpstream
	noMRTR   bool // the client answers input_required results itself
}

func newFixture(t *testing.T, fo fixtureOpts) *fixture {
	t.Helper()
	if fo.policy == "" {
		fo.policy = testPolicy
	}
	f := &fixture{up: fo.up, sink: &memSink{}}
	if f.up == nil {
		f.up = newTestUpstream()
	}
	opts := Options{Engine: newEngine(t, fo.policy), Servers: []ServerSpec{{Name: "up", Command: []string{"unused"}}},
		Connect: f.up.connect, Pin: PinOff, Audit: f.sink, Cwd: "/work", Home: "/home/u",
		CallTimeout: 5 * time.Second, AskTimeout: 5 * time.Second}
	if fo.opts != nil {
		fo.opts(&opts)
	}
	p, err := New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	f.proxy = p
	copts := &mcp.ClientOptions{ElicitationHandler: fo.elicit}
	if fo.noMRTR {
		copts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	if fo.toolsCh != nil {
		copts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case fo.toolsCh <- struct{}{}:
			default:
			}
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, copts)
	a, b := mcp.NewInMemoryTransports()
	if _, err := p.Server().Connect(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, b, &mcp.ClientSessionOptions{ProtocolVersion: fo.protocol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	f.cs = cs
	return f
}

// call calls a tool and returns its text and whether it is an error; a
// protocol error is returned as err.
func (f *fixture) call(t *testing.T, name string, args any) (string, bool, error) {
	t.Helper()
	res, err := f.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", false, err
	}
	return resultText(res), res.IsError, nil
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (f *fixture) toolNames(t *testing.T) []string {
	t.Helper()
	var names []string
	for tool, err := range f.cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// approve answers every elicitation with approve: true.
func approve(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
}
