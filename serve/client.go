package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/store"
)

// Client talks to a toolgate decision service. Its Decide makes it a
// checker (toolgate.Checker): a remote policy decision point that fails
// closed — an unreachable or misbehaving server is a deny naming why.
type Client struct {
	// URL is the service's base URL, e.g. https://toolgate.example.com.
	URL string
	// Token is the bearer token.
	Token string
	// HTTP sends the requests (default: a client with a 10s timeout).
	HTTP *http.Client
	// Timeout bounds Decide, which takes no context (default 10s).
	Timeout time.Duration
}

// Remote is what the service adds to a decision: the policy revision and,
// for an ask it recorded, the approval to wait for.
type Remote struct {
	Revision string
	Approval *ApprovalRef
}

// ApprovalRef points an ask at its approval record.
type ApprovalRef = approvalRef

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 10 * time.Second}
}

// do sends a request and decodes a JSON answer into out. A status that is
// not 2xx is an error carrying the server's message.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.URL, "/")+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.http().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e apiError
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return &StatusError{Code: resp.StatusCode, Message: e.Error}
		}
		return &StatusError{Code: resp.StatusCode, Message: strings.TrimSpace(string(data))}
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("malformed answer from %s: %v", c.URL, err)
		}
	}
	return nil
}

// StatusError is a refusal by the server.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Code, http.StatusText(e.Code), e.Message)
}

// Decide asks the service to decide c. It never fails: an error is a deny.
func (c *Client) Decide(call Call) Decision {
	t := c.Timeout
	if t <= 0 {
		t = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), t)
	defer cancel()
	d, _, err := c.DecideContext(ctx, call)
	if err != nil {
		return denial(kindError, "the toolgate server cannot decide: "+err.Error())
	}
	return d
}

// DecideContext asks the service to decide c. The error is set only when
// there is no decision from the server; a refusal with a decision body
// (a malformed call) returns that decision.
func (c *Client) DecideContext(ctx context.Context, call Call) (Decision, Remote, error) {
	body, err := requestJSON(call)
	if err != nil {
		return Decision{}, Remote{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.URL, "/")+"/v1/decide", bytes.NewReader(body))
	if err != nil {
		return Decision{}, Remote{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.http().Do(req)
	if err != nil {
		return Decision{}, Remote{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return Decision{}, Remote{}, err
	}
	var r response
	if err := json.Unmarshal(data, &r); err != nil || r.Decision == "" {
		return Decision{}, Remote{}, fmt.Errorf("%s answered %s without a decision", c.URL, resp.Status)
	}
	d, err := decisionOf(r)
	if err != nil {
		return Decision{}, Remote{}, err
	}
	if resp.StatusCode/100 != 2 && d.Allowed() {
		return Decision{}, Remote{}, fmt.Errorf("%s answered %s with an allow", c.URL, resp.Status)
	}
	return d, Remote{Revision: r.Revision, Approval: r.Approval}, nil
}

// DecideWait decides c like DecideContext and, when the answer is an ask
// the service recorded as an approval and wait is positive, waits up to
// wait for a person to answer it: approved, the call is decided again (the
// service lets exactly this call through, once, and records who approved
// it); denied or expired, the answer is a deny naming the approver or the
// state, followed by the ask's reasons; unanswered in time, the ask
// stands, with its approval in Remote. The error is set only when there
// is no decision from the server.
func (c *Client) DecideWait(ctx context.Context, call Call, wait time.Duration) (Decision, Remote, error) {
	d, remote, err := c.DecideContext(ctx, call)
	if err != nil || !isAsk(d) || wait <= 0 || remote.Approval == nil || remote.Approval.ID == "" {
		return d, remote, err
	}
	id := remote.Approval.ID
	deadline := time.Now().Add(wait)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return d, remote, nil // nobody answered in time: the ask stands
		}
		// One wait at most 20 s, within an HTTP client's usual 30 s timeout.
		a, err := c.Approval(ctx, id, min(left, 20*time.Second))
		if err != nil {
			return Decision{}, Remote{}, fmt.Errorf("waiting for approval %s: %v", id, err)
		}
		switch a.State {
		case store.Pending:
			continue
		case store.Approved:
			return c.DecideContext(ctx, call)
		}
		why := fmt.Sprintf("approval %s is %s", id, a.State)
		if a.State == store.Denied && a.Approver != "" {
			why = fmt.Sprintf("%s denied the call (approval %s)", a.Approver, id)
			if a.Note != "" {
				why += ": " + a.Note
			}
		}
		out := denyWith(d, string(toolgate.KindHook), why)
		remote.Approval = &ApprovalRef{ID: a.ID, State: string(a.State), Expires: a.Expires.Format(time.RFC3339), URL: remote.Approval.URL}
		return out, remote, nil
	}
}

// ExposedTools asks the service which of tools its policy, with the rules
// for every session, shows to a model (POST /v1/visibility), and under
// which revision.
func (c *Client) ExposedTools(ctx context.Context, tools []string) (VisibilityAnswer, error) {
	return c.SessionExposedTools(ctx, "", tools)
}

// SessionExposedTools is ExposedTools for one session: the answer also
// counts the session's own rules, as the session's decisions do. An empty
// session is ExposedTools.
func (c *Client) SessionExposedTools(ctx context.Context, session string, tools []string) (VisibilityAnswer, error) {
	var out VisibilityAnswer
	if tools == nil {
		tools = []string{}
	}
	if err := c.do(ctx, http.MethodPost, "/v1/visibility", visibilityRequest{Tools: tools, Session: session}, &out); err != nil {
		return VisibilityAnswer{}, err
	}
	if out.Revision == "" || out.Tools == nil {
		return VisibilityAnswer{}, fmt.Errorf("%s answered the visibility request without a revision or tools", c.URL)
	}
	return out, nil
}

// Policy describes the policy in force (GET /v1/policy).
func (c *Client) Policy(ctx context.Context) (PolicyInfo, error) {
	var out PolicyInfo
	err := c.do(ctx, http.MethodGet, "/v1/policy", nil, &out)
	return out, err
}

// Approvals lists approvals in state ("" = pending, "all" = every state).
func (c *Client) Approvals(ctx context.Context, state string, limit int) ([]store.Approval, error) {
	q := url.Values{}
	if state != "" {
		q.Set("state", state)
	}
	if limit > 0 {
		q.Set("limit", fmt.Sprint(limit))
	}
	var out struct{ Approvals []store.Approval }
	err := c.do(ctx, http.MethodGet, "/v1/approvals?"+q.Encode(), nil, &out)
	return out.Approvals, err
}

// Approval returns one approval; with wait > 0 the server holds the
// request until it is answered or wait has passed.
func (c *Client) Approval(ctx context.Context, id string, wait time.Duration) (store.Approval, error) {
	var a store.Approval
	path := "/v1/approvals/" + url.PathEscape(id)
	if wait > 0 {
		path += "?wait=" + wait.String()
	}
	err := c.do(ctx, http.MethodGet, path, nil, &a)
	return a, err
}

// Approve approves an approval, once or (scope "session") for its session.
func (c *Client) Approve(ctx context.Context, id, scope, note string) (store.Approval, error) {
	var a store.Approval
	err := c.do(ctx, http.MethodPost, "/v1/approvals/"+url.PathEscape(id)+"/approve", answerRequest{Scope: scope, Note: note}, &a)
	return a, err
}

// Deny denies an approval.
func (c *Client) Deny(ctx context.Context, id, note string) (store.Approval, error) {
	var a store.Approval
	err := c.do(ctx, http.MethodPost, "/v1/approvals/"+url.PathEscape(id)+"/deny", answerRequest{Note: note}, &a)
	return a, err
}
