package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/host"
	"github.com/toolgate/toolgate/serve"
	"github.com/toolgate/toolgate/store"
)

const serveUsage = `Usage:

	toolgate serve --tokens FILE [--config [SOURCE=]FILE]... [--db DB] [--listen ADDR] [flags]
	toolgate serve token ROLE NAME [--append FILE]

Serve runs the decision service: one policy for a fleet of agents, with
durable approvals that a person answers on the /approvals page or with
"toolgate approvals".

Endpoints: POST /v1/decide and /v1/decide:batch (the toolgate check JSON
contract, plus "revision" and, for an ask, "approval"); POST
/access/v1/evaluation(s) (OpenID AuthZEN); GET /v1/policy; /v1/session-rules;
/v1/approvals; GET /v1/webhooks/deliveries (admin); /approvals (web page);
/healthz, /readyz, /metrics.

The policy files are checked every --reload-interval and reloaded when they
change; a file that does not load keeps the previous policy in force and is
reported in /readyz, the log and the metrics. SIGHUP reloads at once;
SIGINT and SIGTERM shut down after the requests in flight (--grace).

--db is a SQLite file (default toolgate.db; one replica) or a PostgreSQL
URL postgres://... (several replicas behind a load balancer).

"toolgate serve token ROLE NAME" prints a new token (agent, approver or
admin) on standard output and its token-file line, which stores only the
token's SHA-256, on standard error — or appends it to --append FILE.

Flags:
`

func (c *cli) serve(args []string) int {
	if len(args) > 0 && args[0] == "token" {
		return c.serveToken(args[1:])
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var (
		configs     stringList
		listen      = fs.String("listen", "127.0.0.1:8421", "listen on `ADDR`")
		urlFile     = fs.String("url-file", "", "write the service's URL to `FILE` once listening")
		tokens      = fs.String("tokens", "", "bearer token `FILE` (required; see \"serve token\")")
		db          = fs.String("db", "toolgate.db", "SQLite `FILE`, or a postgres:// URL")
		publicURL   = fs.String("public-url", "", "the service's `URL` as people reach it, for links to approvals")
		approvalTTL = fs.Duration("approval-ttl", time.Hour, "how long an ask waits for an answer")
		useWindow   = fs.Duration("use-window", 15*time.Minute, "how long after approval the call must be retried")
		reload      = fs.Duration("reload-interval", 2*time.Second, "how often the policy and token files are checked (0: never)")
		webhook     = fs.String("webhook", "", "POST new approval requests to `URL` (deliveries are kept in the store and retried after a restart)")
		slack       = fs.Bool("webhook-slack", false, "send the webhook as a Slack incoming-webhook message")
		hookSecret  = fs.String("webhook-secret-file", "", "sign webhook deliveries with the secret in `FILE` (read once; one trailing newline dropped)")
		cwd         = fs.String("cwd", "", "working `DIR` of calls that name none")
		localFS     = fs.Bool("local-fs", false, "let the engine read this machine's file system (symlinks, globs): only when the agents run here")
		noLog       = fs.Bool("no-decision-log", false, "do not log every decision (answers are logged anyway)")
		retention   = fs.Duration("log-retention", 0, "delete decision log entries and answered approvals older than `DURATION` (0: keep them)")
		maxBody     = fs.Int64("max-body", 8<<20, "largest request body in `BYTES`")
		timeout     = fs.Duration("request-timeout", 10*time.Second, "time limit of a request")
		grace       = fs.Duration("grace", 30*time.Second, "how long shutdown waits for requests in flight")
		tlsCert     = fs.String("tls-cert", "", "serve HTTPS with this certificate `FILE`")
		tlsKey      = fs.String("tls-key", "", "the certificate's key `FILE`")
		clientCA    = fs.String("client-ca", "", "require client certificates signed by the CAs in `FILE` (mTLS)")
		logFormat   = fs.String("log-format", "text", "log format on standard error: text or json")
	)
	fs.Var(&configs, "config", "read the policy from `[SOURCE=]FILE` (repeatable); without it the built-in default policy")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("serve: unexpected argument %q", fs.Arg(0))
		return exitUsage
	}
	if *tokens == "" {
		c.errorf("serve: --tokens FILE is required (create tokens with \"toolgate serve token ROLE NAME --append FILE\")")
		return exitUsage
	}
	if (*tlsCert == "") != (*tlsKey == "") || (*clientCA != "" && *tlsCert == "") {
		c.errorf("serve: --tls-cert and --tls-key go together, and --client-ca needs them")
		return exitUsage
	}
	if *retention < 0 {
		c.errorf("serve: --log-retention must not be negative (0 keeps the log)")
		return exitUsage
	}
	if *hookSecret != "" && *webhook == "" {
		c.errorf("serve: --webhook-secret-file needs --webhook URL")
		return exitUsage
	}
	var handler slog.Handler
	switch *logFormat {
	case "text":
		handler = slog.NewTextHandler(c.stderr, nil)
	case "json":
		handler = slog.NewJSONHandler(c.stderr, nil)
	default:
		c.errorf("serve: --log-format must be text or json")
		return exitUsage
	}
	logger := slog.New(handler)
	wd, err := c.getwd()
	if err != nil {
		c.errorf("serve: %v", err)
		return exitFailure
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(wd, p)
	}
	var secret []byte
	if *hookSecret != "" {
		if secret, err = serve.ReadWebhookSecret(abs(*hookSecret)); err != nil {
			c.errorf("serve: %v", err)
			return exitUsage
		}
	}
	src := serve.PolicySource{}
	for _, arg := range configs {
		s, file, named := config.ParseConfigArg(arg)
		file = abs(file)
		if named {
			file = s.String() + "=" + file
		}
		src.Configs = append(src.Configs, file)
	}
	if *localFS {
		src.Engine = host.EngineOptions("")
	}

	// The service's live heap is small (2-3 MB under the load test) and a
	// decision allocates a few KB, so with Go's default GOGC=100 the
	// collector ran about a hundred times a second under load, marking
	// for about 40% of the time. Unless GOGC says otherwise, the heap may
	// grow to five times what is live between collections.
	c.defaultGCPercent(400)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := openStore(ctx, *db, wd, logger)
	if err != nil {
		c.errorf("serve: %v", err)
		return exitFailure
	}
	defer st.Close()
	interval := *reload
	if interval == 0 {
		interval = -1
	}
	srv, err := serve.New(ctx, &serve.Options{
		Policy: src, ReloadInterval: interval, Store: st, TokensFile: abs(*tokens), Logger: logger,
		PublicURL: *publicURL, ApprovalTTL: *approvalTTL, UseWindow: *useWindow, MaxBody: *maxBody,
		RequestTimeout: *timeout, Cwd: abs(*cwd), NoDecisionLog: *noLog, LogRetention: *retention,
		Webhook: serve.Webhook{URL: *webhook, Slack: *slack, Secret: secret},
	})
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	var tlsCfg *tls.Config
	if *tlsCert != "" {
		tlsCfg, err = serve.TLSConfig(abs(*tlsCert), abs(*tlsKey), abs(*clientCA))
		if err != nil {
			c.errorf("serve: %v", err)
			return exitUsage
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		c.errorf("serve: %v", err)
		return exitFailure
	}
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String()
	logger.Info("serving", "url", url, "revision", srv.Revision(), "db", storeKind(*db))
	if *urlFile != "" {
		if err := os.WriteFile(abs(*urlFile), []byte(url+"\n"), 0o644); err != nil {
			c.errorf("serve: %v", err)
			return exitFailure
		}
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			srv.Reload(ctx)
		}
	}()
	if err := serve.Serve(ctx, ln, srv, &serve.ServeOptions{TLS: tlsCfg, Grace: *grace}); err != nil {
		c.errorf("serve: %v", err)
		return exitFailure
	}
	logger.Info("stopped")
	return exitOK
}

// storeKind names the kind of store a --db value opens.
func storeKind(db string) string {
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		return "postgres"
	}
	return "sqlite"
}

// openStore opens the --db store.
func openStore(ctx context.Context, db, wd string, logger *slog.Logger) (store.Store, error) {
	if storeKind(db) == "postgres" {
		return store.OpenPostgres(ctx, db, logger)
	}
	path := strings.TrimPrefix(db, "sqlite:")
	if !filepath.IsAbs(path) {
		path = filepath.Join(wd, path)
	}
	return store.OpenSQLite(ctx, path)
}

// serveToken is "toolgate serve token ROLE NAME [--append FILE]".
func (c *cli) serveToken(args []string) int {
	fs := flag.NewFlagSet("serve token", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	appendTo := fs.String("append", "", "append the token's line to `FILE` (created with mode 0600)")
	pos, code, done := parseInterspersed(fs, args)
	if done {
		return code
	}
	if len(pos) != 2 {
		c.errorf("serve token: want ROLE NAME (role agent, approver or admin)")
		return exitUsage
	}
	role, name := serve.Role(pos[0]), pos[1]
	switch role {
	case serve.RoleAgent, serve.RoleApprover, serve.RoleAdmin:
	default:
		c.errorf("serve token: unknown role %q (want agent, approver or admin)", pos[0])
		return exitUsage
	}
	if name == "" || strings.ContainsAny(name, " \t\r\n#") {
		c.errorf("serve token: the name must be one word")
		return exitUsage
	}
	tok := serve.NewToken()
	line := serve.TokenLine(role, name, tok)
	if *appendTo != "" {
		f, err := os.OpenFile(*appendTo, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			_, err = fmt.Fprintln(f, line)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			c.errorf("serve token: %v", err)
			return exitFailure
		}
	} else {
		fmt.Fprintln(c.stderr, line)
	}
	fmt.Fprintln(c.stdout, tok)
	return exitOK
}
