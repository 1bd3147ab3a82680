package mcpgate

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
)

// sessionChecker stands in for a decision service with session rules:
// a session with rules of its own is decided, and shown tools, by its own
// engine (the policy plus its rules), every other session by the base
// engine.
type sessionChecker struct {
	base *Engine

	mu    sync.Mutex
	by    map[string]*Engine
	fail  error
	asked int // visibility requests
}

func (s *sessionChecker) engine(session string) *Engine {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.by[session]; e != nil {
		return e
	}
	return s.base
}

// addRule gives session a rule of its own.
func (s *sessionChecker) addRule(t *testing.T, session string, eff toolgate.Effect, rule string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[string]*Engine{}
	}
	if s.by[session] == nil {
		s.by[session] = newEngine(t, testPolicy)
	}
	if err := s.by[session].AddSessionRule(eff, rule); err != nil {
		t.Fatal(err)
	}
}

func (s *sessionChecker) setFail(err error) {
	s.mu.Lock()
	s.fail = err
	s.mu.Unlock()
}

func (s *sessionChecker) Decide(c toolgate.Call) toolgate.Decision {
	return s.engine(c.Session).Decide(c)
}

func (s *sessionChecker) SessionExposedTools(_ context.Context, session string, tools []string) (map[string]bool, error) {
	s.mu.Lock()
	s.asked++
	err := s.fail
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	e := s.engine(session)
	m := map[string]bool{}
	for _, t := range tools {
		m[t] = e.ExposeToModel(t)
	}
	return m, nil
}

// ExposedTools is what a service answers for every session; the proxy
// must not use it when it can ask per session.
func (s *sessionChecker) ExposedTools(context.Context, []string) (map[string]bool, error) {
	return nil, errors.New("asked for the shared listing")
}

// httpSession is a client of the proxy over streamable HTTP (each with a
// session id of its own), told when its tool list changed.
type httpSession struct {
	cs      *mcp.ClientSession
	changed chan struct{}
}

func connectHTTP(t *testing.T, url string) *httpSession {
	t.Helper()
	s := &httpSession{changed: make(chan struct{}, 8)}
	client := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case s.changed <- struct{}{}:
			default:
			}
		}})
	hc := &http.Client{Transport: headerTransport{headers: map[string]string{"Authorization": "Bearer 0123456789abcdef"}, next: http.DefaultTransport}}
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if cs.ID() == "" {
		t.Fatal("an HTTP session without an id")
	}
	t.Cleanup(func() { cs.Close() })
	s.cs = cs
	return s
}

func (s *httpSession) tools(t *testing.T) []string {
	t.Helper()
	f := &fixture{cs: s.cs}
	names := f.toolNames(t)
	slices.Sort(names)
	return names
}

func (s *httpSession) call(t *testing.T, name string) (string, bool, error) {
	t.Helper()
	f := &fixture{cs: s.cs}
	return f.call(t, name, map[string]any{})
}

// waitChanged waits for the session to be told its tool list changed.
func (s *httpSession) waitChanged(t *testing.T, what string) {
	t.Helper()
	select {
	case <-s.changed:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no tools/list_changed", what)
	}
}

// TestSessionVisibility: with a checker that answers per session, a
// session's own rules show it a tool the policy hides, or hide one the
// policy shows, for that session only; calling a tool the session is not
// shown is the JSON-RPC "hidden" error; when the checker cannot answer the
// session is shown nothing, and it is told the list changed when the
// checker fails and when it answers again.
func TestSessionVisibility(t *testing.T) {
	chk := &sessionChecker{base: newEngine(t, testPolicy)}
	f := newFixture(t, fixtureOpts{protocol: "2025-11-25", opts: withChecker(chk)})
	h, err := f.proxy.HTTPHandler("0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close) // after the clients' own cleanups
	a, b := connectHTTP(t, srv.URL), connectHTTP(t, srv.URL)
	chk.addRule(t, a.cs.ID(), toolgate.EffectAllow, "mcp__up__secret_tool")
	chk.addRule(t, a.cs.ID(), toolgate.EffectDeny, "mcp__up__echo")

	base := []string{"mcp__up__ask_user", "mcp__up__crash", "mcp__up__echo", "mcp__up__erase",
		"mcp__up__read_thing", "mcp__up__slow", "mcp__up__write_thing"}
	forA := []string{"mcp__up__ask_user", "mcp__up__crash", "mcp__up__erase",
		"mcp__up__read_thing", "mcp__up__secret_tool", "mcp__up__slow", "mcp__up__write_thing"}
	if got := a.tools(t); !slices.Equal(got, forA) {
		t.Errorf("session A lists %v\nwant %v", got, forA)
	}
	if got := b.tools(t); !slices.Equal(got, base) {
		t.Errorf("session B lists %v\nwant %v", got, base)
	}
	// The in-memory (stdio-like) session has no id: the proxy's own, with
	// no rules, sees the base listing.
	if got := f.toolNames(t); !slices.Contains(got, "mcp__up__echo") || slices.Contains(got, "mcp__up__secret_tool") {
		t.Errorf("the session without an id lists %v", got)
	}

	expectHidden := func(s *httpSession, tool string) {
		t.Helper()
		text, _, err := s.call(t, tool)
		if err == nil || !strings.Contains(err.Error(), "hidden by the policy") {
			t.Errorf("%s: %q, %v; want the JSON-RPC hidden error", tool, text, err)
		}
	}
	if text, isErr, err := a.call(t, "mcp__up__secret_tool"); err != nil || isErr {
		t.Errorf("session A's secret_tool: %q isError=%v err=%v", text, isErr, err)
	}
	expectHidden(a, "mcp__up__echo")
	expectHidden(b, "mcp__up__secret_tool")
	if text, isErr, err := b.call(t, "mcp__up__echo"); err != nil || isErr {
		t.Errorf("session B's echo: %q isError=%v err=%v", text, isErr, err)
	}
	// A session that calls without listing first is asked about the tool.
	c := connectHTTP(t, srv.URL)
	expectHidden(c, "mcp__up__secret_tool")
	if n := strings.Count(strings.Join(f.up.ran(), "\n"), "secret_tool"); n != 1 {
		t.Errorf("secret_tool ran %d times upstream, want once (session A's call): %v", n, f.up.ran())
	}

	// The checker fails: every session that listed is told, and is shown
	// nothing; calls are the hidden error.
	chk.setFail(errors.New("unreachable"))
	f.proxy.Refilter(context.Background())
	a.waitChanged(t, "after the checker failed")
	if got := a.tools(t); len(got) != 0 {
		t.Errorf("while the checker fails, session A lists %v", got)
	}
	expectHidden(a, "mcp__up__secret_tool")
	// It answers again: told again, and shown its tools again.
	chk.setFail(nil)
	f.proxy.Refilter(context.Background())
	a.waitChanged(t, "after the checker answered again")
	if got := a.tools(t); !slices.Equal(got, forA) {
		t.Errorf("after the checker answered again, session A lists %v\nwant %v", got, forA)
	}

	// A rule given to session B while it runs reaches its listing at the
	// next recheck, which tells it the list changed.
	for len(b.changed) > 0 {
		<-b.changed
	}
	chk.addRule(t, b.cs.ID(), toolgate.EffectAllow, "mcp__up__secret_tool")
	f.proxy.RecheckSessions(context.Background())
	b.waitChanged(t, "after session B was given a rule")
	if got := b.tools(t); !slices.Contains(got, "mcp__up__secret_tool") {
		t.Errorf("after its rule, session B lists %v", got)
	}
}
