package mcpgate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/toolgate/toolgate/audit"
)

// Options configure a Proxy. Servers and one of Engine and Checker are
// required; the zero value of every other field is a safe default.
type Options struct {
	// Engine decides every call, in process.
	Engine *Engine
	// Checker, instead of Engine, decides every call: a remote decision
	// service, for one. It may also say which tools are listed
	// ([ToolVisibility]) and keep its asks as approvals a person answers
	// out of band ([ApprovalWaiter]); its Revision() string method, if it
	// has one, names the policy in force. Calls to it carry the downstream
	// session's id, or one random id per proxy for sessions without one.
	Checker Checker
	// Servers are the upstream servers.
	Servers []ServerSpec
	// Cwd and Home are the working and home directories of the calls, for
	// path rules (resources/read of file: URIs). Cwd is required and must
	// be absolute.
	Cwd, Home string
	// Lock holds the pinned tool definitions; nil pins nothing.
	Lock *Lock
	// Pin says what happens to a tool not pinned, or changed; the zero value
	// is PinEnforce.
	Pin PinMode
	// Audit receives one event per decision; nil records nothing.
	Audit audit.Sink
	// CallTimeout bounds one request to an upstream server (a server's own
	// timeout wins); zero: 60 s.
	CallTimeout time.Duration
	// AskTimeout is how long a person has to answer; zero: 2 min. It is also
	// the life of an input_required request state.
	AskTimeout time.Duration
	// DenyAsks denies every call that needs a person's approval instead of
	// putting it to the client's user (a gateway in front of headless
	// agents, whose users are not there to answer). An approval a person
	// gives out of band through a Checker still lets the call run.
	DenyAsks bool
	// Logger receives what the proxy has to tell its operator (a server
	// that stopped, a tool hidden by pinning); nil: discarded.
	Logger *slog.Logger
	// ServerStderr receives the standard error of command servers; nil:
	// discarded.
	ServerStderr io.Writer
	// Connect, if set, returns the transport to a server instead of
	// starting its command or dialling its URL (tests use in-memory
	// transports).
	Connect func(ctx context.Context, s ServerSpec) (mcp.Transport, error)
	// Version is the proxy's version, shown to clients and servers.
	Version string
	// StateKey signs request states; nil: a random key per Proxy. At least
	// 16 bytes.
	StateKey []byte
	// KeepNames, with exactly one server, offers its tools and prompts
	// under their own names, for a client that already prefixes them with
	// its own name for the server (a wrapped client configuration). Rules
	// still name the tools mcp__<server>__<tool>.
	KeepNames bool
}

// Proxy is an MCP server that gates the servers behind it. It is safe for
// concurrent use by any number of downstream sessions.
type Proxy struct {
	opts   Options
	policy *policy
	state  *stateSigner
	server *mcp.Server
	ups    []*upstream
	byName map[string]*upstream

	ctx    context.Context
	cancel context.CancelFunc
	closed atomic.Bool

	mu           sync.Mutex
	lock         *Lock                 // the pins in force (SetLock)
	exposed      map[string]*toolEntry // downstream name → tool
	hidden       map[string]hiddenTool // downstream name → why it is hidden
	resources    map[string]string     // downstream resource key → server name
	prompts      map[string]string     // downstream prompt name → server name
	promptDefs   map[string]string     // downstream prompt name → its definition, as JSON
	resourceDefs map[string]string     // resource URI (or "template " + URI template) → its definition
	templates    map[string]*upstream  // URI template → server

	viewsMu sync.Mutex
	views   map[string]*sessionView // downstream session → what it was shown (sessions.go)
}

// hiddenTool is a tool the proxy does not offer, and why.
type hiddenTool struct {
	up  *upstream
	why string
}

// toolEntry is one exposed tool.
type toolEntry struct {
	up      *upstream
	name    string // downstream name: the rule name, or the tool's own with KeepNames
	rule    string // the name rules use: mcp__<server>__<tool>
	tool    *mcp.Tool
	digest  string
	schema  *jsonschema.Schema // nil if the schema could not be compiled
	effect  annotationEffect
	trusted bool
}

// instructions is what the proxy tells a client it serves: the servers
// behind it by name, and that toolgate checks every call. An upstream's own
// instructions are not passed on: like a tool's description they are text
// for the model, and unlike one they are not pinned.
func instructions(servers []ServerSpec) string {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	switch len(names) {
	case 0:
		return "MCP tools, each call checked by toolgate's policy."
	case 1:
		return fmt.Sprintf("Tools of the MCP server %q, each call checked by toolgate's policy.", names[0])
	}
	return fmt.Sprintf("Tools of the MCP servers %s, offered as mcp__<server>__<tool>, each call checked by toolgate's policy.", strings.Join(names, ", "))
}

// New returns a proxy for the servers; call Start to connect them.
func New(options *Options) (*Proxy, error) {
	var opts Options
	if options != nil {
		opts = *options
	}
	if opts.Engine == nil && opts.Checker == nil {
		return nil, errors.New("mcpgate: no policy engine")
	}
	if opts.Engine != nil && opts.Checker != nil {
		return nil, errors.New("mcpgate: give an Engine or a Checker, not both")
	}
	if len(opts.Servers) == 0 {
		return nil, errors.New("mcpgate: no servers")
	}
	if !filepath.IsAbs(opts.Cwd) {
		return nil, fmt.Errorf("mcpgate: Options.Cwd %q is not an absolute directory", opts.Cwd)
	}
	if opts.KeepNames && len(opts.Servers) != 1 {
		return nil, errors.New("mcpgate: KeepNames needs exactly one server")
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 60 * time.Second
	}
	if opts.AskTimeout <= 0 {
		opts.AskTimeout = 2 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	st, err := newStateSigner(opts.StateKey, nil)
	if err != nil {
		return nil, fmt.Errorf("mcpgate: %v", err)
	}
	pol := &policy{e: opts.Engine, chk: opts.Checker, cwd: opts.Cwd, home: opts.Home}
	if pol.e == nil {
		pol.session = newSessionID()
	}
	p := &Proxy{opts: opts, lock: opts.Lock, policy: pol, state: st,
		byName: map[string]*upstream{}, exposed: map[string]*toolEntry{}, hidden: map[string]hiddenTool{},
		resources: map[string]string{}, prompts: map[string]string{}, promptDefs: map[string]string{}, resourceDefs: map[string]string{}, templates: map[string]*upstream{},
		views: map[string]*sessionView{}}
	for _, s := range opts.Servers {
		if err := ValidServerName(s.Name); err != nil {
			return nil, fmt.Errorf("mcpgate: %v", err)
		}
		if p.byName[s.Name] != nil {
			return nil, fmt.Errorf("mcpgate: server %q named twice", s.Name)
		}
		u := &upstream{spec: s, p: p}
		p.ups = append(p.ups, u)
		p.byName[s.Name] = u
	}
	p.server = mcp.NewServer(&mcp.Implementation{Name: "toolgate", Version: opts.Version}, &mcp.ServerOptions{
		Instructions:      instructions(opts.Servers),
		CompletionHandler: p.complete,
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true},
			Completions: &mcp.CompletionCapabilities{},
		},
	})
	p.server.AddReceivingMiddleware(p.middleware)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

// Start connects every server, concurrently, and lists its tools. A server
// that cannot be reached is reported in the returned error (all of them
// joined) and retried in the background; the proxy serves the others.
func (p *Proxy) Start(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make([]error, len(p.ups))
	for i, u := range p.ups {
		wg.Go(func() {
			if errs[i] = u.connect(ctx); errs[i] != nil {
				go u.retry()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// retry reconnects a server that could not be started, with a growing delay.
func (u *upstream) retry() {
	delay := time.Second
	for !u.p.closing() {
		select {
		case <-time.After(delay):
		case <-u.p.ctx.Done():
			return
		}
		if err := u.connect(u.p.ctx); err == nil {
			return
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// Server returns the downstream MCP server: run it on a transport
// ([NewIOTransport] over standard input and output, or an HTTP handler
// from [Proxy.HTTPHandler]).
func (p *Proxy) Server() *mcp.Server { return p.server }

// Close disconnects every server.
func (p *Proxy) Close() error {
	if p.closed.Swap(true) {
		return nil
	}
	p.cancel()
	for _, u := range p.ups {
		u.close()
	}
	return nil
}

func (p *Proxy) closing() bool { return p.closed.Load() }

func (p *Proxy) logf(format string, args ...any) {
	p.opts.Logger.Info(fmt.Sprintf(format, args...))
}

// Refilter applies the policy in force again to every server's last
// listing (after the engine's configuration was reloaded).
func (p *Proxy) Refilter(ctx context.Context) {
	for _, u := range p.ups {
		if err := p.refresh(ctx, u); err != nil {
			p.logf("%v", err)
		}
	}
	p.recheckSessions(ctx)
}

// SetLock puts other pins in force (a lock file a person just rewrote
// with "toolgate mcp lock") and applies them to every server's tools.
// The lock must not be modified afterwards.
func (p *Proxy) SetLock(ctx context.Context, l *Lock) {
	p.mu.Lock()
	p.lock = l
	p.mu.Unlock()
	p.Refilter(ctx)
}

func (p *Proxy) currentLock() *Lock {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lock
}

// refreshLater lists a server's offerings again after it said they changed.
func (p *Proxy) refreshLater(u *upstream) {
	go func() {
		if err := p.refresh(p.ctx, u); err != nil {
			p.logf("%v", err)
		}
	}()
}

// toolName is what toolgate accepts as a tool name.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.:/-]{1,128}$`)

// refresh lists a server's tools, prompts and resources and exposes what
// the policy and the pins allow.
func (p *Proxy) refresh(ctx context.Context, u *upstream) error {
	u.refreshMu.Lock()
	defer u.refreshMu.Unlock()
	cs, err := u.session()
	if err != nil {
		return err
	}
	lctx, cancel := context.WithTimeout(ctx, u.timeout())
	defer cancel()
	caps := cs.InitializeResult().Capabilities
	var tools []*mcp.Tool
	if caps == nil || caps.Tools != nil {
		for t, err := range cs.Tools(lctx, nil) {
			if err != nil {
				return fmt.Errorf("mcp server %q: tools/list: %v", u.spec.Name, err)
			}
			tools = append(tools, t)
		}
	}
	visible, err := p.policy.visibility(lctx, ruleNames(u, tools))
	if err != nil {
		p.opts.Logger.Warn(fmt.Sprintf("mcp server %q: the policy cannot say which tools to show (%v); no tool is listed until it can", u.spec.Name, err))
	}
	p.exposeTools(u, tools, visible)
	if caps != nil && caps.Prompts != nil {
		var prompts []*mcp.Prompt
		for pr, err := range cs.Prompts(lctx, nil) {
			if err != nil {
				p.logf("mcp server %q: prompts/list: %v", u.spec.Name, err)
				break
			}
			prompts = append(prompts, pr)
		}
		p.exposePrompts(u, prompts)
	}
	if caps != nil && caps.Resources != nil {
		var res []*mcp.Resource
		for r, err := range cs.Resources(lctx, nil) {
			if err != nil {
				p.logf("mcp server %q: resources/list: %v", u.spec.Name, err)
				break
			}
			res = append(res, r)
		}
		var tmpls []*mcp.ResourceTemplate
		for t, err := range cs.ResourceTemplates(lctx, nil) {
			if err != nil {
				break // many servers have no templates and answer with an error
			}
			tmpls = append(tmpls, t)
		}
		p.exposeResources(u, res, tmpls)
	}
	return nil
}

// ruleNames are the names rules give the server's tools (those that are
// tool names).
func ruleNames(u *upstream, tools []*mcp.Tool) []string {
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		if t != nil && toolName.MatchString("mcp__"+u.spec.Name+"__"+t.Name) {
			names = append(names, "mcp__"+u.spec.Name+"__"+t.Name)
		}
	}
	return names
}

// exposeTools replaces the server's tools in the downstream listing;
// visible says which tools (by rule name) the policy shows.
func (p *Proxy) exposeTools(u *upstream, tools []*mcp.Tool, visible func(string) bool) {
	prefix := "mcp__" + u.spec.Name + "__"
	next := map[string]*toolEntry{}
	hidden := map[string]string{}
	var unpinned []string // shown under PinWarn although not pinned as they are
	for _, t := range tools {
		if t == nil {
			continue
		}
		name, down := prefix+t.Name, prefix+t.Name
		if p.opts.KeepNames {
			down = t.Name
		}
		if !toolName.MatchString(name) {
			p.logf("mcp server %q: tool %q is hidden: its name %q is not a tool name toolgate's rules can name", u.spec.Name, t.Name, name)
			continue
		}
		if _, dup := next[down]; dup {
			hidden[down] = fmt.Sprintf("tool %s is hidden: the server %q lists it twice", name, u.spec.Name)
			delete(next, down)
			continue
		}
		digest, err := ToolDigest(t)
		if err != nil {
			hidden[down] = fmt.Sprintf("tool %s is hidden: its definition cannot be read: %v", name, err)
			continue
		}
		ps := pinMatch
		if p.opts.Pin != PinOff {
			ps = checkPin(p.currentLock(), u.spec.Name, t)
		}
		visible := visible(name)
		if ps != pinMatch {
			why := map[pinState]string{
				pinUnpinned:   "its definition is not pinned in the lock file",
				pinChanged:    "its definition (description, input schema or annotations) changed since it was pinned",
				pinUnhashable: "its definition cannot be hashed",
			}[ps]
			if p.opts.Pin == PinEnforce {
				hidden[down] = fmt.Sprintf("tool %s is hidden: %s; a person must review it and approve it again with \"toolgate mcp lock\"", name, why)
				continue
			}
			if visible {
				// Only what is shown is worth the warning.
				unpinned = append(unpinned, t.Name+" ("+why+")")
			}
		}
		if !visible {
			hidden[down] = fmt.Sprintf("tool %s is hidden by the policy", name)
			continue
		}
		schema, err := compileInputSchema(u.spec.Name, t)
		if err != nil {
			hidden[down] = fmt.Sprintf("tool %s is hidden: its input schema is unusable: %v", name, err)
			continue
		}
		trust := u.spec.TrustAnnotations
		if v, ok := u.spec.TrustTools[t.Name]; ok {
			trust = v
		}
		trusted := trust && p.opts.Pin == PinEnforce && ps == pinMatch
		next[down] = &toolEntry{up: u, name: down, rule: name, tool: t, digest: digest, schema: schema,
			effect: annotationsOf(t, trusted), trusted: trusted}
	}
	for _, why := range hidden {
		if strings.Contains(why, "pinned") || strings.Contains(why, "hashed") {
			p.logf("%s", why)
		}
	}
	if len(unpinned) > 0 {
		slices.Sort(unpinned)
		p.opts.Logger.Warn(fmt.Sprintf("mcp server %q: %d tools shown although their definitions are not pinned as they are (pin mode warn): %s",
			u.spec.Name, len(unpinned), strings.Join(unpinned, "; ")))
	}

	p.mu.Lock()
	var remove []string
	for name, e := range p.exposed {
		if e.up == u && next[name] == nil {
			remove = append(remove, name)
			delete(p.exposed, name)
		}
	}
	for name, h := range p.hidden {
		if h.up == u {
			delete(p.hidden, name)
		}
	}
	for name, why := range hidden {
		p.hidden[name] = hiddenTool{up: u, why: why}
	}
	var add []*toolEntry
	for name, e := range next {
		if old := p.exposed[name]; old == nil || old.digest != e.digest {
			add = append(add, e)
		}
		p.exposed[name] = e
	}
	p.mu.Unlock()

	if len(remove) > 0 {
		p.server.RemoveTools(remove...)
	}
	slices.SortFunc(add, func(a, b *toolEntry) int { return strings.Compare(a.name, b.name) })
	for _, e := range add {
		p.register(e)
	}
}

// register offers an exposed tool downstream, under its downstream name.
func (p *Proxy) register(e *toolEntry) {
	t := *e.tool
	t.Name = e.name
	p.server.AddTool(&t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return p.callTool(ctx, req, e), nil
	})
}

// entry returns the exposed tool of that name, as exposed now.
func (p *Proxy) entry(name string) *toolEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exposed[name]
}

// middleware refuses calls of hidden tools with a JSON-RPC error that says
// why, before the SDK's own "unknown tool"; with a Checker that answers per
// session, it also filters each session's tools/list, and refuses the
// calls of tools the session is not shown (sessions.go).
func (p *Proxy) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if params, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				p.mu.Lock()
				h, hidden := p.hidden[params.Name]
				e, shown := p.exposed[params.Name]
				p.mu.Unlock()
				why := h.why
				if hidden || !shown {
					if !hidden {
						why = fmt.Sprintf("unknown tool %q", params.Name)
					}
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: why}
				}
				if p.policy.perSession() && !p.shownToSession(ctx, sessionOf(req), e.rule) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
						Message: fmt.Sprintf("tool %s is hidden by the policy for this session", e.rule)}
				}
			}
		case "tools/list":
			if p.policy.perSession() {
				res, err := next(ctx, method, req)
				if err != nil {
					return res, err
				}
				lr, ok := res.(*mcp.ListToolsResult)
				if !ok || lr == nil {
					return &mcp.ListToolsResult{Tools: []*mcp.Tool{}}, nil
				}
				return p.listFor(ctx, sessionOf(req), lr), nil
			}
		}
		return next(ctx, method, req)
	}
}

// askID is the key of the proxy's own question in an input_required
// result.
const askID = "toolgate.approve"

// approveSchema is the form a person answers.
var approveSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Run this call?",
			"description": "Tick to let the call run once."},
	},
	"required": []any{"approve"},
}

// denied is the tool result for a refused call: isError with the reason.
func denied(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// callTool gates one tools/call. Every path that does not end in a
// verified allow returns a denial.
func (p *Proxy) callTool(ctx context.Context, req *mcp.CallToolRequest, e *toolEntry) (res *mcp.CallToolResult) {
	start := time.Now()
	session := ""
	if req.Session != nil {
		session = req.Session.ID()
	}
	var v verdict
	defer func() {
		if r := recover(); r != nil {
			p.opts.Logger.Error(fmt.Sprintf("mcpgate: panic in %s: %v", e.name, r))
			v = v.deny(true, fmt.Sprintf("internal error: %v", r))
			p.audit(ctx, v, session, false, start)
			res = denied("toolgate denied the call: internal error")
		}
	}()
	if cur := p.entry(e.name); cur != e {
		// The listing changed while the request was on its way.
		if cur == nil {
			return denied(fmt.Sprintf("toolgate denied the call: tool %s is no longer available", e.name))
		}
		e = cur
	}
	args := req.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
		return p.answered(ctx, req, e, args, session, start)
	}
	v = p.decide(e, args, session)
	asked := false
	if v.outcome == outAsk && v.policyAsk {
		// A person may answer it out of band (a decision service's
		// approval); the wait is not the proxy's latency.
		wait := time.Now()
		v = p.policy.await(ctx, v)
		start = start.Add(time.Since(wait))
		asked = v.outcome != outAsk
	}
	switch v.outcome {
	case outAllow, outModify:
		return p.forward(ctx, req, e, v, args, session, asked, start)
	case outAsk:
		return p.ask(ctx, req, e, v, args, session, start)
	}
	p.audit(ctx, v, session, asked, start)
	return denied("toolgate denied the call: " + v.reason())
}

// decide asks the policy about a call and applies the tool's annotations.
func (p *Proxy) decide(e *toolEntry, args json.RawMessage, session string) verdict {
	v := p.policy.decide(e.rule, e.up.spec.Name, session, args, e.effect.notReadOnly)
	if e.effect.destructive && (v.outcome == outAllow || v.outcome == outModify) && !v.byRule {
		v = v.ask(fmt.Sprintf("the server %q declares %s destructive, and no rule of yours allows it", e.up.spec.Name, e.rule))
	}
	return v
}

// audit records v; it reports whether the record was stored.
func (p *Proxy) audit(ctx context.Context, v verdict, session string, asked bool, start time.Time) bool {
	if err := record(context.WithoutCancel(ctx), p.opts.Audit, v, p.policy.revision(), session, asked, time.Since(start)); err != nil {
		p.opts.Logger.Error(fmt.Sprintf("mcpgate: audit: %v", err))
		return false
	}
	return true
}

// forward runs an allowed call: the rewritten input of a modify checked
// against the tool's schema and the policy again, the event recorded (an
// event that cannot be recorded stops the call), then the server called
// with a deadline.
func (p *Proxy) forward(ctx context.Context, req *mcp.CallToolRequest, e *toolEntry, v verdict, args json.RawMessage, session string, asked bool, start time.Time) *mcp.CallToolResult {
	send := args
	if v.outcome == outModify {
		if err := validateArgs(e.schema, v.input); err != nil {
			v = v.deny(false, fmt.Sprintf("the rewritten arguments do not fit the tool's input schema: %v", err))
			p.audit(ctx, v, session, asked, start)
			return denied("toolgate denied the call: " + v.reason())
		}
		again := p.decide(e, v.input, session)
		if again.outcome == outDeny || (again.outcome == outAsk && !asked) {
			v = v.deny(false, "the rewritten call is not allowed: "+again.reason())
			p.audit(ctx, v, session, asked, start)
			return denied("toolgate denied the call: " + v.reason())
		}
		send = v.input
	}
	if !p.audit(ctx, v, session, asked, start) && p.opts.Audit != nil {
		return denied("toolgate denied the call: the audit log cannot record it")
	}
	cs, err := e.up.session()
	if err != nil {
		return denied("toolgate did not run the call: " + err.Error())
	}
	done := e.up.track(req.Session)
	defer done()
	cctx, cancel := context.WithTimeout(ctx, e.up.timeout())
	defer cancel()
	params := &mcp.CallToolParams{Name: e.tool.Name, Arguments: send}
	if tok := progressToken(req.Params.GetProgressToken()); tok != nil {
		params.SetProgressToken(tok)
	}
	res, err := cs.CallTool(cctx, params)
	switch {
	case err != nil && cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		return denied(fmt.Sprintf("the mcp server %q did not answer within %s", e.up.spec.Name, e.up.timeout()))
	case errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF):
		p.logf("mcp server %q: %s: %v", e.up.spec.Name, e.tool.Name, err)
		return denied(fmt.Sprintf("the mcp server %q stopped during the call; it is being restarted", e.up.spec.Name))
	case err != nil:
		return denied(fmt.Sprintf("the mcp server %q failed: %v", e.up.spec.Name, err))
	case res == nil:
		return denied(fmt.Sprintf("the mcp server %q returned no result", e.up.spec.Name))
	case res.NeedsInput():
		return denied(fmt.Sprintf("the mcp server %q asked for input the proxy could not obtain", e.up.spec.Name))
	}
	// The upstream's own identity is not the proxy's to pass on.
	delete(res.Meta, mcp.MetaKeyServerInfo)
	return res
}

// progressToken returns a client's progress token in a form the SDK sends
// on (a JSON number arrives as a float64), or nil.
func progressToken(t any) any {
	switch t := t.(type) {
	case string:
		return t
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	case int, int32, int64:
		return t
	}
	return nil
}

// ask puts the call to the client's user: an elicitation on a stateful
// session, an input_required result with a signed request state on a
// 2026-07-28 session; a client without the elicitation capability cannot
// be asked, and the call is denied.
func (p *Proxy) ask(ctx context.Context, req *mcp.CallToolRequest, e *toolEntry, v verdict, args json.RawMessage, session string, start time.Time) *mcp.CallToolResult {
	caps := req.ClientCapabilities()
	if p.opts.DenyAsks || caps == nil || caps.Elicitation == nil {
		why := "the call needs a person's approval, and this MCP client cannot be asked (it did not declare the elicitation capability)"
		if p.opts.DenyAsks {
			why = "the call needs a person's approval, and this gateway does not ask (--ask-policy deny)"
		}
		if v.pending != "" {
			why += "; " + v.pending
		}
		v = v.deny(false, why)
		p.audit(ctx, v, session, true, start)
		return denied("toolgate denied the call: " + v.reason())
	}
	msg := askMessage(e, v)
	params := &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: approveSchema}
	if req.ProtocolVersion() >= "2026-07-28" {
		st, err := p.state.mint(e.rule, argsDigest(args), p.policy.revision(), p.opts.AskTimeout)
		if err != nil {
			v = v.deny(true, "cannot mint a request state: "+err.Error())
			p.audit(ctx, v, session, true, start)
			return denied("toolgate denied the call: " + v.reason())
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{askID: params}, RequestState: st}
	}
	actx, cancel := context.WithTimeout(ctx, p.opts.AskTimeout)
	defer cancel()
	wait := time.Now()
	r, err := req.Session.Elicit(actx, params)
	start = start.Add(time.Since(wait)) // the wait for a person is not the proxy's latency
	if err != nil {
		why := "asking the person failed: " + err.Error()
		if actx.Err() == context.DeadlineExceeded {
			why = fmt.Sprintf("nobody answered the approval request within %s", p.opts.AskTimeout)
		}
		v = v.deny(false, why)
		p.audit(ctx, v, session, true, start)
		return denied("toolgate denied the call: " + v.reason())
	}
	if why := refusal(r); why != "" {
		v = v.deny(false, why)
		p.audit(ctx, v, session, true, start)
		return denied("toolgate denied the call: " + v.reason())
	}
	return p.forward(ctx, req, e, v.approved(), args, session, true, start)
}

// answered handles a call that comes back with an answer: it must carry a
// request state this proxy issued for this very call, unexpired and
// unused, and the answer must be an approval.
func (p *Proxy) answered(ctx context.Context, req *mcp.CallToolRequest, e *toolEntry, args json.RawMessage, session string, start time.Time) *mcp.CallToolResult {
	v := p.decide(e, args, session)
	if err := p.state.verify(req.Params.RequestState, e.rule, argsDigest(args), p.policy.revision()); err != nil {
		v = v.deny(false, "the approval is refused: "+err.Error())
		p.audit(ctx, v, session, true, start)
		return denied("toolgate denied the call: " + v.reason())
	}
	var why string
	switch r := req.Params.InputResponses[askID].(type) {
	case *mcp.ElicitResult:
		why = refusal(r)
	case nil:
		why = "the answer to the approval request is missing"
	default:
		why = fmt.Sprintf("the answer to the approval request is a %T, not an elicitation result", r)
	}
	if why != "" {
		v = v.deny(false, why)
		p.audit(ctx, v, session, true, start)
		return denied("toolgate denied the call: " + v.reason())
	}
	switch v.outcome {
	case outDeny:
		p.audit(ctx, v, session, true, start)
		return denied("toolgate denied the call: " + v.reason())
	case outAsk:
		v = v.approved()
	}
	return p.forward(ctx, req, e, v, args, session, true, start)
}

// refusal says why an elicitation answer is not an approval ("" if it is).
func refusal(r *mcp.ElicitResult) string {
	if r == nil {
		return "no answer"
	}
	switch r.Action {
	case "accept":
		if ok, _ := r.Content["approve"].(bool); ok {
			return ""
		}
		return "the person did not tick approve"
	case "decline":
		return "the person declined"
	case "cancel":
		return "the person dismissed the approval request"
	}
	return fmt.Sprintf("unknown answer %q", r.Action)
}

// askMessage is what the person reads.
func askMessage(e *toolEntry, v verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "toolgate: allow the MCP server %q to run %s?\n", e.up.spec.Name, e.tool.Name)
	if v.prompt != "" {
		fmt.Fprintf(&b, "%s\n", v.prompt)
	}
	fmt.Fprintf(&b, "Why you are asked: %s", v.reason())
	return b.String()
}

// exposePrompts replaces the server's prompts, each named <server>__<prompt>.
func (p *Proxy) exposePrompts(u *upstream, prompts []*mcp.Prompt) {
	prefix := u.spec.Name + "__"
	if p.opts.KeepNames {
		prefix = ""
	}
	next := map[string]string{} // downstream name → definition
	for _, pr := range prompts {
		def, _ := json.Marshal(pr)
		next[prefix+pr.Name] = string(def)
	}
	p.mu.Lock()
	var remove []string
	for name, srv := range p.prompts {
		if srv == u.spec.Name {
			if _, ok := next[name]; !ok {
				remove = append(remove, name)
				delete(p.prompts, name)
				delete(p.promptDefs, name)
			}
		}
	}
	var add []*mcp.Prompt
	for _, pr := range prompts {
		name := prefix + pr.Name
		if p.promptDefs[name] != next[name] {
			add = append(add, pr)
		}
		p.prompts[name] = u.spec.Name
		p.promptDefs[name] = next[name]
	}
	p.mu.Unlock()
	if len(remove) > 0 {
		p.server.RemovePrompts(remove...)
	}
	for _, pr := range add {
		orig := pr.Name
		cp := *pr
		cp.Name = prefix + orig
		p.server.AddPrompt(&cp, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			start := time.Now()
			in, _ := json.Marshal(map[string]any{"name": orig, "arguments": req.Params.Arguments})
			session := ""
			if req.Session != nil {
				session = req.Session.ID()
			}
			if !p.audit(ctx, p.policy.passed("mcp__"+u.spec.Name+"__prompts/get", u.spec.Name, in), session, false, start) && p.opts.Audit != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "toolgate refused the prompt: the audit log cannot record it"}
			}
			cs, err := u.session()
			if err != nil {
				return nil, err
			}
			cctx, cancel := context.WithTimeout(ctx, u.timeout())
			defer cancel()
			params := *req.Params
			params.Name = orig
			return cs.GetPrompt(cctx, &params)
		})
	}
}

// exposeResources replaces the server's resources and templates. A URI
// that another server already offers stays with that server.
func (p *Proxy) exposeResources(u *upstream, res []*mcp.Resource, tmpls []*mcp.ResourceTemplate) {
	defOf := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	nextR := map[string]*mcp.Resource{}
	for _, r := range res {
		if pu, err := url.Parse(r.URI); err == nil && pu.Scheme != "" {
			nextR[r.URI] = r
		}
	}
	nextT := map[string]*mcp.ResourceTemplate{}
	for _, t := range tmpls {
		nextT[t.URITemplate] = t
	}
	p.mu.Lock()
	var remove, removeT []string
	for uri, srv := range p.resources {
		if srv == u.spec.Name && nextR[uri] == nil {
			remove = append(remove, uri)
			delete(p.resources, uri)
			delete(p.resourceDefs, uri)
		}
	}
	for t, up := range p.templates {
		if up == u && nextT[t] == nil {
			removeT = append(removeT, t)
			delete(p.templates, t)
			delete(p.resourceDefs, "template "+t)
		}
	}
	var addR []*mcp.Resource
	for _, r := range res {
		if nextR[r.URI] != r {
			continue
		}
		if other, ok := p.resources[r.URI]; ok && other != u.spec.Name {
			p.opts.Logger.Warn(fmt.Sprintf("mcp server %q: resource %s is already offered by %q", u.spec.Name, r.URI, other))
			continue
		}
		if d := defOf(r); p.resourceDefs[r.URI] != d {
			p.resourceDefs[r.URI] = d
			addR = append(addR, r)
		}
		p.resources[r.URI] = u.spec.Name
	}
	var addT []*mcp.ResourceTemplate
	for _, t := range tmpls {
		if other, ok := p.templates[t.URITemplate]; ok && other != u {
			continue
		}
		if d := defOf(t); p.resourceDefs["template "+t.URITemplate] != d {
			p.resourceDefs["template "+t.URITemplate] = d
			addT = append(addT, t)
		}
		p.templates[t.URITemplate] = u
	}
	p.mu.Unlock()
	if len(remove) > 0 {
		p.server.RemoveResources(remove...)
	}
	if len(removeT) > 0 {
		p.server.RemoveResourceTemplates(removeT...)
	}
	h := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return p.readResource(ctx, req, u)
	}
	for _, r := range addR {
		func() {
			defer func() {
				if r := recover(); r != nil {
					p.opts.Logger.Warn(fmt.Sprintf("mcp server %q: resource not offered: %v", u.spec.Name, r))
				}
			}()
			p.server.AddResource(r, h)
		}()
	}
	for _, t := range addT {
		func() {
			defer func() {
				if r := recover(); r != nil {
					p.opts.Logger.Warn(fmt.Sprintf("mcp server %q: resource template not offered: %v", u.spec.Name, r))
				}
			}()
			p.server.AddResourceTemplate(t, h)
		}()
	}
}

// readResource gates resources/read as a read: a file: URI is a Read-kind
// call of its path; any other URI is a call of the pseudo-tool
// mcp__<server>__resources/read with input {"uri": URI} (no MCP tool can
// have that name: MCP tool names have no "/"). A deny or an ask is a
// JSON-RPC error: resources/read has no result for a refusal.
func (p *Proxy) readResource(ctx context.Context, req *mcp.ReadResourceRequest, u *upstream) (res *mcp.ReadResourceResult, err error) {
	start := time.Now()
	session := ""
	if req.Session != nil {
		session = req.Session.ID()
	}
	uri := req.Params.URI
	var v verdict
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "toolgate denied the read: internal error"}
		}
	}()
	if pu, perr := url.Parse(uri); perr == nil && pu.Scheme == "file" && (pu.Host == "" || pu.Host == "localhost") && pu.Path != "" {
		v = p.policy.decideRead(u.spec.Name, session, pu.Path)
	} else {
		in, _ := json.Marshal(map[string]string{"uri": uri})
		v = p.policy.decide("mcp__"+u.spec.Name+"__resources/read", u.spec.Name, session, in, false)
	}
	if v.outcome == outAsk {
		// Only an answer out of band can approve a read.
		v = p.policy.await(ctx, v)
	}
	switch v.outcome {
	case outAllow, outModify:
		// A rewrite has nothing to rewrite in a URI read: the read runs as asked.
	case outAsk:
		why := "reading a resource that needs approval is not supported; allow or deny it by rule"
		if v.pending != "" {
			why = "reading a resource that needs approval cannot be asked through the MCP client; " + v.pending
		}
		v = v.deny(false, why)
		fallthrough
	default:
		p.audit(ctx, v, session, false, start)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "toolgate denied the read of " + uri + ": " + v.reason()}
	}
	if !p.audit(ctx, v, session, false, start) && p.opts.Audit != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "toolgate denied the read: the audit log cannot record it"}
	}
	cs, err := u.session()
	if err != nil {
		return nil, err
	}
	done := u.track(req.Session)
	defer done()
	cctx, cancel := context.WithTimeout(ctx, u.timeout())
	defer cancel()
	return cs.ReadResource(cctx, &mcp.ReadResourceParams{URI: uri})
}

// complete routes completion/complete to the server of the prompt or
// resource template it refers to.
func (p *Proxy) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref := req.Params.Ref
	if ref == nil {
		return nil, errors.New("completion without a reference")
	}
	var u *upstream
	params := *req.Params
	switch ref.Type {
	case "ref/prompt":
		p.mu.Lock()
		srv := p.prompts[ref.Name]
		p.mu.Unlock()
		u = p.byName[srv]
		if u != nil {
			r := *ref
			if !p.opts.KeepNames {
				r.Name = strings.TrimPrefix(ref.Name, srv+"__")
			}
			params.Ref = &r
		}
	case "ref/resource":
		p.mu.Lock()
		u = p.templates[ref.URI]
		if u == nil {
			u = p.byName[p.resources[ref.URI]]
		}
		p.mu.Unlock()
	}
	if u == nil {
		return nil, fmt.Errorf("no server offers %s %s%s", ref.Type, ref.Name, ref.URI)
	}
	cs, err := u.session()
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, u.timeout())
	defer cancel()
	return cs.Complete(cctx, &params)
}
