package mcpgate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstream is one server behind the proxy: its connection, restarted when
// it ends, and its last listing.
type upstream struct {
	spec ServerSpec
	p    *Proxy

	mu      sync.Mutex
	cs      *mcp.ClientSession // nil while not connected
	lastErr error              // why the last connection ended or failed
	started time.Time
	// inflight counts calls in progress per downstream session, so that
	// an elicitation or sampling request the server makes while serving
	// one is relayed to the session that made the call.
	inflight map[*mcp.ServerSession]int

	refreshMu sync.Mutex // one listing at a time
}

// timeout bounds one request to the server.
func (u *upstream) timeout() time.Duration {
	if u.spec.Timeout > 0 {
		return u.spec.Timeout
	}
	return u.p.opts.CallTimeout
}

// transport returns a new transport to the server.
func (u *upstream) transport(ctx context.Context) (mcp.Transport, error) {
	if u.p.opts.Connect != nil {
		return u.p.opts.Connect(ctx, u.spec)
	}
	return newTransport(u.spec, u.p.opts.ServerStderr)
}

// newTransport returns the transport to a server: its command over stdio,
// or its URL over streamable HTTP.
func newTransport(spec ServerSpec, stderr io.Writer) (mcp.Transport, error) {
	if spec.URL != "" {
		hc := &http.Client{Transport: headerTransport{headers: spec.Headers, next: http.DefaultTransport}}
		return &mcp.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: hc, MaxRetries: 2}, nil
	}
	if len(spec.Command) == 0 {
		return nil, errors.New("no command and no url")
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	if len(spec.Env) > 0 {
		env := cmd.Environ()
		for k, v := range spec.Env {
			env = append(env, k+"="+v)
		}
		cmd.Env = env
	}
	cmd.Stderr = stderr
	return &commandTransport{cmd: cmd, terminate: 2 * time.Second}, nil
}

// ListTools connects to one server, lists its tools and disconnects: what
// "toolgate mcp lock" pins. The server's standard error goes to stderr
// (nil: discarded); timeout bounds the whole exchange.
func ListTools(ctx context.Context, spec ServerSpec, timeout time.Duration, stderr io.Writer) ([]*mcp.Tool, error) {
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	t, err := newTransport(spec, stderr)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: %v", spec.Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgate-mcp-lock"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp server %q: connecting: %v", spec.Name, err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: tools/list: %v", spec.Name, err)
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	headers map[string]string
	next    http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.next.RoundTrip(r)
}

// connect starts a session with the server and lists what it offers.
func (u *upstream) connect(ctx context.Context) error {
	t, err := u.transport(ctx)
	if err != nil {
		return u.failed(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "toolgate-mcp", Version: u.p.opts.Version}, &mcp.ClientOptions{
		ElicitationHandler: u.relayElicit,
		//lint:ignore SA1019 sampling is deprecated in 2026-07-28 but still used by servers; the proxy relays it.
		CreateMessageHandler:       u.relaySampling,
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { u.p.refreshLater(u) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { u.p.refreshLater(u) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { u.p.refreshLater(u) },
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			if ss, err := u.relayTarget(); err == nil {
				ss.NotifyProgress(ctx, req.Params)
			}
		},
		Capabilities: &mcp.ClientCapabilities{},
	})
	cctx, cancel := context.WithTimeout(ctx, u.timeout())
	defer cancel()
	cs, err := client.Connect(cctx, t, nil)
	if err != nil {
		return u.failed(fmt.Errorf("connecting: %w", err))
	}
	u.mu.Lock()
	u.cs, u.lastErr, u.started = cs, nil, time.Now()
	u.mu.Unlock()
	go u.watch(cs)
	u.p.logf("mcp server %q connected", u.spec.Name)
	return u.p.refresh(ctx, u)
}

func (u *upstream) failed(err error) error {
	u.mu.Lock()
	u.lastErr = err
	u.mu.Unlock()
	return fmt.Errorf("mcp server %q: %w", u.spec.Name, err)
}

// watch waits for the session to end, then reports it and restarts the
// server with a growing delay. Its tools stay listed meanwhile; calls to
// them are refused with the reason until the server is back.
func (u *upstream) watch(cs *mcp.ClientSession) {
	err := cs.Wait()
	u.mu.Lock()
	if u.cs != cs {
		u.mu.Unlock()
		return
	}
	u.cs = nil
	if err == nil {
		err = errors.New("the connection closed")
	}
	u.lastErr = fmt.Errorf("the server stopped: %v", err)
	up := time.Since(u.started)
	u.mu.Unlock()
	if u.p.closing() {
		return
	}
	u.p.logf("mcp server %q stopped after %s: %v; restarting", u.spec.Name, up.Round(time.Millisecond), err)
	delay := 200 * time.Millisecond
	for !u.p.closing() {
		if err := u.connect(u.p.ctx); err == nil {
			return
		} else {
			u.p.logf("%v; retrying in %s", err, delay)
		}
		select {
		case <-time.After(delay):
		case <-u.p.ctx.Done():
			return
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// session returns the live session, or why there is none.
func (u *upstream) session() (*mcp.ClientSession, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cs != nil {
		return u.cs, nil
	}
	if u.lastErr != nil {
		return nil, fmt.Errorf("mcp server %q is not running: %v", u.spec.Name, u.lastErr)
	}
	return nil, fmt.Errorf("mcp server %q is not connected", u.spec.Name)
}

// track records a call in progress for ss; the returned func ends it.
func (u *upstream) track(ss *mcp.ServerSession) func() {
	if ss == nil {
		return func() {}
	}
	u.mu.Lock()
	if u.inflight == nil {
		u.inflight = map[*mcp.ServerSession]int{}
	}
	u.inflight[ss]++
	u.mu.Unlock()
	return func() {
		u.mu.Lock()
		if u.inflight[ss]--; u.inflight[ss] <= 0 {
			delete(u.inflight, ss)
		}
		u.mu.Unlock()
	}
}

// relayTarget is the downstream session a request from the server belongs
// to: the only one with a call in progress on it. With none, or several,
// the request cannot be attributed and is refused.
func (u *upstream) relayTarget() (*mcp.ServerSession, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.inflight) == 1 {
		for ss := range u.inflight {
			return ss, nil
		}
	}
	if len(u.inflight) == 0 {
		return nil, fmt.Errorf("mcp server %q asked outside any call; the proxy relays only requests made while serving a call", u.spec.Name)
	}
	return nil, fmt.Errorf("mcp server %q asked while serving several clients; the proxy cannot tell which one to ask", u.spec.Name)
}

// relayElicit passes the server's elicitation to the client whose call it
// is serving, naming the server in the message.
func (u *upstream) relayElicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	ss, err := u.relayTarget()
	if err != nil {
		return nil, err
	}
	if ss.InitializeParams() == nil || ss.InitializeParams().ProtocolVersion >= "2026-07-28" {
		return nil, fmt.Errorf("mcp server %q asked the user, and this client (protocol 2026-07-28) cannot be asked in the middle of a call", u.spec.Name)
	}
	params := *req.Params
	params.Message = fmt.Sprintf("[MCP server %q asks] %s", u.spec.Name, params.Message)
	return ss.Elicit(ctx, &params)
}

// relaySampling passes the server's sampling request to the client whose
// call it is serving.
//
//lint:ignore SA1019 sampling is deprecated in 2026-07-28 but still used by servers; the proxy relays it.
func (u *upstream) relaySampling(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	ss, err := u.relayTarget()
	if err != nil {
		return nil, err
	}
	if ss.InitializeParams() == nil || ss.InitializeParams().ProtocolVersion >= "2026-07-28" {
		return nil, fmt.Errorf("mcp server %q asked for sampling, and this client (protocol 2026-07-28) cannot be asked in the middle of a call", u.spec.Name)
	}
	//lint:ignore SA1019 see relaySampling.
	return ss.CreateMessage(ctx, req.Params)
}

// close ends the session.
func (u *upstream) close() {
	u.mu.Lock()
	cs := u.cs
	u.cs = nil
	u.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
}
