package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/toolgate/toolgate/store"
)

// Webhook says where new approval requests are announced.
type Webhook struct {
	// URL receives a POST for every new approval request; "" = none.
	URL string
	// Slack sends a Slack incoming-webhook body ({"text": ...}) instead of
	// the JSON event.
	Slack bool
	// Timeout bounds one delivery (default 5s).
	Timeout time.Duration
	// Client sends the requests (default: a client with Timeout).
	Client *http.Client
}

// webhookEvent is the JSON body of a delivery.
type webhookEvent struct {
	Type     string         `json:"type"` // approval.requested
	Approval store.Approval `json:"approval"`
	URL      string         `json:"url,omitempty"`
}

// notifyWebhook queues a delivery; when the queue is full it is dropped
// (and counted): a slow receiver never holds up decisions.
func (s *Server) notifyWebhook(a store.Approval) {
	if s.opts.Webhook.URL == "" {
		return
	}
	select {
	case s.hooks <- a:
	default:
		s.m.webhookErrors.Inc()
		s.log.Warn("webhook queue full; delivery dropped", "approval", a.ID)
	}
}

// deliverWebhooks posts queued events until ctx is done.
func (s *Server) deliverWebhooks(ctx context.Context) {
	wh := s.opts.Webhook
	if wh.URL == "" {
		return
	}
	if wh.Timeout <= 0 {
		wh.Timeout = 5 * time.Second
	}
	client := wh.Client
	if client == nil {
		client = &http.Client{Timeout: wh.Timeout}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case a := <-s.hooks:
			if err := s.deliver(ctx, client, wh, a); err != nil {
				s.m.webhookErrors.Inc()
				s.log.Warn("webhook delivery failed", "approval", a.ID, "err", err)
			}
		}
	}
}

func (s *Server) deliver(ctx context.Context, client *http.Client, wh Webhook, a store.Approval) error {
	var body any = webhookEvent{Type: "approval.requested", Approval: a, URL: s.approvalURL(a.ID)}
	if wh.Slack {
		body = map[string]string{"text": slackText(a, s.approvalURL(a.ID))}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, wh.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, wh.URL, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "toolgate-serve")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", wh.URL, resp.Status)
	}
	return nil
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
