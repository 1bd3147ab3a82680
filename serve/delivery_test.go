package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/store"
)

// openSQLiteStore opens a SQLite store that outlives the servers of one
// test.
func openSQLiteStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "shared.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// running runs e's background work until the returned stop is called.
func running(e *testEnv) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.srv.Run(ctx); close(done) }()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); <-done }) }
	e.t.Cleanup(stop)
	return stop
}

// waitDelivery waits (up to 10 s) until delivery id's stored record
// satisfies ok, and returns it.
func waitDelivery(t *testing.T, st store.Store, id string, ok func(store.Delivery) bool) store.Delivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := storedDelivery(t, st, id)
		if ok(d) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery %s never got there: %+v", id, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// onlyDelivery is the one delivery in st.
func onlyDelivery(t *testing.T, st store.Store) store.Delivery {
	t.Helper()
	list, err := st.Deliveries(context.Background(), store.DeliveryFilter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("deliveries %+v, %v; want one", list, err)
	}
	return list[0]
}

// TestWebhookDeliveryAfterRestart: a delivery whose first attempt failed
// when its server stopped is sent by the next server on the same store,
// not before its backoff is over, with the same id and body, its attempts
// counted across the restart.
func TestWebhookDeliveryAfterRestart(t *testing.T) {
	st := openSQLiteStore(t)
	h := newHookReceiver(t, hookAnswer{code: 503}, hookAnswer{code: 200})
	slow := retryPolicy{base: time.Hour, ceiling: time.Hour, total: 3 * time.Hour, poll: 10 * time.Millisecond}
	opts := func(p retryPolicy) envOpt {
		return func(o *Options) {
			o.ApprovalTTL = 24 * time.Hour
			o.Webhook = Webhook{URL: h.URL + "/hook", Secret: testSecret, retry: p}
		}
	}
	e1 := newEnv(t, st, opts(slow))
	stop1 := running(e1)
	if _, r := e1.decide(e1.agent, `{"tool":"Bash","input":{"command":"git push"}}`); r.Decision != "ask" {
		t.Fatalf("%+v", r)
	}
	<-h.arrived
	d := onlyDelivery(t, st)
	// The failed attempt and its retry, 30 to 60 minutes on, are recorded.
	d = waitDelivery(t, st, d.ID, func(d store.Delivery) bool { return d.Attempts == 1 && d.Next.After(d.Created) })
	stop1()
	e1.srv.Close()
	d = storedDelivery(t, st, d.ID)
	if d.State != store.DeliveryPending || d.LastStatus != 503 || !d.LeaseUntil.IsZero() ||
		d.Next.Sub(d.Created) < 30*time.Minute || d.Next.Sub(d.Created) > time.Hour {
		t.Fatalf("after the stop: %+v", d)
	}
	if n := deliveries(t, e1, deliveryShutdown); n != 1 {
		t.Fatalf("shutdown counted %d", n)
	}

	// The next server, 10 minutes later: the retry is not due yet.
	e2 := newEnv(t, st, opts(retryPolicy{poll: 10 * time.Millisecond}))
	e2.clock.add(10 * time.Minute)
	running(e2)
	time.Sleep(100 * time.Millisecond) // ten polls
	if n := len(h.requests()); n != 1 {
		t.Fatalf("%d attempts before the backoff was over", n)
	}
	// Two hours later: it is due, and delivered.
	e2.clock.add(2 * time.Hour)
	d = waitDelivery(t, st, d.ID, func(d store.Delivery) bool { return d.State != store.DeliveryPending })
	if d.State != store.DeliveryDelivered || d.Attempts != 2 || d.LastStatus != 200 || d.LastError != "" ||
		!d.Delivered.Equal(e2.clock.now()) || d.Owner != e2.srv.replica || !d.LeaseUntil.IsZero() {
		t.Fatalf("after the restart: %+v", d)
	}
	got := h.requests()
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	for i, r := range got {
		if r.header.Get(WebhookDeliveryHeader) != d.ID || string(r.body) != string(got[0].body) {
			t.Errorf("attempt %d: delivery %q, body changed %v", i+1, r.header.Get(WebhookDeliveryHeader), string(r.body) != string(got[0].body))
		}
	}
	// Each attempt is signed by the server that made it, at its time.
	if err := VerifyWebhook(testSecret, got[0].header, got[0].body, e1.clock.now(), time.Minute); err != nil {
		t.Error(err)
	}
	if err := VerifyWebhook(testSecret, got[1].header, got[1].body, e2.clock.now(), time.Minute); err != nil {
		t.Error(err)
	}
	if n := counter(t, e2, "toolgate_webhook_deliveries_resumed_total", ""); n != 1 {
		t.Errorf("resumed %d", n)
	}
	if n := deliveries(t, e2, deliveryDelivered); n != 1 {
		t.Errorf("delivered %d", n)
	}
}

// TestWebhookDeliveryAfterCrash: a delivery recorded by a server that
// died before sending it (its lease never let go) is sent by the next one
// once the lease has run out, not before.
func TestWebhookDeliveryAfterCrash(t *testing.T) {
	st := openSQLiteStore(t)
	h := newHookReceiver(t)
	opts := func(o *Options) {
		o.Webhook = Webhook{URL: h.URL, retry: retryPolicy{poll: 10 * time.Millisecond}}
	}
	e1 := newEnv(t, st, opts) // never runs its workers: as if killed
	if _, r := e1.decide(e1.agent, `{"tool":"Bash","input":{"command":"git push"}}`); r.Decision != "ask" {
		t.Fatalf("%+v", r)
	}
	d := onlyDelivery(t, st)
	if d.Owner != e1.srv.replica || d.LeaseUntil.Sub(d.Created) != 35*time.Second {
		t.Fatalf("the new delivery is not held by its server for the attempt timeout + 30s: %+v", d)
	}
	e2 := newEnv(t, st, opts)
	e2.clock.add(20 * time.Second)
	running(e2)
	time.Sleep(100 * time.Millisecond)
	if n := len(h.requests()); n != 0 {
		t.Fatalf("sent while the dead server's lease ran: %d", n)
	}
	e2.clock.add(20 * time.Second)
	d = waitDelivery(t, st, d.ID, func(d store.Delivery) bool { return d.State != store.DeliveryPending })
	if d.State != store.DeliveryDelivered || d.Attempts != 1 || len(h.requests()) != 1 {
		t.Fatalf("after the lease: %+v, %d requests", d, len(h.requests()))
	}
}

// TestWebhookDeliveryObsolete: a pending delivery whose approval was
// answered meanwhile is not sent, and one whose approval expired fails in
// the sweep.
func TestWebhookDeliveryObsolete(t *testing.T) {
	h := newHookReceiver(t)
	e := newHookEnv(t, Webhook{URL: h.URL, retry: fastRetry})
	ctx := context.Background()
	d := announce(t, e)
	<-e.srv.hooks
	if _, err := e.srv.store.Answer(ctx, d.Approval, store.Answer{Approve: false, Approver: "alice", Now: e.clock.now()}); err != nil {
		t.Fatal(err)
	}
	e.srv.deliver(ctx, e.srv.opts.Webhook, d)
	rec := storedDelivery(t, e.srv.store, d.ID)
	if len(h.requests()) != 0 || rec.State != store.DeliveryFailed || rec.Attempts != 0 || !strings.Contains(rec.LastError, "was denied") {
		t.Fatalf("%d requests, %+v", len(h.requests()), rec)
	}
	if deliveries(t, e, deliveryObsolete) != 1 || counter(t, e, "toolgate_webhook_errors_total", "") != 0 {
		t.Fatal("not counted as obsolete (and only so)")
	}

	// Left pending past its approval's expiry (say, no replica posts to
	// its URL any more): the sweep fails it.
	d2 := announce(t, e)
	<-e.srv.hooks
	e.srv.release(ctx, d2)
	e.clock.add(2 * time.Hour)
	e.srv.sweepOnce(ctx)
	if rec := storedDelivery(t, e.srv.store, d2.ID); rec.State != store.DeliveryFailed || !strings.Contains(rec.LastError, "expired") {
		t.Fatalf("after the sweep: %+v", rec)
	}
	if n := e.srv.m.deliveriesPending.Load(); n != 0 {
		t.Fatalf("pending gauge %d", n)
	}
}

// TestDeliveriesAPI: admins list deliveries, filtered, with URLs cut to
// their host; nobody else can.
func TestDeliveriesAPI(t *testing.T) {
	h := newHookReceiver(t, hookAnswer{code: 400}, hookAnswer{code: 200})
	e := newHookEnv(t, Webhook{URL: h.URL + "/services/T000/B000/s3cretpath?token=x", retry: fastRetry})
	failed := deliverNow(t, e, context.Background())
	e.clock.add(time.Second) // newest first
	delivered := deliverNow(t, e, context.Background())
	for _, tok := range []struct {
		token string
		code  int
	}{{"", 401}, {e.agent, 403}, {e.approver, 403}} {
		if code, _ := e.do("GET", "/v1/webhooks/deliveries", tok.token, ""); code != tok.code {
			t.Fatalf("token %q: %d, want %d", tok.token, code, tok.code)
		}
	}
	list := func(query string) []string {
		t.Helper()
		code, body := e.do("GET", "/v1/webhooks/deliveries"+query, e.admin, "")
		if code != 200 {
			t.Fatalf("%s: %d %s", query, code, body)
		}
		if strings.Contains(body, "s3cretpath") || strings.Contains(body, "token=x") {
			t.Fatalf("the URL's path or query shows: %s", body)
		}
		var out struct{ Deliveries []store.Delivery }
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range out.Deliveries {
			if d.URL != h.URL+"/…" {
				t.Fatalf("URL shown as %q", d.URL)
			}
			ids = append(ids, d.ID+":"+string(d.State)+":"+fmt.Sprint(d.LastStatus))
		}
		return ids
	}
	for _, tt := range []struct{ query, want string }{
		{"", fmt.Sprint([]string{delivered + ":delivered:200", failed + ":failed:400"})},
		{"?state=all", fmt.Sprint([]string{delivered + ":delivered:200", failed + ":failed:400"})},
		{"?state=failed", fmt.Sprint([]string{failed + ":failed:400"})},
		{"?state=pending", "[]"},
		{"?limit=1", fmt.Sprint([]string{delivered + ":delivered:200"})},
	} {
		if got := fmt.Sprint(list(tt.query)); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.query, got, tt.want)
		}
	}
	rec := storedDelivery(t, e.srv.store, failed)
	if got := list("?approval=" + rec.Approval); len(got) != 1 || !strings.HasPrefix(got[0], failed) {
		t.Errorf("by approval: %v", got)
	}
	for _, q := range []string{"?state=bogus", "?limit=0", "?limit=x"} {
		if code, _ := e.do("GET", "/v1/webhooks/deliveries"+q, e.admin, ""); code != 400 {
			t.Errorf("%s: %d, want 400", q, code)
		}
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://hooks.slack.com/services/T0/B0/XYZ": "https://hooks.slack.com/…",
		"https://example.com":                        "https://example.com",
		"https://example.com/":                       "https://example.com",
		"https://example.com/?key=1":                 "https://example.com/…",
		"https://user:pw@example.com:8443/x":         "https://example.com:8443/…",
		"not a url":                                  "…",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReplicasDeliverOnce: two replicas on one PostgreSQL database take up
// the same pending deliveries at once; each is sent once.
func TestReplicasDeliverOnce(t *testing.T) {
	dsn := postgresDSN(t)
	var mu sync.Mutex
	seen := map[string]int{}
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond) // a receiver slow enough that both replicas take part
		mu.Lock()
		seen[r.Header.Get(WebhookDeliveryHeader)]++
		mu.Unlock()
	}))
	t.Cleanup(h.Close)
	opts := func(o *Options) { o.Webhook = Webhook{URL: h.URL, retry: retryPolicy{poll: 5 * time.Millisecond}} }
	a := newEnv(t, openPG(t, dsn), opts)
	b := newEnv(t, openPG(t, dsn), opts)
	ctx := context.Background()
	const n = 40
	var ids []string
	for i := range n {
		ap := hookApproval
		ap.ID, ap.Digest = store.NewID(), fmt.Sprint("sha256:", i)
		d := store.Delivery{ID: store.NewDeliveryID(), Approval: ap.ID, Event: eventRequested, URL: h.URL, Body: `{}`,
			Created: a.clock.now(), Next: a.clock.now(), Expires: ap.Expires} // held by no one: left by a replica that died
		if err := a.srv.store.CreateApproval(ctx, ap, d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.ID)
	}
	running(a)
	running(b)
	for _, id := range ids {
		waitDelivery(t, a.srv.store, id, func(d store.Delivery) bool { return d.State == store.DeliveryDelivered })
	}
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("delivery %s sent %d times", id, seen[id])
		}
	}
	ra := counter(t, a, "toolgate_webhook_deliveries_resumed_total", "")
	rb := counter(t, b, "toolgate_webhook_deliveries_resumed_total", "")
	if ra+rb != n || ra == 0 || rb == 0 {
		t.Errorf("resumed %d + %d, want %d shared by both", ra, rb, n)
	}
	t.Logf("replica A took %d deliveries, B %d", ra, rb)
}
