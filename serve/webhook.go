package serve

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
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
	"time"

	"github.com/toolgate/toolgate/store"
)

// Webhook says where new approval requests are announced, and how.
//
// Deliveries are queued, so a slow or failing receiver never holds up a
// decision. A delivery that fails with a network error, a 5xx or a 429 is
// retried with capped exponential backoff and jitter (a Retry-After header
// is honoured when it fits the delivery's time limit); any other answer
// but 2xx — another 4xx, a redirect — is final. A delivery makes at most 5
// attempts within 2 minutes; one that still fails is logged and counted
// (toolgate_webhook_deliveries_total).
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
}

// webhookWorkers deliver concurrently, so that one delivery waiting to be
// retried does not hold up the next.
const webhookWorkers = 4

// Results of a delivery, the label values of toolgate_webhook_deliveries_total.
const (
	deliveryDelivered = "delivered" // a 2xx answer
	deliveryRejected  = "rejected"  // an answer that is not retried (4xx but 429, 3xx)
	deliveryExhausted = "exhausted" // out of attempts or time
	deliveryDropped   = "dropped"   // the queue was full
	deliveryShutdown  = "shutdown"  // abandoned at shutdown
	deliveryFailed    = "failed"    // the request could not be built
)

var deliveryResults = []string{deliveryDelivered, deliveryRejected, deliveryExhausted, deliveryDropped, deliveryShutdown, deliveryFailed}

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

// delivery is one event to announce.
type delivery struct {
	id string // the same in every attempt
	a  store.Approval
}

// notifyWebhook queues a delivery; when the queue is full it is dropped
// (and counted): a slow receiver never holds up decisions.
func (s *Server) notifyWebhook(a store.Approval) {
	if s.opts.Webhook.URL == "" {
		return
	}
	d := delivery{id: "dl_" + strings.ToLower(rand.Text()), a: a}
	select {
	case s.hooks <- d:
	default:
		s.countDelivery(deliveryDropped)
		s.log.Warn("webhook queue full; delivery dropped", "approval", a.ID, "delivery", d.id)
	}
}

func (s *Server) countDelivery(result string) {
	s.m.webhookDeliveries.WithLabelValues(result).Inc()
	switch result {
	case deliveryRejected, deliveryExhausted, deliveryDropped, deliveryFailed:
		s.m.webhookErrors.Inc()
	}
}

// deliverWebhooks sends queued deliveries until ctx is done; what is still
// queued then is counted as abandoned.
func (s *Server) deliverWebhooks(ctx context.Context) {
	wh := s.opts.Webhook
	if wh.URL == "" {
		return
	}
	var wg sync.WaitGroup
	for range webhookWorkers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case d := <-s.hooks:
					s.deliver(ctx, wh, d)
				}
			}
		})
	}
	wg.Wait()
	for n := 0; ; n++ {
		select {
		case <-s.hooks:
			s.countDelivery(deliveryShutdown)
		default:
			if n > 0 {
				s.log.Warn("shutting down: webhook deliveries not sent", "count", n)
			}
			return
		}
	}
}

// deliver sends one delivery, retrying as the policy allows, and counts
// and logs its result.
func (s *Server) deliver(ctx context.Context, wh Webhook, d delivery) {
	var body any = webhookEvent{Type: "approval.requested", Delivery: d.id, Approval: d.a, URL: s.approvalURL(d.a.ID)}
	if wh.Slack {
		body = map[string]string{"text": slackText(d.a, s.approvalURL(d.a.ID))}
	}
	b, err := json.Marshal(body)
	if err != nil {
		s.countDelivery(deliveryFailed)
		s.log.Error("webhook body", "approval", d.a.ID, "err", err)
		return
	}
	result, attempts, err := s.send(ctx, wh, d.id, b)
	s.countDelivery(result)
	if result == deliveryDelivered {
		s.log.Debug("webhook delivered", "approval", d.a.ID, "delivery", d.id, "attempts", attempts)
		return
	}
	s.log.Warn("webhook delivery failed", "result", result, "approval", d.a.ID, "delivery", d.id, "attempts", attempts, "err", err)
}

// send posts body until it is delivered, refused, out of attempts or time,
// or ctx is done, and returns the result, the number of attempts made and
// the last error.
func (s *Server) send(ctx context.Context, wh Webhook, id string, body []byte) (string, int, error) {
	p := wh.retry
	deadline := time.Now().Add(p.total)
	for n := 1; ; n++ {
		retry, retryAfter, err := s.attempt(ctx, wh, id, body, deadline)
		s.m.webhookAttempts.Inc()
		switch {
		case err == nil:
			return deliveryDelivered, n, nil
		case ctx.Err() != nil:
			return deliveryShutdown, n, err
		case !retry:
			return deliveryRejected, n, err
		case n >= p.attempts:
			return deliveryExhausted, n, fmt.Errorf("gave up after %d attempts: %w", n, err)
		}
		wait := max(p.backoff(n), retryAfter)
		if left := time.Until(deadline); wait >= left {
			return deliveryExhausted, n, fmt.Errorf("gave up after %d attempts: the next, in %s, would pass the delivery's time limit of %s: %w",
				n, wait.Round(time.Millisecond), p.total, err)
		}
		s.log.Info("webhook attempt failed; retrying", "delivery", id, "attempt", n, "in", wait.Round(time.Millisecond), "err", err)
		if err := p.sleep(ctx, wait); err != nil {
			return deliveryShutdown, n, err
		}
	}
}

// attempt posts body once. retry says whether a failure may be retried,
// and retryAfter is the wait the receiver asked for (0 if none).
func (s *Server) attempt(ctx context.Context, wh Webhook, id string, body []byte, deadline time.Time) (retry bool, retryAfter time.Duration, err error) {
	if d := time.Now().Add(wh.Timeout); d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(body))
	if err != nil {
		return false, 0, err
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
		return true, 0, err // the network, a timeout: worth another try
	}
	defer resp.Body.Close()
	// Read a little of the answer: its start names the problem, and an
	// answer read to its end lets the connection be used again.
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	code := resp.StatusCode
	if code/100 == 2 {
		return false, 0, nil
	}
	err = fmt.Errorf("the receiver answered %s", resp.Status)
	if text := strings.TrimSpace(string(snippet)); text != "" {
		err = fmt.Errorf("the receiver answered %s: %q", resp.Status, text)
	}
	if code == http.StatusTooManyRequests || code/100 == 5 {
		return true, s.retryAfter(resp.Header.Get("Retry-After")), err
	}
	if code/100 == 3 {
		err = fmt.Errorf("%w (redirects are not followed: give the webhook its final URL)", err)
	}
	return false, 0, err
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
	text := fmt.Sprintf("toolgate: %s asks to run %s\n```%s```\napproval %s, expires %s",
		esc(who), esc(a.Tool), esc(a.Prompt), a.ID, a.Expires.Format(time.RFC3339))
	if url != "" {
		text += "\n<" + url + "|Answer it>"
	}
	return text
}
