package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/audit/sqlite"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/mcpgate"
)

const mcpUsage = `Usage:

	toolgate mcp [flags]                       (the servers of the mcp section)
	toolgate mcp [flags] --servers FILE
	toolgate mcp [flags] --upstream-name NAME -- COMMAND [ARGS...]
	toolgate mcp [flags] --upstream-name NAME --upstream-url URL
	toolgate mcp --server URL|@FILE --token-file FILE [--wait DURATION] [flags] ...
	toolgate mcp lock [flags] [--servers FILE | --upstream-name NAME ...]
	toolgate mcp wrap|unwrap CLIENT [flags]

"toolgate mcp" is an MCP server that gates other MCP servers: every tool
call a client makes is decided by the toolgate policy (--config, or the
standard files) before it reaches the server. Denied calls come back as tool
errors with the deciding rule and its file:line:col; rewrites are checked
against the tool's input schema; asks are put to the client's user
(elicitation), and a client that cannot be asked gets a denial.

With --server, every call is decided by a "toolgate serve" decision service
instead ("@FILE" reads its URL from FILE; --token-file holds an agent token),
so that many gateways share one policy and one decision log: the local
policy files are not read for rules, and --config and --mode are refused.
Each call is sent with its MCP server and a session id. tools/list shows what
the service's policy shows (when the service cannot be asked, every tool is
listed and each call is still decided by the service); the tools are
filtered again when its policy revision changes. An ask the service records
as an approval waits up to --wait for a person to answer it (toolgate
approvals, or the service's page): approved, the call runs once; denied or
expired, it is denied. Unanswered, the ask goes to the client's user as above,
and a client that cannot be asked is denied with the approval to answer
before retrying the call. An unreachable or misbehaving service denies
every call, saying why.

The upstream servers are those the mcp section of the toolgate files
declares (mcp: {servers: {NAME: {command: [...]} or {url: ...}}}; only a
trusted file may declare one), unless a flag names them instead.
--servers FILE names several upstream servers: the "mcpServers" JSON that
Claude Code, Cursor and Gemini CLI use, or {"version": 1, "servers": {...}}.
Their tools are offered as mcp__<server>__<tool>. --upstream-name with a
command after "--" (or --upstream-url) gates one server, whose tools keep
their own names (the client adds its own prefix); rules name them
mcp__NAME__<tool> either way.

The client talks to the proxy over standard input and output, or, with
--listen 127.0.0.1:PORT, over streamable HTTP with the bearer token in
--listen-token-file (created with a random token if missing; without
--server, --token-file names it too).

Tool definitions are pinned: "toolgate mcp lock" records a digest of each
tool's name, description, input schema and annotations in the lock file
(--lock; default: toolgate-mcp.lock next to --servers, or in the toolgate
user config directory). --pin enforce hides a tool that is unpinned or
changed since it was pinned, warn only logs it, off does not compare; the
default is enforce when the lock pins the configured servers, else warn.

SIGHUP reloads the policy (not with --server: the service reloads its own)
and the lock file and filters the tools again; a policy that does not load
keeps the previous one in force.

Flags:
`

// proxyFlags are the flags of "toolgate mcp" and "toolgate mcp lock".
type proxyFlags struct {
	policy      policyFlags
	servers     string
	name        string
	url         string
	headers     stringList
	pin         string
	lock        string
	auditPath   string
	listen      string
	tokenFile   string
	listenToken string
	server      string
	wait        time.Duration
	callTimeout time.Duration
	askTimeout  time.Duration
	askPolicy   string
}

func (m *proxyFlags) register(fs *flag.FlagSet) {
	m.policy.register(fs)
	fs.StringVar(&m.servers, "servers", "", "read the upstream servers from `FILE` (mcpServers JSON, or toolgate's form)")
	fs.StringVar(&m.name, "upstream-name", "", "gate one server called `NAME`: its command follows \"--\", or give --upstream-url")
	fs.StringVar(&m.url, "upstream-url", "", "the streamable-HTTP `URL` of the --upstream-name server")
	fs.Var(&m.headers, "upstream-header", "an HTTP header `'Key: Value'` for --upstream-url (repeatable)")
	fs.StringVar(&m.pin, "pin", "", "tool-definition pinning: `off`, warn or enforce (default: enforce when the lock pins the servers, else warn)")
	fs.StringVar(&m.lock, "lock", "", "the lock `FILE` of pinned tool definitions")
	fs.StringVar(&m.auditPath, "audit", "", "record every decision in `FILE` (SQLite for .db, else JSON Lines)")
	fs.StringVar(&m.listen, "listen", "", "serve streamable HTTP on `ADDR` (a loopback host:port) instead of stdio")
	fs.StringVar(&m.tokenFile, "token-file", "", "with --server: the agent token's `FILE`; without: the bearer token file for --listen")
	fs.StringVar(&m.listenToken, "listen-token-file", "", "the bearer token `FILE` for --listen (default: mcp-token in the toolgate user config directory)")
	fs.StringVar(&m.server, "server", "", "decide with the toolgate decision service at `URL` (@FILE: the URL is in FILE)")
	fs.DurationVar(&m.wait, "wait", 0, "with --server: wait up to `DURATION` for a person to answer an ask (0: do not wait)")
	fs.DurationVar(&m.callTimeout, "call-timeout", 60*time.Second, "bound one request to an upstream server to `DURATION`")
	fs.DurationVar(&m.askTimeout, "ask-timeout", 2*time.Minute, "how long a person has to answer an approval request")
	fs.StringVar(&m.askPolicy, "ask-policy", "ask", "what an ask becomes: `ask` (the client's user is asked) or deny")
}

// mcp runs "toolgate mcp".
// mcpGCPercent is the garbage collector's target in a gateway process
// when GOGC is not set. Each relayed tools/call allocates about 0.6 MB in
// the SDK's JSON decoding, nearly all of it garbage at once, so with Go's
// default (100) and a gateway's small live heap the collector runs every
// few calls (BenchmarkCallProxied in mcpgate: a median of about 375 µs at
// 100, 165 µs at 400). The heap may grow to five times what is live.
const mcpGCPercent = 400

func (c *cli) mcp(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "wrap":
			return c.mcpWrap(args[1:])
		case "unwrap":
			return c.mcpUnwrap(args[1:])
		case "lock":
			return c.mcpLock(args[1:])
		}
	}
	fs := flag.NewFlagSet("toolgate mcp", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), mcpUsage); fs.PrintDefaults() }
	var m proxyFlags
	m.register(fs)
	if code, done := parseFlags(fs, args); done {
		return code
	}
	c.defaultGCPercent(mcpGCPercent)
	if code := c.mcpCheckFlags(&m); code != exitOK {
		return code
	}
	var (
		e      env
		set    *config.Set
		engine *toolgate.Engine
		remote *mcpRemote
	)
	switch {
	case m.server != "":
		client, err := serveClient(m.server, m.tokenFile)
		if err != nil {
			c.errorf("mcp: --server: %v", err)
			return exitUsage
		}
		remote = &mcpRemote{client: client, wait: m.wait}
		if m.servers == "" && m.name == "" && len(fs.Args()) == 0 && m.url == "" {
			// The servers come from the mcp section of the local files;
			// their rules are not used.
			l, code := c.load(&m.policy, false)
			if code != exitOK {
				return code
			}
			e, set = l.env, l.set
		} else if e, err = c.resolveEnv(&m.policy); err != nil {
			c.errorf("mcp: %v", err)
			return exitUsage
		}
	default:
		l, code := c.load(&m.policy, true)
		if code != exitOK {
			return code
		}
		e, set, engine = l.env, l.set, toolgate.NewEngine(l.cfg)
	}
	specs, code := c.mcpServers(&m, fs.Args(), set)
	if code != exitOK {
		return code
	}
	lockPath := c.mcpLockPath(&m, e.ucd)
	lock, err := readMCPLock(lockPath)
	if err != nil {
		c.errorf("mcp: %v", err)
		return exitUsage
	}
	pin, err := mcpPinMode(m.pin, lock, specs)
	if err != nil {
		c.errorf("mcp: --pin: %v", err)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	var sink audit.Sink
	if m.auditPath != "" {
		if sink, err = sqlite.OpenLog(m.auditPath); err != nil {
			c.errorf("mcp: --audit: %v", err)
			return exitFailure
		}
		defer sink.Close()
	}
	if pin == mcpgate.PinWarn && lock == nil {
		logger.Warn(fmt.Sprintf("no lock file %s: tool definitions are not pinned; run \"toolgate mcp lock\" to pin them", lockPath))
	}
	opts := mcpgate.Options{Servers: specs, Cwd: e.cwd, Home: e.home,
		Lock: lock, Pin: pin, CallTimeout: m.callTimeout, AskTimeout: m.askTimeout, DenyAsks: m.askPolicy == "deny", Logger: logger,
		ServerStderr: c.stderr, Version: versionString(), KeepNames: m.name != ""}
	if remote != nil {
		opts.Checker = remote
	} else {
		opts.Engine = engine
	}
	if sink != nil {
		opts.Audit = sink
	}
	p, err := mcpgate.New(&opts)
	if err != nil {
		c.errorf("mcp: %v", err)
		return exitUsage
	}
	defer p.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := p.Start(ctx); err != nil {
		// The others are served; the failed ones are retried.
		logger.Error(err.Error())
	}
	if remote != nil {
		go remote.follow(ctx, p.Refilter, mcpFollowEvery, logger)
		// Session rules change without the service's revision: each
		// session's listing is checked again as often.
		go tick(ctx, mcpFollowEvery, func() { p.RecheckSessions(ctx) })
	}
	// SIGHUP reloads the policy and the lock file; a policy that does not
	// load, or a lock that does not parse, keeps the one in force.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			// With --server, the service reloads its own policy and the
			// tools follow it (remote.follow).
			if remote == nil {
				c.mcpReloadPolicy(&m, opts.Engine, logger)
			}
			if nlock, err := readMCPLock(lockPath); err != nil {
				logger.Error(fmt.Sprintf("reload: %v; the previous pins stay in force", err))
			} else {
				p.SetLock(ctx, nlock)
				logger.Info("lock file reloaded; tools filtered again")
			}
		}
	}()
	if m.listen != "" {
		return c.mcpListen(ctx, p, &m, e.ucd, logger)
	}
	t := mcpgate.NewIOTransport(io.NopCloser(c.stdin), stdoutCloser{c.stdout})
	if err := p.Server().Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, mcp.ErrConnectionClosed) && !errors.Is(err, io.EOF) {
		c.errorf("mcp: %v", err)
		return exitFailure
	}
	return exitOK
}

// mcpCheckFlags refuses flags that do not go together.
func (c *cli) mcpCheckFlags(m *proxyFlags) int {
	if m.listen != "" {
		if err := mcpgate.CheckLoopback(m.listen); err != nil {
			c.errorf("mcp: %v", err)
			return exitUsage
		}
	}
	switch {
	case m.askPolicy != "ask" && m.askPolicy != "deny":
		c.errorf("mcp: --ask-policy: unknown ask policy %q (want ask or deny)", m.askPolicy)
	case m.listen == "" && m.listenToken != "":
		c.errorf("mcp: --listen-token-file needs --listen")
	case m.server == "" && m.listen == "" && m.tokenFile != "":
		c.errorf("mcp: --token-file needs --server (the service's agent token) or --listen")
	case m.server == "" && m.listenToken != "" && m.tokenFile != "":
		c.errorf("mcp: give --listen-token-file or --token-file, not both")
	case m.server == "" && m.wait != 0:
		c.errorf("mcp: --wait needs --server")
	case m.server != "" && m.tokenFile == "":
		c.errorf("mcp: --server needs --token-file, the file of an agent token of the service")
	case m.server != "" && (len(m.policy.configs) > 0 || m.policy.claude || m.policy.mode != ""):
		c.errorf("mcp: the policy is the service's: give --server or --config (--claude, --mode), not both")
	case m.wait < 0:
		c.errorf("mcp: --wait must not be negative")
	default:
		return exitOK
	}
	return exitUsage
}

// mcpReloadPolicy loads the policy again into engine; one that does not
// load keeps the previous one in force.
func (c *cli) mcpReloadPolicy(m *proxyFlags, engine *toolgate.Engine, logger *slog.Logger) {
	nl, code := c.load(&m.policy, true)
	if code != exitOK {
		logger.Error("reload: the policy did not load; the previous policy stays in force")
		return
	}
	if err := engine.Reload(nl.cfg); err != nil {
		logger.Error(fmt.Sprintf("reload: %v; the previous policy stays in force", err))
		return
	}
	logger.Info("policy reloaded")
}

type stdoutCloser struct{ io.Writer }

func (stdoutCloser) Close() error { return nil }

// mcpServers reads the upstream servers from the flags and the command
// after "--", or else from the mcp sections of the policy's files (set).
func (c *cli) mcpServers(m *proxyFlags, rest []string, set *config.Set) ([]mcpgate.ServerSpec, int) {
	switch {
	case m.servers == "" && m.name == "" && len(rest) == 0 && m.url == "":
		if specs := configServers(set); len(specs) > 0 {
			return specs, exitOK
		}
	case m.servers != "" && m.name != "":
		c.errorf("mcp: give --servers or --upstream-name, not both")
		return nil, exitUsage
	case m.servers != "":
		if len(rest) > 0 || m.url != "" || len(m.headers) > 0 {
			c.errorf("mcp: with --servers, the servers come from the file only")
			return nil, exitUsage
		}
		data, err := readFileMax(m.servers, mcpgate.MaxServersFileSize)
		if err != nil {
			c.errorf("mcp: --servers: %v", err)
			return nil, exitUsage
		}
		specs, err := mcpgate.ParseServers(data)
		if err != nil {
			c.errorf("mcp: %s: %v", m.servers, err)
			return nil, exitUsage
		}
		return specs, exitOK
	case m.name != "":
		if err := mcpgate.ValidServerName(m.name); err != nil {
			c.errorf("mcp: --upstream-name: %v", err)
			return nil, exitUsage
		}
		spec := mcpgate.ServerSpec{Name: m.name}
		switch {
		case m.url != "" && len(rest) > 0:
			c.errorf("mcp: give a command after \"--\" or --upstream-url, not both")
			return nil, exitUsage
		case m.url != "":
			spec.URL = m.url
			spec.Headers = map[string]string{}
			for _, h := range m.headers {
				k, v, ok := strings.Cut(h, ":")
				if !ok || strings.TrimSpace(k) == "" {
					c.errorf("mcp: --upstream-header %q: want 'Key: Value'", h)
					return nil, exitUsage
				}
				spec.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			// The same checks as a servers file.
			raw := fmt.Sprintf(`{"mcpServers": {%q: {"url": %q}}}`, m.name, m.url)
			if _, err := mcpgate.ParseServers([]byte(raw)); err != nil {
				c.errorf("mcp: --upstream-url: %v", err)
				return nil, exitUsage
			}
		case len(rest) > 0:
			spec.Command = rest
		default:
			c.errorf("mcp: --upstream-name %s needs the server's command after \"--\", or --upstream-url", m.name)
			return nil, exitUsage
		}
		return []mcpgate.ServerSpec{spec}, exitOK
	}
	if len(rest) > 0 || m.url != "" {
		c.errorf("mcp: a command after \"--\" or --upstream-url needs --upstream-name")
		return nil, exitUsage
	}
	c.errorf("mcp: no upstream server: declare servers in the mcp section of a toolgate file, or give --servers FILE, or --upstream-name NAME -- COMMAND...")
	return nil, exitUsage
}

// configServers turns the servers the policy's files declare into the
// gateway's specs.
func configServers(set *config.Set) []mcpgate.ServerSpec {
	var specs []mcpgate.ServerSpec
	for _, s := range set.MCPServers() {
		spec := mcpgate.ServerSpec{Name: s.Name, Command: s.Command, Env: s.Env, Dir: s.Dir, URL: s.URL,
			Headers: s.Headers, Timeout: s.Timeout, TrustAnnotations: s.TrustAnnotations}
		for name, t := range s.Tools {
			if t.TrustAnnotations != nil {
				if spec.TrustTools == nil {
					spec.TrustTools = map[string]bool{}
				}
				spec.TrustTools[name] = *t.TrustAnnotations
			}
		}
		specs = append(specs, spec)
	}
	return specs
}

// readFileMax reads a file of at most max bytes.
func readFileMax(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}

// mcpLockPath is the lock file: --lock, or toolgate-mcp.lock next to the
// servers file, or in the user config directory.
func (c *cli) mcpLockPath(m *proxyFlags, ucd string) string {
	switch {
	case m.lock != "":
		return m.lock
	case m.servers != "":
		return filepath.Join(filepath.Dir(m.servers), "toolgate-mcp.lock")
	}
	return filepath.Join(ucd, "toolgate-mcp.lock")
}

// readMCPLock reads the lock file; a missing one is nil.
func readMCPLock(path string) (*mcpgate.Lock, error) {
	data, err := readFileMax(path, 16<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l, err := mcpgate.ParseLock(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return l, nil
}

// mcpPinMode is --pin, or its default: enforce when the lock pins any of the
// servers, else warn.
func mcpPinMode(flagValue string, lock *mcpgate.Lock, specs []mcpgate.ServerSpec) (mcpgate.PinMode, error) {
	if flagValue != "" {
		return mcpgate.ParsePinMode(flagValue)
	}
	if lock != nil {
		for _, s := range specs {
			if _, ok := lock.Servers[s.Name]; ok {
				return mcpgate.PinEnforce, nil
			}
		}
	}
	return mcpgate.PinWarn, nil
}

// mcpListen serves the proxy over streamable HTTP on a loopback address.
func (c *cli) mcpListen(ctx context.Context, p *mcpgate.Proxy, m *proxyFlags, ucd string, logger *slog.Logger) int {
	tokenFile := m.listenToken
	if tokenFile == "" && m.server == "" {
		tokenFile = m.tokenFile
	}
	if tokenFile == "" {
		tokenFile = filepath.Join(ucd, "mcp-token")
	}
	token, err := mcpToken(tokenFile)
	if err != nil {
		c.errorf("mcp: --token-file: %v", err)
		return exitFailure
	}
	h, err := p.HTTPHandler(token)
	if err != nil {
		c.errorf("mcp: %v", err)
		return exitFailure
	}
	ln, err := net.Listen("tcp", m.listen)
	if err != nil {
		c.errorf("mcp: %v", err)
		return exitFailure
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	logger.Info(fmt.Sprintf("serving MCP on http://%s/ (bearer token in %s)", ln.Addr(), tokenFile))
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		c.errorf("mcp: %v", err)
		return exitFailure
	}
	return exitOK
}

// mcpToken reads the bearer token, creating the file (mode 0600)
// with a random token when it does not exist.
func mcpToken(path string) (string, error) {
	data, err := readFileMax(path, 4096)
	if err == nil {
		tok := string(bytes.TrimSpace(data))
		if len(tok) < 16 {
			return "", fmt.Errorf("%s: the token must be at least 16 characters", path)
		}
		return tok, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return "", err
	}
	return tok, f.Close()
}

const mcpLockUsage = `Usage:

	toolgate mcp lock [--lock FILE] [--only NAME] [--servers FILE | --upstream-name NAME ...]

Lock connects to the upstream servers, lists their tools and records the
digest of each tool's definition (name, description, input schema,
annotations) in the lock file, approving the definitions as they are now.
It prints what was added, changed and removed. Run it after reviewing a
server's tools, and again after reviewing a change the proxy reported.

Flags:
`

// mcpLock runs "toolgate mcp lock".
func (c *cli) mcpLock(args []string) int {
	fs := flag.NewFlagSet("toolgate mcp lock", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), mcpLockUsage); fs.PrintDefaults() }
	var m proxyFlags
	m.register(fs)
	only := fs.String("only", "", "lock only the server called `NAME`")
	if code, done := parseFlags(fs, args); done {
		return code
	}
	var set *config.Set
	if m.servers == "" && m.name == "" {
		l, code := c.load(&m.policy, false)
		if code != exitOK {
			return code
		}
		set = l.set
	}
	specs, code := c.mcpServers(&m, fs.Args(), set)
	if code != exitOK {
		return code
	}
	if *only != "" {
		var keep []mcpgate.ServerSpec
		for _, s := range specs {
			if s.Name == *only {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			c.errorf("mcp lock: --only %s: no such server", *only)
			return exitUsage
		}
		specs = keep
	}
	e, err := c.resolveEnv(&m.policy)
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	lockPath := c.mcpLockPath(&m, e.ucd)
	lock, err := readMCPLock(lockPath)
	if err != nil {
		c.errorf("mcp lock: %v", err)
		return exitUsage
	}
	if lock == nil {
		lock = &mcpgate.Lock{}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	failed := false
	for _, s := range specs {
		tools, err := mcpgate.ListTools(ctx, s, m.callTimeout, c.stderr)
		if err != nil {
			c.errorf("mcp lock: %v", err)
			failed = true
			continue
		}
		added, changed, removed, err := lock.Set(s.Name, tools)
		if err != nil {
			c.errorf("mcp lock: %s: %v", s.Name, err)
			failed = true
			continue
		}
		fmt.Fprintf(c.stdout, "%s: %d tools pinned", s.Name, len(tools))
		for _, g := range []struct {
			what  string
			names []string
		}{{"added", added}, {"changed", changed}, {"removed", removed}} {
			if len(g.names) > 0 {
				fmt.Fprintf(c.stdout, "; %s %s", g.what, strings.Join(g.names, ", "))
			}
		}
		fmt.Fprintln(c.stdout)
	}
	if failed {
		c.errorf("mcp lock: the lock file was not written")
		return exitFailure
	}
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		c.errorf("mcp lock: %v", err)
		return exitFailure
	}
	tmp := lockPath + ".tmp"
	if err := os.WriteFile(tmp, lock.Marshal(), 0o644); err != nil {
		c.errorf("mcp lock: %v", err)
		return exitFailure
	}
	if err := os.Rename(tmp, lockPath); err != nil {
		c.errorf("mcp lock: %v", err)
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "wrote %s\n", lockPath)
	return exitOK
}
