package serve

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/store"
)

// hookAnswer is one scripted answer of a test receiver; code 0 hangs up
// without answering (a network error for the sender).
type hookAnswer struct {
	code       int
	retryAfter string
}

// hookRequest is what a test receiver got.
type hookRequest struct {
	header http.Header
	body   []byte
}

// hookReceiver answers deliveries from a script (its last answer repeats)
// and records them.
type hookReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	script  []hookAnswer
	got     []hookRequest
	arrived chan struct{}
}

func newHookReceiver(t *testing.T, script ...hookAnswer) *hookReceiver {
	t.Helper()
	h := &hookReceiver{script: script, arrived: make(chan struct{}, 100)}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		ans := hookAnswer{code: http.StatusOK}
		if n := len(h.got); n < len(h.script) {
			ans = h.script[n]
		} else if len(h.script) > 0 {
			ans = h.script[len(h.script)-1]
		}
		h.got = append(h.got, hookRequest{header: r.Header.Clone(), body: body})
		h.mu.Unlock()
		h.arrived <- struct{}{}
		if ans.code == 0 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		if ans.retryAfter != "" {
			w.Header().Set("Retry-After", ans.retryAfter)
		}
		if ans.code/100 == 3 {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(ans.code)
		fmt.Fprintf(w, "answer %d", ans.code)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookReceiver) requests() []hookRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hookRequest(nil), h.got...)
}

// fastRetry retries after 1 ms, 2 ms, 4 ms, … at most 4 ms.
var fastRetry = retryPolicy{base: time.Millisecond, ceiling: 4 * time.Millisecond}

var testSecret = []byte("a test secret, 32 bytes or more!")

// newHookEnv is a test server whose webhook is wh.
func newHookEnv(t *testing.T, wh Webhook) *testEnv {
	t.Helper()
	return newEnv(t, nil, func(o *Options) { o.Webhook = wh })
}

var hookApproval = store.Approval{ID: "ap_test", Digest: "sha256:aa", Tool: "Bash", Input: `{"command":"git push"}`,
	Caller: "ci-agent", Prompt: "Run git push", State: store.Pending,
	Created: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Expires: time.Date(2026, 5, 1, 13, 0, 0, 0, time.UTC)}

// announce records a new approval (a copy of hookApproval with its own
// id) and its delivery, and queues the delivery, as a decision does.
func announce(t *testing.T, e *testEnv) store.Delivery {
	t.Helper()
	a := hookApproval
	a.ID = store.NewID()
	d, ok := e.srv.newDelivery(a)
	if !ok {
		t.Fatal("no delivery")
	}
	if err := e.srv.store.CreateApproval(context.Background(), a, d); err != nil {
		t.Fatal(err)
	}
	e.srv.queueDelivery(d)
	return d
}

// deliverNow announces an approval and delivers it on this goroutine,
// returning the delivery's id.
func deliverNow(t *testing.T, e *testEnv, ctx context.Context) string {
	t.Helper()
	announce(t, e)
	select {
	case d := <-e.srv.hooks:
		e.srv.deliver(ctx, e.srv.opts.Webhook, d)
		return d.ID
	default:
		t.Fatal("nothing was queued")
		return ""
	}
}

// storedDelivery is the stored record of delivery id.
func storedDelivery(t *testing.T, st store.Store, id string) store.Delivery {
	t.Helper()
	list, err := st.Deliveries(context.Background(), store.DeliveryFilter{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range list {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no delivery %s in the store", id)
	return store.Delivery{}
}

// counter is the value of the counter name (with result, if not "") in
// e's metrics.
func counter(t *testing.T, e *testEnv, name, result string) int {
	t.Helper()
	mfs, err := e.srv.m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			label := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" {
					label = l.GetValue()
				}
			}
			if label == result {
				return int(m.GetCounter().GetValue())
			}
		}
	}
	t.Fatalf("no metric %s{result=%q}", name, result)
	return 0
}

func deliveries(t *testing.T, e *testEnv, result string) int {
	t.Helper()
	return counter(t, e, "toolgate_webhook_deliveries_total", result)
}

func TestWebhookRetries(t *testing.T) {
	for _, tt := range []struct {
		name     string
		script   []hookAnswer
		attempts int
		result   string
	}{
		{"success at once", []hookAnswer{{code: 204}}, 1, deliveryDelivered},
		{"500 then success", []hookAnswer{{code: 500}, {code: 200}}, 2, deliveryDelivered},
		{"503 twice then success", []hookAnswer{{code: 503}, {code: 503}, {code: 202}}, 3, deliveryDelivered},
		{"429 then success", []hookAnswer{{code: 429}, {code: 200}}, 2, deliveryDelivered},
		{"hang-up then success", []hookAnswer{{code: 0}, {code: 200}}, 2, deliveryDelivered},
		{"400 is not retried", []hookAnswer{{code: 400}, {code: 200}}, 1, deliveryRejected},
		{"404 is not retried", []hookAnswer{{code: 404}, {code: 200}}, 1, deliveryRejected},
		{"408 is not retried", []hookAnswer{{code: 408}, {code: 200}}, 1, deliveryRejected},
		{"a redirect is not followed", []hookAnswer{{code: 308}, {code: 200}}, 1, deliveryRejected},
		{"500 until the attempts run out", []hookAnswer{{code: 500}}, 5, deliveryExhausted},
		{"hang-ups until the attempts run out", []hookAnswer{{code: 0}}, 5, deliveryExhausted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHookReceiver(t, tt.script...)
			e := newHookEnv(t, Webhook{URL: h.URL, Secret: testSecret, retry: fastRetry})
			id := deliverNow(t, e, context.Background())
			got := h.requests()
			if len(got) != tt.attempts {
				t.Fatalf("%d attempts, want %d", len(got), tt.attempts)
			}
			for _, r := range deliveryResults {
				want := 0
				if r == tt.result {
					want = 1
				}
				if n := deliveries(t, e, r); n != want {
					t.Errorf("deliveries{result=%q} = %d, want %d", r, n, want)
				}
			}
			if n := counter(t, e, "toolgate_webhook_attempts_total", ""); n != tt.attempts {
				t.Errorf("attempts counted %d, want %d", n, tt.attempts)
			}
			wantErrors := 1
			if tt.result == deliveryDelivered {
				wantErrors = 0
			}
			if n := counter(t, e, "toolgate_webhook_errors_total", ""); n != wantErrors {
				t.Errorf("webhook errors counted %d, want %d", n, wantErrors)
			}
			// Every attempt is the same delivery, signed afresh.
			if !strings.HasPrefix(id, "dl_") || len(id) < 20 {
				t.Fatalf("delivery id %q", id)
			}
			for i, r := range got {
				if d := r.header.Get(WebhookDeliveryHeader); d != id {
					t.Errorf("attempt %d: delivery id %q, want %q", i+1, d, id)
				}
				if string(r.body) != string(got[0].body) {
					t.Errorf("attempt %d changed the body", i+1)
				}
				if err := VerifyWebhook(testSecret, r.header, r.body, e.clock.now(), time.Minute); err != nil {
					t.Errorf("attempt %d: %v", i+1, err)
				}
			}
			var ev webhookEvent
			if err := json.Unmarshal(got[0].body, &ev); err != nil || ev.Delivery != id || ev.Approval.Prompt != hookApproval.Prompt {
				t.Fatalf("body %s: %v", got[0].body, err)
			}
			// The store has the delivery's history.
			rec := storedDelivery(t, e.srv.store, id)
			wantState := store.DeliveryFailed
			if tt.result == deliveryDelivered {
				wantState = store.DeliveryDelivered
			}
			lastCode := tt.script[min(tt.attempts, len(tt.script))-1].code
			if rec.State != wantState || rec.Attempts != tt.attempts || rec.LastStatus != lastCode ||
				rec.Approval != ev.Approval.ID || rec.Event != "approval.requested" || !rec.LeaseUntil.IsZero() ||
				(wantState == store.DeliveryDelivered) != !rec.Delivered.IsZero() ||
				(wantState == store.DeliveryFailed) == (rec.LastError == "") {
				t.Fatalf("stored delivery %+v, want %s after %d attempts, last status %d", rec, wantState, tt.attempts, lastCode)
			}
		})
	}
}

// recordSleep replaces the retry waits: it records them and returns at
// once.
func recordSleep(p retryPolicy) (retryPolicy, func() []time.Duration) {
	var mu sync.Mutex
	var waits []time.Duration
	p.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return ctx.Err()
	}
	return p, func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Duration(nil), waits...)
	}
}

func TestWebhookBackoff(t *testing.T) {
	h := newHookReceiver(t, hookAnswer{code: 500})
	p, waits := recordSleep(retryPolicy{base: 10 * time.Millisecond, ceiling: 40 * time.Millisecond})
	e := newHookEnv(t, Webhook{URL: h.URL, retry: p})
	deliverNow(t, e, context.Background())
	// Doubling from 10 ms, capped at 40 ms, each drawn from its upper half.
	bounds := [][2]time.Duration{{5, 10}, {10, 20}, {20, 40}, {20, 40}}
	got := waits()
	if len(got) != len(bounds) {
		t.Fatalf("waits %v, want %d", got, len(bounds))
	}
	for i, b := range bounds {
		if lo, hi := b[0]*time.Millisecond, b[1]*time.Millisecond; got[i] < lo || got[i] > hi {
			t.Errorf("wait %d = %s, want %s to %s", i+1, got[i], lo, hi)
		}
	}
	// The jitter draws: over many, the waits of one step are not all alike.
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[e.srv.opts.Webhook.retry.backoff(3)] = true
	}
	if len(seen) < 2 {
		t.Errorf("backoff(3) has no jitter: %v", seen)
	}
}

func TestWebhookRetryAfter(t *testing.T) {
	e0 := newEnv(t, nil)
	date := e0.clock.now().Add(9 * time.Second).Format(http.TimeFormat)
	for _, tt := range []struct {
		name       string
		retryAfter string
		waits      []time.Duration // exact waits; nil: one backoff
		result     string
	}{
		{"seconds", "7", []time.Duration{7 * time.Second}, deliveryDelivered},
		{"an HTTP date", date, []time.Duration{9 * time.Second}, deliveryDelivered},
		{"malformed: the backoff", "soon", nil, deliveryDelivered},
		{"zero: the backoff", "0", nil, deliveryDelivered},
		{"past the time limit: give up", "3600", []time.Duration{}, deliveryExhausted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHookReceiver(t, hookAnswer{code: 429, retryAfter: tt.retryAfter}, hookAnswer{code: 200})
			p, waits := recordSleep(fastRetry)
			e := newHookEnv(t, Webhook{URL: h.URL, retry: p})
			deliverNow(t, e, context.Background())
			got := waits()
			switch {
			case tt.waits == nil:
				if len(got) != 1 || got[0] > fastRetry.base {
					t.Fatalf("waits %v, want one backoff of at most %s", got, fastRetry.base)
				}
			case fmt.Sprint(got) != fmt.Sprint(tt.waits):
				t.Fatalf("waits %v, want %v", got, tt.waits)
			}
			if deliveries(t, e, tt.result) != 1 {
				t.Fatalf("no delivery counted %s", tt.result)
			}
		})
	}
}

// TestWebhookTimeLimit: a retry that would end past the delivery's time
// limit is not waited for.
func TestWebhookTimeLimit(t *testing.T) {
	h := newHookReceiver(t, hookAnswer{code: 503})
	p, waits := recordSleep(retryPolicy{base: time.Hour, ceiling: time.Hour, total: time.Second})
	e := newHookEnv(t, Webhook{URL: h.URL, retry: p})
	deliverNow(t, e, context.Background())
	if n := len(h.requests()); n != 1 || len(waits()) != 0 || deliveries(t, e, deliveryExhausted) != 1 {
		t.Fatalf("%d attempts, waits %v, exhausted %d", n, waits(), deliveries(t, e, deliveryExhausted))
	}
}

// TestWebhookShutdown: cancelling the context during a backoff ends the
// delivery at once, and deliveries still queued are counted, not sent.
func TestWebhookShutdown(t *testing.T) {
	h := newHookReceiver(t, hookAnswer{code: 500})
	e := newHookEnv(t, Webhook{URL: h.URL, retry: retryPolicy{base: time.Hour, ceiling: time.Hour, total: 2 * time.Hour}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { e.srv.deliverWebhooks(ctx); close(done) }()
	d := announce(t, e)
	<-h.arrived // the first attempt failed; the retry is an hour away
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("deliverWebhooks did not return after cancel")
	}
	if n := len(h.requests()); n != 1 {
		t.Fatalf("%d attempts", n)
	}
	if deliveries(t, e, deliveryShutdown) != 1 {
		t.Fatalf("shutdown deliveries %d, want 1", deliveries(t, e, deliveryShutdown))
	}
	// Left pending, held by no one, with its attempt counted (the cancel
	// may end the attempt before its answer is read).
	if rec := storedDelivery(t, e.srv.store, d.ID); rec.State != store.DeliveryPending || rec.Attempts != 1 ||
		!rec.LeaseUntil.IsZero() || rec.LastError == "" {
		t.Fatalf("after shutdown: %+v", rec)
	}

	// A full queue lets the next go in the store, for a claim to take up;
	// what is queued at shutdown is counted and let go too.
	e2 := newHookEnv(t, Webhook{URL: h.URL})
	queue := cap(e2.srv.hooks)
	var all []store.Delivery
	for range queue + 1 {
		all = append(all, announce(t, e2))
	}
	if rec := storedDelivery(t, e2.srv.store, all[queue].ID); rec.State != store.DeliveryPending || !rec.LeaseUntil.IsZero() {
		t.Fatalf("the delivery that found the queue full: %+v", rec)
	}
	if rec := storedDelivery(t, e2.srv.store, all[0].ID); rec.LeaseUntil.IsZero() {
		t.Fatalf("a queued delivery is not held: %+v", rec)
	}
	e2.srv.deliverWebhooks(ctx) // already cancelled
	if n := deliveries(t, e2, deliveryShutdown); n != queue {
		t.Fatalf("abandoned %d, want %d", n, queue)
	}
	for _, d := range all {
		if rec := storedDelivery(t, e2.srv.store, d.ID); rec.State != store.DeliveryPending || !rec.LeaseUntil.IsZero() || rec.Attempts != 0 {
			t.Fatalf("after shutdown: %+v", rec)
		}
	}
}

// TestWebhookHeaders: without a secret a delivery carries its id but no
// signature; the Slack body is signed like the JSON one.
func TestWebhookHeaders(t *testing.T) {
	h := newHookReceiver(t)
	e := newHookEnv(t, Webhook{URL: h.URL})
	id := deliverNow(t, e, context.Background())
	r := h.requests()[0]
	if r.header.Get(WebhookDeliveryHeader) != id || r.header.Get(WebhookSignatureHeader) != "" || r.header.Get(WebhookTimestampHeader) != "" {
		t.Fatalf("unsigned delivery headers %v", r.header)
	}

	h = newHookReceiver(t)
	e = newHookEnv(t, Webhook{URL: h.URL, Slack: true, Secret: testSecret})
	deliverNow(t, e, context.Background())
	r = h.requests()[0]
	var m map[string]string
	if json.Unmarshal(r.body, &m) != nil || !strings.Contains(m["text"], "git push") {
		t.Fatalf("slack body %s", r.body)
	}
	if err := VerifyWebhook(testSecret, r.header, r.body, e.clock.now(), 0); err != nil {
		t.Fatal(err)
	}
	if ts := r.header.Get(WebhookTimestampHeader); ts != strconv.FormatInt(e.clock.now().Unix(), 10) {
		t.Fatalf("timestamp %q, want the server clock's %d", ts, e.clock.now().Unix())
	}
}

// sign is the signature header of body at ts, computed here from the
// documented scheme rather than by the code under test.
func sign(secret []byte, ts string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	io.WriteString(m, "v1:"+ts+":")
	m.Write(body)
	return "v1=" + hex.EncodeToString(m.Sum(nil))
}

func TestVerifyWebhook(t *testing.T) {
	now := time.Unix(1_780_000_000, 0)
	body := []byte(`{"type":"approval.requested"}`)
	ts := strconv.FormatInt(now.Unix(), 10)
	good := sign(testSecret, ts, body)
	headers := func(ts string, sigs ...string) http.Header {
		h := http.Header{}
		if ts != "" {
			h.Set(WebhookTimestampHeader, ts)
		}
		for _, s := range sigs {
			h.Add(WebhookSignatureHeader, s)
		}
		return h
	}
	old := strconv.FormatInt(now.Add(-6*time.Minute).Unix(), 10)
	future := strconv.FormatInt(now.Add(6*time.Minute).Unix(), 10)
	for _, tt := range []struct {
		name   string
		secret []byte
		header http.Header
		body   []byte
		err    string // "" = verifies
	}{
		{"good", testSecret, headers(ts, good), body, ""},
		{"good among others", testSecret, headers(ts, "v0=abc, v1=00ff,"+good), body, ""},
		{"good in a second header", testSecret, headers(ts, "v1=00", good), body, ""},
		{"within the tolerance", testSecret, headers(strconv.FormatInt(now.Add(-4*time.Minute).Unix(), 10),
			sign(testSecret, strconv.FormatInt(now.Add(-4*time.Minute).Unix(), 10), body)), body, ""},
		{"changed body", testSecret, headers(ts, good), []byte(`{"type":"approval.requested "}`), "does not match"},
		{"empty body", testSecret, headers(ts, good), nil, "does not match"},
		{"wrong secret", []byte("another secret"), headers(ts, good), body, "does not match"},
		{"no secret", nil, headers(ts, good), body, "no secret"},
		{"changed timestamp", testSecret, headers(strconv.FormatInt(now.Unix()+1, 10), good), body, "does not match"},
		{"stale", testSecret, headers(old, sign(testSecret, old, body)), body, "ago"},
		{"future", testSecret, headers(future, sign(testSecret, future, body)), body, "future"},
		{"no timestamp", testSecret, headers("", good), body, "no X-Toolgate-Timestamp"},
		{"timestamp not a number", testSecret, headers("soon", good), body, "Unix seconds"},
		{"timestamp with a sign", testSecret, headers("+"+ts, sign(testSecret, "+"+ts, body)), body, "Unix seconds"},
		{"no signature", testSecret, headers(ts), body, "no X-Toolgate-Signature"},
		{"no v1 signature", testSecret, headers(ts, "v2="+strings.TrimPrefix(good, "v1=")), body, "no v1="},
		{"signature not hex", testSecret, headers(ts, "v1=zz"), body, "does not match"},
		{"truncated signature", testSecret, headers(ts, good[:len(good)-2]), body, "does not match"},
		{"empty signature", testSecret, headers(ts, "v1="), body, "does not match"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := VerifyWebhook(tt.secret, tt.header, tt.body, now, 5*time.Minute)
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("VerifyWebhook = %v, want %q", err, tt.err)
			}
		})
	}
	// Tolerance 0 means 5 minutes.
	if err := VerifyWebhook(testSecret, headers(old, sign(testSecret, old, body)), body, now, 0); err == nil {
		t.Fatal("a delivery 6 minutes old verified with the default tolerance")
	}
}

// FuzzVerifyWebhook: any headers and body are judged without a panic,
// and only the right signature verifies.
func FuzzVerifyWebhook(f *testing.F) {
	f.Add("1780000000", "v1=00", []byte("{}"))
	f.Add("1780000000", "v0=1, v1=", []byte(""))
	f.Add("-1", ",,,", []byte("x"))
	now := time.Unix(1_780_000_000, 0)
	f.Fuzz(func(t *testing.T, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set(WebhookTimestampHeader, ts)
		h.Set(WebhookSignatureHeader, sig)
		err := VerifyWebhook(testSecret, h, body, now, time.Hour)
		if err == nil && !strings.Contains(strings.ToLower(sig), sign(testSecret, ts, body)) {
			t.Fatalf("verified without the signature: ts %q sig %q", ts, sig)
		}
		h.Set(WebhookSignatureHeader, sig+","+sign(testSecret, ts, body))
		err = VerifyWebhook(testSecret, h, body, now, time.Hour)
		n, perr := strconv.ParseInt(ts, 10, 64)
		inTime := perr == nil && n > 0 && ts[0] != '+' && now.Sub(time.Unix(n, 0)).Abs() <= time.Hour
		if inTime && err != nil {
			t.Fatalf("a signed delivery at %q did not verify: %v", ts, err)
		}
	})
}

func TestReadWebhookSecret(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, content, want, err string
	}{
		{"plain", "s3cret", "s3cret", ""},
		{"newline", "s3cret\n", "s3cret", ""},
		{"CRLF", "s3cret\r\n", "s3cret", ""},
		{"one newline only", "s3cret\n\n", "s3cret\n", ""},
		{"inner spaces kept", " s3 cret \n", " s3 cret ", ""},
		{"empty", "", "", "is empty"},
		{"only a newline", "\n", "", "is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := ReadWebhookSecret(path)
			if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) || string(got) != tt.want {
				t.Fatalf("ReadWebhookSecret = %q, %v; want %q, %q", got, err, tt.want, tt.err)
			}
		})
	}
	if _, err := ReadWebhookSecret(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("a missing file: %v", err)
	}
}

// TestWebhookOptions: a webhook that cannot work stops the start.
func TestWebhookOptions(t *testing.T) {
	dir := t.TempDir()
	tokens, _, _, _ := writeTokens(t, dir)
	st, err := store.OpenSQLite(context.Background(), filepath.Join(dir, "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, tt := range []struct {
		wh  Webhook
		err string
	}{
		{Webhook{URL: "https://hooks.example.com/x", Secret: testSecret}, ""},
		{Webhook{}, ""},
		{Webhook{Secret: testSecret}, "no webhook URL"},
		{Webhook{URL: "ftp://hooks.example.com/x"}, "not an http or https URL"},
		{Webhook{URL: "hooks.example.com/x"}, "not an http or https URL"},
		{Webhook{URL: "http://"}, "not an http or https URL"},
	} {
		_, err := New(context.Background(), &Options{Store: st, TokensFile: tokens, ReloadInterval: -1, Webhook: tt.wh})
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%+v: %v, want %q", tt.wh, err, tt.err)
		}
	}
	// The server keeps its own copy of the secret.
	secret := []byte("s3cret")
	srv, err := New(context.Background(), &Options{Store: st, TokensFile: tokens, ReloadInterval: -1,
		Webhook: Webhook{URL: "https://hooks.example.com/x", Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	secret[0] = 'X'
	if string(srv.opts.Webhook.Secret) != "s3cret" {
		t.Fatalf("the caller's change reached the server's secret: %q", srv.opts.Webhook.Secret)
	}
}
