package serve

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/store"
)

// Webhook says where new approval requests are announced, and how.
//
// Deliveries are recorded in the store with the approval they announce and
// sent in the background, so a slow or failing receiver never holds up a
// decision, and a delivery pending at a restart (or on a replica that
// died) is sent afterwards. A delivery that fails with a network error, a
// 5xx or a 429 is retried with capped exponential backoff and jitter (a
// Retry-After header is honoured when it fits the delivery's time limit);
// any other answer but 2xx — another 4xx, a redirect — is final. A
// delivery makes at most 5 attempts in all, across restarts, each replica
// that takes it on having 2 minutes for its share; a delivery whose
// approval was answered or expired is not sent. A delivery that still
// fails is logged, counted (toolgate_webhook_deliveries_total) and kept as
// failed.
type Webhook struct {
	// URL receives a POST for every new approval request; "" = none.
	URL string
	// Slack sends a Slack incoming-webhook body ({"text": ...}) instead of
	// the JSON event.
	Slack bool
	// Secret, when not empty, signs every delivery: see VerifyWebhook.
	Secret []byte
	// Timeout bounds one attempt (default 5s).
	Timeout time.Duration
	// Client sends the requests (default: a client with Timeout that
	// follows no redirects).
	Client *http.Client

	// retry is the retry policy; its zero value means the defaults (tests
	// shorten the waits).
	retry retryPolicy
}

// Headers of a webhook delivery.
const (
	// WebhookDeliveryHeader carries the delivery's id, the same in every
	// attempt of one delivery, so that a receiver can drop repeats.
	WebhookDeliveryHeader = "X-Toolgate-Delivery"
	// WebhookTimestampHeader carries the attempt's time in Unix seconds
	// (sent when the webhook has a secret).
	WebhookTimestampHeader = "X-Toolgate-Timestamp"
	// WebhookSignatureHeader carries "v1=" and the hex HMAC-SHA256, keyed
	// with the secret, of "v1:" + timestamp + ":" + body (sent when the
	// webhook has a secret).
	WebhookSignatureHeader = "X-Toolgate-Signature"
)

// retryPolicy bounds the attempts of one delivery.
type retryPolicy struct {
	attempts int           // most attempts (default 5)
	base     time.Duration // backoff before the first retry (default 1s), doubled for each next
	ceiling  time.Duration // longest backoff (default 30s)
	total    time.Duration // the delivery's whole time, waits included (default 2m)
	// sleep waits d or until ctx is done (default: a timer).
	sleep func(ctx context.Context, d time.Duration) error
	// poll is how often the store is asked for due deliveries no one
	// holds (default 5s); lease how long a replica holds a delivery
	// beyond its next attempt (default the attempt timeout + 30s).
	poll, lease time.Duration
}

// webhookWorkers deliver concurrently, so that one delivery waiting to be
// retried does not hold up the next.
const webhookWorkers = 4

// Results of a delivery on one replica, the label values of
// toolgate_webhook_deliveries_total.
const (
	deliveryDelivered = "delivered" // a 2xx answer
	deliveryRejected  = "rejected"  // an answer that is not retried (4xx but 429, 3xx)
	deliveryExhausted = "exhausted" // out of attempts or time
	deliveryObsolete  = "obsolete"  // not sent: the approval was answered, expired or deleted first
	deliveryShutdown  = "shutdown"  // left pending in the store at shutdown
	deliveryFailed    = "failed"    // the request could not be built
)

var deliveryResults = []string{deliveryDelivered, deliveryRejected, deliveryExhausted, deliveryObsolete, deliveryShutdown, deliveryFailed}

// prepare checks wh and fills in its defaults.
func (wh Webhook) prepare() (Webhook, error) {
	if wh.URL == "" {
		if len(wh.Secret) > 0 {
			return wh, errors.New("a webhook secret is set but no webhook URL")
		}
		return wh, nil
	}
	u, err := url.Parse(wh.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return wh, fmt.Errorf("webhook URL %q is not an http or https URL with a host", wh.URL)
	}
	wh.Secret = bytes.Clone(wh.Secret)
	if wh.Timeout <= 0 {
		wh.Timeout = 5 * time.Second
	}
	if wh.Client == nil {
		wh.Client = &http.Client{Timeout: wh.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	p := &wh.retry
	if p.attempts <= 0 {
		p.attempts = 5
	}
	if p.base <= 0 {
		p.base = time.Second
	}
	if p.ceiling <= 0 {
		p.ceiling = 30 * time.Second
	}
	if p.total <= 0 {
		p.total = 2 * time.Minute
	}
	if p.sleep == nil {
		p.sleep = sleepCtx
	}
	if p.poll <= 0 {
		p.poll = 5 * time.Second
	}
	if p.lease <= 0 {
		p.lease = wh.Timeout + 30*time.Second
	}
	return wh, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// backoff is the wait before retry n (1 for the first): base·2ⁿ⁻¹, at most
// the ceiling, then drawn at random from its upper half, so that
// deliveries failing together do not retry together.
func (p retryPolicy) backoff(n int) time.Duration {
	d := p.ceiling
	if n-1 < 32 {
		d = min(p.base<<(n-1), p.ceiling)
		if d <= 0 { // overflow
			d = p.ceiling
		}
	}
	half := d / 2
	return half + mrand.N(d-half+1)
}

// ReadWebhookSecret reads a webhook signing secret from a file: the whole
// file but one trailing newline ("\n" or "\r\n"). An empty secret is an
// error.
func ReadWebhookSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("webhook secret: %w", err)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return nil, fmt.Errorf("webhook secret: %s is empty", path)
	}
	return b, nil
}

// webhookEvent is the JSON body of a delivery.
type webhookEvent struct {
	Type string `json:"type"` // approval.requested
	// Delivery is the delivery's id, as in WebhookDeliveryHeader (here it
	// is covered by the signature).
	Delivery string         `json:"delivery"`
	Approval store.Approval `json:"approval"`
	URL      string         `json:"url,omitempty"`
}

// eventRequested is the event of a delivery announcing a new approval
// request.
const eventRequested = "approval.requested"

// newDelivery is the delivery announcing a new approval request, held by
// this replica, to be recorded with the approval; ok is false when there
// is no webhook or the body cannot be built.
func (s *Server) newDelivery(a store.Approval) (d store.Delivery, ok bool) {
	wh := s.opts.Webhook
	if wh.URL == "" {
		return d, false
	}
	id := store.NewDeliveryID()
	var body any = webhookEvent{Type: eventRequested, Delivery: id, Approval: a, URL: s.approvalURL(a.ID)}
	if wh.Slack {
		body = map[string]string{"text": slackText(a, s.approvalURL(a.ID))}
	}
	b, err := json.Marshal(body)
	if err != nil {
		s.countDelivery(deliveryFailed)
		s.log.Error("webhook body", "approval", a.ID, "err", err)
		return d, false
	}
	now := s.now()
	return store.Delivery{ID: id, Approval: a.ID, Event: eventRequested, URL: wh.URL, Body: string(b),
		State: store.DeliveryPending, Created: now, Next: now, Expires: a.Expires,
		Owner: s.replica, LeaseUntil: now.Add(wh.retry.lease)}, true
}

// queueDelivery hands a recorded delivery this replica holds to the
// workers. When the queue is full the delivery is let go in the store,
// where the next claim (of any replica) takes it up: a slow receiver never
// holds up decisions, and nothing is lost.
func (s *Server) queueDelivery(d store.Delivery) {
	select {
	case s.hooks <- d:
	default:
		s.log.Warn("webhook queue full; the delivery waits in the store", "approval", d.Approval, "delivery", d.ID)
		s.release(context.Background(), d)
	}
}

func (s *Server) countDelivery(result string) {
	s.m.webhookDeliveries.WithLabelValues(result).Inc()
	switch result {
	case deliveryRejected, deliveryExhausted, deliveryFailed:
		s.m.webhookErrors.Inc()
	}
}

// deliverWebhooks sends deliveries until ctx is done: those this replica
// queued as it recorded them, and those it claims from the store — due
// and held by no one: left pending by a restart, a replica that died, or
// a full queue. What is still queued at the end is let go in the store.
func (s *Server) deliverWebhooks(ctx context.Context) {
	wh := s.opts.Webhook
	if wh.URL == "" {
		return
	}
	s.log.Info("delivering webhooks", "replica", s.replica)
	var wg sync.WaitGroup
	var idle atomic.Int64 // workers not busy with a delivery
	idle.Store(webhookWorkers)
	for range webhookWorkers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case d := <-s.hooks:
					idle.Add(-1)
					s.deliver(ctx, wh, d)
					idle.Add(1)
				}
			}
		})
	}
	wg.Go(func() {
		for {
			// Claim only what idle workers can start at once, so that
			// replicas share a backlog; while one remains, look again
			// soon.
			wait := wh.retry.poll
			if s.claimDue(ctx, wh, int(idle.Load())-len(s.hooks)) > 0 {
				wait = min(wait, claimAgain)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	})
	wg.Wait()
	for n := 0; ; n++ {
		select {
		case d := <-s.hooks:
			s.countDelivery(deliveryShutdown)
			s.release(ctx, d)
		default:
			if n > 0 {
				s.log.Warn("shutting down: webhook deliveries left pending in the store", "count", n)
			}
			return
		}
	}
}

// claimAgain is how soon a replica that claimed deliveries looks for more.
const claimAgain = 50 * time.Millisecond

// claimDue claims up to limit due deliveries and queues them, returning
// how many it claimed.
func (s *Server) claimDue(ctx context.Context, wh Webhook, limit int) int {
	if limit <= 0 {
		return 0
	}
	now := s.now()
	ds, err := s.store.ClaimDeliveries(ctx, store.Claim{URL: wh.URL, Owner: s.replica, Now: now,
		Until: now.Add(wh.retry.lease), Limit: limit})
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("claiming webhook deliveries", "err", err)
		}
		return 0
	}
	for _, d := range ds {
		s.m.webhookResumed.Inc()
		s.log.Info("resuming a webhook delivery", "approval", d.Approval, "delivery", d.ID, "attempts", d.Attempts)
		s.queueDelivery(d)
	}
	return len(ds)
}

// save writes d's progress, even while shutting down (with a bound of its
// own). ok is false when d is no longer this replica's to write.
func (s *Server) save(ctx context.Context, d store.Delivery) (bool, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return s.store.SaveDelivery(ctx, d)
}

// release lets go of a pending delivery this replica holds, so that the
// next claim takes it up at its next attempt time.
func (s *Server) release(ctx context.Context, d store.Delivery) {
	d.LeaseUntil = time.Time{}
	if _, err := s.save(ctx, d); err != nil {
		s.log.Warn("releasing a webhook delivery; it is taken up when its lease ends", "delivery", d.ID, "err", err)
	}
}

// leaseMargin is how much of a lease must be left, beyond one attempt's
// timeout, for an attempt to start without renewing it.
const leaseMargin = 5 * time.Second

// deliver sends one delivery this replica holds, retrying as the policy
// allows, recording every attempt in the store, and counts and logs its
// result. The attempts count across restarts and replicas; the time limit
// runs from when this replica took the delivery on.
func (s *Server) deliver(ctx context.Context, wh Webhook, d store.Delivery) {
	p := wh.retry
	deadline := time.Now().Add(p.total)
	for {
		if ctx.Err() != nil {
			s.shutdown(ctx, d)
			return
		}
		if d.Attempts >= p.attempts {
			s.finish(ctx, d, store.DeliveryFailed, deliveryExhausted, fmt.Sprintf("gave up after %d attempts", d.Attempts))
			return
		}
		if why := s.obsolete(ctx, d); why != "" {
			s.finish(ctx, d, store.DeliveryFailed, deliveryObsolete, why)
			return
		}
		if now := s.now(); d.LeaseUntil.Before(now.Add(wh.Timeout + leaseMargin)) {
			d.LeaseUntil = now.Add(p.lease)
			if !s.keep(ctx, d) {
				return
			}
		}
		retry, retryAfter, status, err := s.attempt(ctx, wh, d.ID, []byte(d.Body), deadline)
		s.m.webhookAttempts.Inc()
		now := s.now()
		d.Attempts++
		d.LastAttempt, d.LastStatus, d.LastError = now, status, ""
		if err != nil {
			d.LastError = err.Error()
		}
		switch {
		case err == nil:
			d.Delivered = now
			s.finish(ctx, d, store.DeliveryDelivered, deliveryDelivered, "")
			return
		case ctx.Err() != nil:
			s.shutdown(ctx, d)
			return
		case !retry:
			s.finish(ctx, d, store.DeliveryFailed, deliveryRejected, d.LastError)
			return
		case d.Attempts >= p.attempts:
			s.finish(ctx, d, store.DeliveryFailed, deliveryExhausted, fmt.Sprintf("gave up after %d attempts: %s", d.Attempts, d.LastError))
			return
		}
		wait := max(p.backoff(d.Attempts), retryAfter)
		if left := time.Until(deadline); wait >= left {
			s.finish(ctx, d, store.DeliveryFailed, deliveryExhausted, fmt.Sprintf(
				"gave up after %d attempts: the next, in %s, would pass the delivery's time limit of %s: %s",
				d.Attempts, wait.Round(time.Millisecond), p.total, d.LastError))
			return
		}
		d.Next = now.Add(wait)
		d.LeaseUntil = d.Next.Add(p.lease)
		if !s.keep(ctx, d) {
			return
		}
		s.log.Info("webhook attempt failed; retrying", "delivery", d.ID, "attempt", d.Attempts, "in", wait.Round(time.Millisecond), "err", d.LastError)
		if err := p.sleep(ctx, wait); err != nil {
			s.shutdown(ctx, d)
			return
		}
	}
}

// keep saves a pending delivery's progress and reports whether this
// replica still holds it. When it does not — another replica claimed it
// after the lease ran out, or the store cannot be written, so that the
// hold cannot be renewed — it stops: the delivery's holder, or the next
// claim, carries on.
func (s *Server) keep(ctx context.Context, d store.Delivery) bool {
	ok, err := s.save(ctx, d)
	switch {
	case err != nil:
		s.log.Warn("recording a webhook delivery failed; it waits in the store until its lease ends",
			"delivery", d.ID, "err", err)
		return false
	case !ok:
		s.log.Warn("a webhook delivery was taken over by another replica", "delivery", d.ID)
		return false
	}
	return true
}

// shutdown leaves a delivery pending, held by no one, for the next claim.
func (s *Server) shutdown(ctx context.Context, d store.Delivery) {
	s.countDelivery(deliveryShutdown)
	s.release(ctx, d)
}

// finish records a delivery's final state and counts and logs its result.
func (s *Server) finish(ctx context.Context, d store.Delivery, state store.DeliveryState, result, why string) {
	d.State, d.LeaseUntil = state, time.Time{}
	if state == store.DeliveryFailed {
		d.LastError = why
	}
	if ok, err := s.save(ctx, d); err != nil || !ok {
		s.log.Warn("recording the end of a webhook delivery failed", "delivery", d.ID, "state", state, "taken_over", err == nil, "err", err)
	}
	s.countDelivery(result)
	switch result {
	case deliveryDelivered:
		s.log.Debug("webhook delivered", "approval", d.Approval, "delivery", d.ID, "attempts", d.Attempts)
	case deliveryObsolete:
		s.log.Info("webhook delivery not sent", "approval", d.Approval, "delivery", d.ID, "attempts", d.Attempts, "reason", why)
	default:
		s.log.Warn("webhook delivery failed", "result", result, "approval", d.Approval, "delivery", d.ID, "attempts", d.Attempts, "err", why)
	}
}

// obsolete says why a delivery is no longer worth sending — its approval
// was answered, expired or deleted, so nobody can act on it — or "" when
// it is (a store that cannot be read does not stop a delivery).
func (s *Server) obsolete(ctx context.Context, d store.Delivery) string {
	a, err := s.store.Approval(ctx, d.Approval)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "the approval " + d.Approval + " no longer exists"
	case err != nil:
		return ""
	case a.State != store.Pending:
		return "the approval " + d.Approval + " was " + string(a.State) + " before the delivery got through"
	case !a.Expires.After(s.now()):
		return "the approval " + d.Approval + " expired before the delivery got through"
	}
	return ""
}

// handleDeliveries is GET /v1/webhooks/deliveries: the recorded webhook
// deliveries, newest first, without their bodies, and with each URL cut to
// its scheme and host (a chat webhook's path is its credential).
// ?state=pending|delivered|failed (default every state), ?approval=ID,
// ?limit=N (default 100, at most 1000).
func (s *Server) handleDeliveries(w http.ResponseWriter, r *http.Request, _ Identity) {
	q := r.URL.Query()
	f := store.DeliveryFilter{State: store.DeliveryState(q.Get("state")), Approval: q.Get("approval"), Limit: 100}
	switch f.State {
	case "", "all":
		f.State = ""
	case store.DeliveryPending, store.DeliveryDelivered, store.DeliveryFailed:
	default:
		writeError(w, http.StatusBadRequest, "state must be pending, delivered, failed or all")
		return
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			writeError(w, http.StatusBadRequest, "limit must be a positive number")
			return
		}
		f.Limit = min(n, 1000)
	}
	list, err := s.store.Deliveries(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "reading webhook deliveries: %v", err)
		return
	}
	if list == nil {
		list = []store.Delivery{}
	}
	for i := range list {
		list[i].URL = redactURL(list[i].URL)
	}
	writeJSON(w, http.StatusOK, map[string]any{"deliveries": list})
}

// redactURL is a webhook URL as it may be shown: its scheme and host, and
// "/…" for a path, which for Slack and its like is the secret that lets
// anyone post.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "…"
	}
	out := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		out += "/…"
	}
	return out
}

// attempt posts body once. retry says whether a failure may be retried,
// retryAfter is the wait the receiver asked for (0 if none) and status
// the answer's HTTP status (0 if none).
func (s *Server) attempt(ctx context.Context, wh Webhook, id string, body []byte, deadline time.Time) (retry bool, retryAfter time.Duration, status int, err error) {
	if d := time.Now().Add(wh.Timeout); d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return false, 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "toolgate-serve")
	req.Header.Set(WebhookDeliveryHeader, id)
	if len(wh.Secret) > 0 {
		ts := strconv.FormatInt(s.now().Unix(), 10)
		req.Header.Set(WebhookTimestampHeader, ts)
		req.Header.Set(WebhookSignatureHeader, "v1="+hex.EncodeToString(webhookMAC(wh.Secret, ts, body)))
	}
	resp, err := wh.Client.Do(req)
	if err != nil {
		return true, 0, 0, err // the network, a timeout: worth another try
	}
	defer resp.Body.Close()
	// Read a little of the answer: its start names the problem, and an
	// answer read to its end lets the connection be used again.
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	code := resp.StatusCode
	if code/100 == 2 {
		return false, 0, code, nil
	}
	err = fmt.Errorf("the receiver answered %s", resp.Status)
	if text := strings.TrimSpace(string(snippet)); text != "" {
		err = fmt.Errorf("the receiver answered %s: %q", resp.Status, text)
	}
	if code == http.StatusTooManyRequests || code/100 == 5 {
		return true, s.retryAfter(resp.Header.Get("Retry-After")), code, err
	}
	if code/100 == 3 {
		err = fmt.Errorf("%w (redirects are not followed: give the webhook its final URL)", err)
	}
	return false, 0, code, err
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date. A
// missing, malformed or past value is 0.
func (s *Server) retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		return time.Duration(min(n, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(s.now()), 0)
	}
	return 0
}

// webhookMAC is the HMAC-SHA256 of "v1:" + ts + ":" + body under secret.
func webhookMAC(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("v1:" + ts + ":"))
	m.Write(body)
	return m.Sum(nil)
}

// defaultWebhookTolerance is VerifyWebhook's tolerance when given none.
const defaultWebhookTolerance = 5 * time.Minute

// VerifyWebhook checks that a webhook delivery (its headers and its body,
// exactly as received) was signed with secret at a time within tolerance
// of now (tolerance <= 0 means 5 minutes), and returns an error naming the
// problem when it was not. A receiver must verify before it acts on the
// body, and should remember the WebhookDeliveryHeader ids it has accepted
// for longer than the tolerance to drop repeats.
//
// The signature header may hold several comma-separated signatures; one
// v1 signature that matches is enough, and signatures of other schemes
// are ignored. Signatures are compared in constant time.
func VerifyWebhook(secret []byte, header http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	if len(secret) == 0 {
		return errors.New("webhook: no secret to verify the signature with")
	}
	if tolerance <= 0 {
		tolerance = defaultWebhookTolerance
	}
	ts := header.Get(WebhookTimestampHeader)
	if ts == "" {
		return fmt.Errorf("webhook: no %s header", WebhookTimestampHeader)
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec <= 0 || strings.HasPrefix(ts, "+") {
		return fmt.Errorf("webhook: %s %q is not a time in Unix seconds", WebhookTimestampHeader, ts)
	}
	switch age := now.Sub(time.Unix(sec, 0)); {
	case age > tolerance:
		return fmt.Errorf("webhook: the delivery was signed %s ago, longer than the tolerance of %s (a replay, or clocks apart)", age, tolerance)
	case age < -tolerance:
		return fmt.Errorf("webhook: the delivery was signed %s in the future, more than the tolerance of %s (clocks apart)", -age, tolerance)
	}
	values := header.Values(WebhookSignatureHeader)
	if len(values) == 0 {
		return fmt.Errorf("webhook: no %s header", WebhookSignatureHeader)
	}
	want := webhookMAC(secret, ts, body)
	found := false
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			sig, ok := strings.CutPrefix(strings.TrimSpace(part), "v1=")
			if !ok {
				continue
			}
			found = true
			got, err := hex.DecodeString(sig)
			if err == nil && hmac.Equal(got, want) {
				return nil
			}
		}
	}
	if !found {
		return fmt.Errorf("webhook: %s has no v1= signature", WebhookSignatureHeader)
	}
	return errors.New("webhook: the signature does not match (another secret, or the body or timestamp was changed)")
}

// slackText is a Slack message for a. The prompt is shown with invisible
// and bidirectional characters escaped, and Slack's control characters
// (&, <, >) escaped so that nothing in it becomes a link or a mention.
func slackText(a store.Approval, url string) string {
	esc := func(s string) string {
		var b bytes.Buffer
		for _, r := range Visible(s) {
			switch r {
			case '&':
				b.WriteString("&amp;")
			case '<':
				b.WriteString("&lt;")
			case '>':
				b.WriteString("&gt;")
			default:
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	who := a.Caller
	if a.Agent != "" {
		who += " (agent " + a.Agent + ")"
	}
	tool := esc(a.Tool)
	if a.Server != "" {
		tool += " (MCP server " + esc(a.Server) + ")"
	}
	text := fmt.Sprintf("toolgate: %s asks to run %s\n```%s```\napproval %s, expires %s",
		esc(who), tool, esc(a.Prompt), a.ID, a.Expires.Format(time.RFC3339))
	if url != "" {
		text += "\n<" + url + "|Answer it>"
	}
	return text
}
