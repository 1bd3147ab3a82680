package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/serve"
)

// fakeService answers the decision service's endpoints the gateway uses.
type fakeService struct {
	mu       sync.Mutex
	revision string
	decision string // the body of /v1/decide
	status   int    // its status (0: 200)
	down     bool   // every request fails with 503 and no decision
	bodies   []string
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	f.bodies = append(f.bodies, r.Method+" "+r.URL.Path+" "+string(b))
	if f.down {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/policy":
		json.NewEncoder(w).Encode(map[string]string{"revision": f.revision})
	case "/v1/visibility":
		var req struct{ Tools []string }
		json.Unmarshal(b, &req)
		out := map[string]bool{}
		for _, t := range req.Tools {
			out[t] = !strings.HasSuffix(t, "__hidden")
		}
		json.NewEncoder(w).Encode(map[string]any{"revision": f.revision, "tools": out})
	case "/v1/decide":
		if f.status != 0 {
			w.WriteHeader(f.status)
		}
		io.WriteString(w, f.decision)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeService) set(fn func(*fakeService)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func newFakeRemote(t *testing.T) (*fakeService, *mcpRemote) {
	f := &fakeService{revision: "rev1"}
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return f, &mcpRemote{client: &serve.Client{URL: ts.URL, Token: "tok", HTTP: ts.Client()}}
}

func TestMCPRemoteDecide(t *testing.T) {
	f, r := newFakeRemote(t)
	call := toolgate.Call{Tool: "mcp__fs__read_file", Server: "fs", Session: "mcp-1", Input: json.RawMessage(`{"path":"a"}`), Cwd: "/w"}
	tests := []struct {
		name     string
		decision string
		status   int
		down     bool
		outcome  toolgate.Outcome
		reason   string
	}{
		{name: "allow", decision: `{"decision":"allow","reason":{"kind":"rule","rule":"mcp__fs__read_file"},"reasons":[{"kind":"rule","rule":"mcp__fs__read_file"}],"revision":"rev2"}`,
			outcome: toolgate.Allow},
		{name: "deny with the service's reason", decision: `{"decision":"deny","reason":{"kind":"rule","rule":"mcp__fs__*"},"reasons":[{"kind":"rule","rule":"mcp__fs__*"}],"revision":"rev2"}`,
			outcome: toolgate.Deny, reason: "mcp__fs__*"},
		{name: "refused token", status: 401, decision: `{"decision":"deny","reason":{"kind":"error","message":"missing or unknown bearer token"},"reasons":[{"kind":"error","message":"missing or unknown bearer token"}],"revision":"rev2"}`,
			outcome: toolgate.Deny, reason: "unknown bearer token"},
		{name: "allow with an error status", status: 500, decision: `{"decision":"allow","reason":{"kind":"rule"},"reasons":[],"revision":"rev2"}`,
			outcome: toolgate.Deny, reason: "the toolgate server cannot decide"},
		{name: "down", down: true, outcome: toolgate.Deny, reason: "the toolgate server cannot decide"},
		{name: "not JSON", decision: `<html>`, outcome: toolgate.Deny, reason: "the toolgate server cannot decide"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.set(func(f *fakeService) { f.decision, f.status, f.down, f.bodies = tc.decision, tc.status, tc.down, nil })
			d := r.Decide(call)
			if d.Outcome != tc.outcome {
				t.Errorf("outcome %v, want %v (%v)", d.Outcome, tc.outcome, d)
			}
			if got := d.Reason().Rule + d.Reason().Message; !strings.Contains(got, tc.reason) {
				t.Errorf("reason %q, want %q", got, tc.reason)
			}
			f.set(func(f *fakeService) {
				if len(f.bodies) != 1 || !strings.Contains(f.bodies[0], `"server":"fs"`) || !strings.Contains(f.bodies[0], `"session":"mcp-1"`) {
					t.Errorf("requests %q; want one carrying the server and the session", f.bodies)
				}
			})
		})
	}
	if r.Revision() != "rev2" {
		t.Errorf("revision %q, want the one the service last answered with", r.Revision())
	}
}

func TestMCPRemoteAwaitPending(t *testing.T) {
	f, r := newFakeRemote(t)
	f.set(func(f *fakeService) {
		f.decision = `{"decision":"ask","reason":{"kind":"rule","rule":"mcp__fs__write_file"},"reasons":[{"kind":"rule","rule":"mcp__fs__write_file"}],` +
			`"revision":"rev1","approval":{"id":"ap_1","state":"pending","expires":"2030-01-01T00:00:00Z","url":"https://tg/approvals/ap_1"}}`
	})
	d, pending := r.AwaitApproval(context.Background(), toolgate.Call{Tool: "mcp__fs__write_file", Cwd: "/w"})
	want := `approval pending: ap_1 — approve it at https://tg/approvals/ap_1 (or with "toolgate approvals approve ap_1"), then retry the call`
	if d.Outcome != toolgate.Ask || pending != want {
		t.Errorf("got %v %q\nwant ask %q", d, pending, want)
	}
	if got := approvalPending(&serve.ApprovalRef{ID: "ap_2"}); !strings.Contains(got, `approve it with "toolgate approvals approve ap_2"`) {
		t.Errorf("without a URL: %q", got)
	}
	f.set(func(f *fakeService) { f.down = true })
	if d, pending := r.AwaitApproval(context.Background(), toolgate.Call{Tool: "mcp__fs__write_file", Cwd: "/w"}); d.Outcome != toolgate.Deny || pending != "" {
		t.Errorf("service down: %v %q", d, pending)
	}
}

// TestMCPRemoteFollow: the tools are filtered again when the service's
// revision is not the one they were filtered with, and after a
// visibility request failed; not otherwise.
func TestMCPRemoteFollow(t *testing.T) {
	f, r := newFakeRemote(t)
	var refilters atomic.Int32
	var shown atomic.Value
	refilter := func(ctx context.Context) {
		m, _ := r.ExposedTools(ctx, []string{"mcp__fs__a", "mcp__fs__hidden"})
		shown.Store(m) // before the count the test waits for
		refilters.Add(1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.follow(ctx, refilter, 10*time.Millisecond, slog.New(slog.DiscardHandler))
	}()
	defer func() { cancel(); <-done }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("%s: %d refilters", what, refilters.Load())
			}
		}
	}
	// Never filtered with the service's answer: filtered at once.
	waitFor("first filter", func() bool { return refilters.Load() == 1 })
	if m, _ := shown.Load().(map[string]bool); !m["mcp__fs__a"] || m["mcp__fs__hidden"] {
		t.Errorf("visibility %v", m)
	}
	time.Sleep(60 * time.Millisecond)
	if n := refilters.Load(); n != 1 {
		t.Errorf("%d refilters with an unchanged revision", n)
	}
	// A reload on the service: filtered again.
	f.set(func(f *fakeService) { f.revision = "rev2" })
	waitFor("after a reload", func() bool { return refilters.Load() == 2 })
	// The service down: nothing to do until it answers again.
	f.set(func(f *fakeService) { f.down = true })
	time.Sleep(60 * time.Millisecond)
	if n := refilters.Load(); n != 2 {
		t.Errorf("%d refilters while the service was down", n)
	}
	// A visibility request that failed is made again once the service is back.
	if _, err := r.ExposedTools(ctx, []string{"mcp__fs__a"}); err == nil {
		t.Fatal("visibility while down: no error")
	}
	f.set(func(f *fakeService) { f.down = false })
	waitFor("after the service came back", func() bool { return refilters.Load() == 3 })
}
