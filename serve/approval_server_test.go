package serve

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/store"
)

// TestApprovalLogNamesServer: an approval keeps the MCP server its call
// named; every log entry about it — the ask, the answer (web page and API),
// the use, the expiry — names that server; the page shows it, made
// visible; and a call naming another server does not use it.
func TestApprovalLogNamesServer(t *testing.T) {
	e := newEnv(t, nil, func(o *Options) { o.ApprovalTTL = time.Hour })
	ctx := context.Background()
	const srv = "fs\u202e" // a right-to-left override: the page must show it escaped
	call := func(tool, server string) string {
		return `{"tool":"` + tool + `","input":{"key":"k1"},"session":"s1","server":"` + server + `"}`
	}
	ask := func(body string) string {
		t.Helper()
		_, r := e.decide(e.agent, body)
		if r.Decision != "ask" || r.Approval == nil {
			t.Fatalf("%s: %+v, want an ask with an approval", body, r)
		}
		return r.Approval.ID
	}
	approved := ask(call("fetch_row", srv))
	denied := ask(call("drop_row", srv))
	expired := ask(call("put_row", srv))
	if a, err := e.srv.store.Approval(ctx, approved); err != nil || a.Server != srv {
		t.Fatalf("stored approval %+v, %v", a, err)
	}

	// The page shows the server, escaped; its form approves.
	c := pageClient(t)
	if code, _ := postForm(t, c, e.ts.URL+"/approvals/login", url.Values{"token": {e.approver}}, e.ts.URL); code != 303 {
		t.Fatalf("login: %d", code)
	}
	code, body, _ := get(t, c, e.ts.URL+"/approvals/"+approved)
	if code != 200 || !strings.Contains(body, `on MCP server <span class="server">fs\u202e</span>`) || strings.Contains(body, "\u202e") {
		t.Fatalf("the page does not show the server made visible: %d %s", code, body)
	}
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token")
	}
	if code, _ := postForm(t, c, e.ts.URL+"/approvals/"+approved+"/answer", url.Values{"action": {"once"}, "csrf": {m[1]}}, e.ts.URL); code != 303 {
		t.Fatalf("answer on the page: %d", code)
	}
	// A page with no server says nothing of one.
	plain := ask(`{"tool":"Bash","input":{"command":"git push"}}`)
	if _, body, _ := get(t, c, e.ts.URL+"/approvals/"+plain); strings.Contains(body, "MCP server") {
		t.Fatalf("a call with no server shows one: %s", body)
	}
	// The API denies the second.
	if code, body := e.do("POST", "/v1/approvals/"+denied+"/deny", e.approver, `{"note":"no"}`); code != 200 {
		t.Fatalf("deny: %d %s", code, body)
	}

	// The same tool and input on another server, or on none, is another
	// call: it asks and leaves the approval unused.
	for _, other := range []string{call("fetch_row", "other"), call("fetch_row", "")} {
		if id := ask(other); id == approved {
			t.Fatalf("%s found the approval for %q", other, srv)
		}
	}
	if _, r := e.decide(e.agent, call("fetch_row", srv)); r.Decision != "allow" || r.Reason.Kind != "approval" {
		t.Fatalf("the approved call: %+v", r)
	}

	// The third expires unanswered.
	e.clock.add(2 * time.Hour)
	e.srv.sweepOnce(ctx)

	e.srv.Close() // flushes the decision log
	entries, err := e.srv.store.QueryEntries(ctx, store.EntryFilter{Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ event, approval, outcome string }
	got := map[key]int{}
	for _, en := range entries {
		got[key{en.Event, en.Approval, en.Outcome}]++
	}
	for _, want := range []key{
		{"decision", approved, "ask"}, {"answer", approved, "allow"}, {"decision", approved, "allow"},
		{"decision", denied, "ask"}, {"answer", denied, "deny"},
		{"decision", expired, "ask"}, {"expire", expired, "deny"},
	} {
		if got[want] != 1 {
			t.Errorf("entries for server %q: %d of %+v, want 1; all: %+v", srv, got[want], want, entries)
		}
	}
	// Every entry about these approvals names the server.
	all, err := e.srv.store.QueryEntries(ctx, store.EntryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range all {
		if (en.Approval == approved || en.Approval == denied || en.Approval == expired) && en.Server != srv {
			t.Errorf("entry without the server: %+v", en)
		}
	}
}
