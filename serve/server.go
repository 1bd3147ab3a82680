package serve

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate/store"
)

// Options configure a Server. The zero value of every field but Store and
// Tokens means its default.
type Options struct {
	// Policy says where the policy comes from.
	Policy PolicySource
	// ReloadInterval is how often the policy and token files are checked
	// for changes (default 2s; negative: never, only Reload).
	ReloadInterval time.Duration
	// Store keeps approvals, session rules and the decision log. Required.
	Store store.Store
	// TokensFile is the bearer-token file (see parseTokens). Required.
	TokensFile string
	// Logger receives the service's log; nil discards it.
	Logger *slog.Logger
	// PublicURL is the service's URL as people reach it (for links in
	// webhooks and asks), e.g. https://toolgate.example.com.
	PublicURL string
	// ApprovalTTL is how long an ask waits for an answer (default 1h).
	ApprovalTTL time.Duration
	// UseWindow is how long after an approval the call must be retried
	// (default 15m).
	UseWindow time.Duration
	// MaxBody is the largest request body (default 8 MiB).
	MaxBody int64
	// MaxBatch is the most calls in one batch (default 1000).
	MaxBatch int
	// RequestTimeout bounds each request (default 10s; waiting for an
	// answer has its own bound, MaxWait).
	RequestTimeout time.Duration
	// MaxWait bounds GET /v1/approvals/{id}?wait= (default 60s).
	MaxWait time.Duration
	// Cwd and Home fill a request without cwd or home.
	Cwd, Home string
	// NoDecisionLog turns off the decision log (answers are still logged).
	NoDecisionLog bool
	// LogRetention, when positive, is how long decision log entries and
	// answered or expired approvals are kept: older ones are deleted about
	// once an hour. Zero keeps them for ever.
	LogRetention time.Duration
	// Webhook is told of new approval requests (retried, and signed when
	// it has a secret).
	Webhook Webhook
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Server is the decision service: an http.Handler and its background work.
type Server struct {
	opts    Options
	log     *slog.Logger
	store   store.Store
	m       *metrics
	mux     *http.ServeMux
	now     func() time.Time
	started time.Time

	swapMu    sync.Mutex // serialises policy and rule swaps
	dec       atomic.Pointer[deciders]
	policyErr atomic.Pointer[string] // the last reload's error, nil when it worked
	rulesErr  atomic.Pointer[string]
	tokens    atomic.Pointer[tokenSet]
	asks      sync.Map             // store.Key → pendingAsk
	digests   *digestMemo          // digests of recent asks' calls
	stamps    map[string]fileStamp // guarded by swapMu
	// seen holds a changed file's stamp at the check that first saw it: a
	// change is applied only once the file has kept that stamp for one
	// more check, so a file still being written is never loaded half.
	seen map[string]fileStamp // guarded by swapMu

	logq    *logQueue
	logDone chan struct{}
	hooks   chan store.Delivery
	// replica names this server as the holder of webhook deliveries.
	replica string
	bg      sync.WaitGroup
	closed  atomic.Bool
	closeMu sync.Mutex
}

// New loads the policy and the tokens and builds the server. A policy or
// token file that does not load is an error: the service never starts
// with a more permissive policy than the one written.
func New(ctx context.Context, options *Options) (*Server, error) {
	var opts Options
	if options != nil {
		opts = *options
	}
	if opts.Store == nil {
		return nil, errors.New("serve: a store is required")
	}
	if opts.TokensFile == "" {
		return nil, errors.New("serve: a token file is required")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&opts.ReloadInterval, 2*time.Second)
	def(&opts.ApprovalTTL, time.Hour)
	def(&opts.UseWindow, 15*time.Minute)
	def(&opts.RequestTimeout, 10*time.Second)
	def(&opts.MaxWait, 60*time.Second)
	if opts.MaxBody <= 0 {
		opts.MaxBody = 8 << 20
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 1000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.PublicURL = strings.TrimSuffix(opts.PublicURL, "/")
	wh, err := opts.Webhook.prepare()
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	opts.Webhook = wh
	s := &Server{opts: opts, log: opts.Logger, store: opts.Store, m: newMetrics(), now: opts.Now,
		stamps: map[string]fileStamp{}, seen: map[string]fileStamp{}, logq: newLogQueue(), logDone: make(chan struct{}),
		hooks: make(chan store.Delivery, 256), replica: "rp_" + strings.ToLower(rand.Text()), digests: newDigestMemo()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.started = s.now()
	ts, err := loadTokens(opts.TokensFile)
	if err != nil {
		return nil, fmt.Errorf("serve: tokens: %w", err)
	}
	s.tokens.Store(ts)
	s.stamps[opts.TokensFile] = stampOf(opts.TokensFile)
	if err := s.Reload(ctx); err != nil {
		return nil, fmt.Errorf("serve: policy: %w", err)
	}
	s.routes()
	s.bg.Go(s.logWriter)
	return s, nil
}

// Handler returns the service's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Revision returns the revision of the policy in force.
func (s *Server) Revision() string { return s.dec.Load().pol.revision }

// Run does the background work — watching the files, following session
// rule changes, expiring approvals, delivering webhooks — until ctx is
// done.
func (s *Server) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { s.watch(ctx) })
	wg.Go(func() { s.followRules(ctx) })
	wg.Go(func() { s.followApprovals(ctx) })
	wg.Go(func() { s.sweep(ctx) })
	wg.Go(func() { s.deliverWebhooks(ctx) })
	wg.Wait()
}

// Close flushes the decision log. Requests must have finished (Shutdown of
// the http.Server) before; the store is the caller's to close.
func (s *Server) Close() {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed.Swap(true) {
		return
	}
	s.logq.close()
	<-s.logDone
}

// fileStamp is what the watcher compares to see that a file changed.
type fileStamp struct {
	size  int64
	mtime time.Time
	ok    bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mtime: fi.ModTime(), ok: true}
}

// Reload loads the policy files again and, if they load, swaps the policy
// in force; otherwise the old one stays, and the error is reported in
// /readyz, the log and the metrics.
func (s *Server) Reload(ctx context.Context) error {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	// Stamps are taken before reading, so a change during the load is seen
	// by the next check.
	stamps := map[string]fileStamp{}
	if old := s.dec.Load(); old != nil {
		for _, f := range old.pol.files {
			stamps[f] = stampOf(f)
		}
	}
	for _, c := range s.opts.Policy.Configs {
		if i := strings.IndexByte(c, '='); i >= 0 && !strings.HasPrefix(c, "/") {
			c = c[i+1:]
		}
		stamps[c] = stampOf(c)
	}
	p, err := loadPolicy(s.opts.Policy)
	var d *deciders
	if err == nil {
		var rules []store.SessionRule
		rules, err = s.store.SessionRules(ctx)
		if err == nil {
			d, err = newDeciders(p, toRules(rules))
		} else {
			err = fmt.Errorf("reading session rules: %w", err)
		}
	}
	for f, st := range stamps {
		s.stamps[f] = st
	}
	if err != nil {
		msg := err.Error()
		s.policyErr.Store(&msg)
		s.m.reloadFailures.Inc()
		s.m.policyOK.Set(0)
		if s.dec.Load() != nil {
			s.log.Error("policy reload failed; the previous policy stays in force", "revision", s.Revision(), "err", msg)
		}
		return err
	}
	for _, f := range p.files {
		if _, ok := s.stamps[f]; !ok {
			s.stamps[f] = stampOf(f)
		}
	}
	old := s.dec.Swap(d)
	s.policyErr.Store(nil)
	s.m.policyOK.Set(1)
	if old != nil {
		s.m.reloads.Inc()
		if old.pol.revision != p.revision {
			s.log.Info("policy reloaded", "revision", p.revision, "previous", old.pol.revision)
		}
	} else {
		s.log.Info("policy loaded", "revision", p.revision, "files", p.files)
	}
	for _, w := range p.warnings {
		s.log.Warn("policy", "warning", w)
	}
	return nil
}

func toRules(rs []store.SessionRule) []SessionRule {
	out := make([]SessionRule, len(rs))
	for i, r := range rs {
		out[i] = SessionRule{Session: r.Session, Effect: r.Effect, Rule: r.Rule}
	}
	return out
}

// reloadRules rebuilds the engines with the stored session rules.
func (s *Server) reloadRules(ctx context.Context) error {
	rules, err := s.store.SessionRules(ctx)
	if err != nil {
		msg := "reading session rules: " + err.Error()
		s.rulesErr.Store(&msg)
		return err
	}
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	d, err := newDeciders(s.dec.Load().pol, toRules(rules))
	if err != nil {
		msg := err.Error()
		s.rulesErr.Store(&msg)
		return err
	}
	s.dec.Store(d)
	s.rulesErr.Store(nil)
	return nil
}

// watch checks the policy and token files every ReloadInterval.
func (s *Server) watch(ctx context.Context) {
	if s.opts.ReloadInterval < 0 {
		return
	}
	t := time.NewTicker(s.opts.ReloadInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.checkFiles(ctx)
	}
}

// checkFiles reloads what changed.
func (s *Server) checkFiles(ctx context.Context) {
	s.swapMu.Lock()
	policyChanged, tokensChanged := false, false
	for f, old := range s.stamps {
		now := stampOf(f)
		if now == old {
			delete(s.seen, f)
			continue
		}
		if prev, ok := s.seen[f]; !ok || prev != now {
			s.seen[f] = now // changed since the last check: wait until it settles
			continue
		}
		delete(s.seen, f)
		if f == s.opts.TokensFile {
			tokensChanged = true
		} else {
			policyChanged = true
		}
	}
	if tokensChanged {
		s.stamps[s.opts.TokensFile] = stampOf(s.opts.TokensFile)
	}
	s.swapMu.Unlock()
	if tokensChanged {
		if ts, err := loadTokens(s.opts.TokensFile); err != nil {
			s.log.Error("token file reload failed; the previous tokens stay", "err", err)
		} else {
			s.tokens.Store(ts)
			s.log.Info("tokens reloaded", "count", len(ts.byHash))
		}
	}
	if policyChanged {
		s.Reload(ctx)
	}
}

// followRules rebuilds the engines whenever session rules change on any
// replica; while the database cannot be read it retries every second.
func (s *Server) followRules(ctx context.Context) {
	ch, cancel := s.store.Subscribe(store.TopicRules)
	defer cancel()
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
			s.reloadRules(ctx)
		case <-retry.C:
			if s.rulesErr.Load() != nil {
				s.reloadRules(ctx)
			}
		}
	}
}

// sweep expires approvals and counts the pending ones.
func (s *Server) sweep(ctx context.Context) {
	interval := min(10*time.Second, s.opts.ApprovalTTL/4)
	t := time.NewTicker(max(interval, 10*time.Millisecond))
	defer t.Stop()
	var pruned time.Time
	for {
		s.sweepOnce(ctx)
		if s.opts.LogRetention > 0 && s.now().Sub(pruned) >= pruneEvery {
			s.prune(ctx)
			pruned = s.now()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) sweepOnce(ctx context.Context) {
	exp, err := s.store.Expire(ctx, s.now())
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("expiring approvals", "err", err)
		}
		return
	}
	for _, a := range exp {
		s.m.expired.Inc()
		s.logEntry(store.Entry{Time: s.now(), Event: "expire", Caller: a.Caller, Agent: a.Agent, Session: a.Session,
			Tool: a.Tool, Server: a.Server, Digest: a.Digest, Outcome: outcomeDeny, Kind: "approval", Revision: a.Revision, Approval: a.ID,
			Message: fmt.Sprintf("approval %s expired (%s)", a.ID, a.State)})
	}
	if n, err := s.store.Count(ctx, store.Pending); err == nil {
		s.m.pending.Store(int64(n))
	}
	if n, err := s.store.ExpireDeliveries(ctx, s.now()); err != nil {
		if ctx.Err() == nil {
			s.log.Warn("expiring webhook deliveries", "err", err)
		}
	} else if n > 0 {
		s.log.Warn("webhook deliveries failed: not delivered before their approvals expired", "count", n)
	}
	if n, err := s.store.CountDeliveries(ctx, store.DeliveryPending); err == nil {
		s.m.deliveriesPending.Store(int64(n))
	}
}

// pruneEvery is how often the retention window is applied.
const pruneEvery = time.Hour

// prune deletes what is older than the retention window. Every replica
// prunes; the deletes are idempotent, so that costs only a little work.
func (s *Server) prune(ctx context.Context) {
	p, err := s.store.Prune(ctx, s.now().Add(-s.opts.LogRetention))
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("pruning the decision log", "err", err)
		}
		return
	}
	s.m.pruned.Add(float64(p.Entries))
	if p.Entries > 0 || p.Approvals > 0 {
		s.log.Info("pruned the decision log", "entries", p.Entries, "approvals", p.Approvals, "retention", s.opts.LogRetention)
	}
}

// logEntry queues a decision log entry. It blocks while the queue is full:
// the log is never silently short. Once the server is closed (requests
// have finished) it drops e.
func (s *Server) logEntry(e store.Entry) { s.logq.put(e) }

// logWriter writes queued entries in batches until the queue is closed and
// empty.
func (s *Server) logWriter() {
	defer close(s.logDone)
	// Collect for up to logLinger after the first entry, so that one
	// transaction carries many entries: a commit per decision would cost
	// more than the decision. Not much longer, because the batch is
	// written in one go on one of the cores that answer requests: at
	// 30,000 decisions/s a 20 ms batch was about 2 ms of CPU at a stretch,
	// and the answers that waited behind it made much of the latency tail
	// (with the log off, wrk's p90 halved); a 5 ms batch is about 0.5 ms.
	// SQLite's CPU per entry is nearly the same (150-entry batches 4.1 µs,
	// 600-entry 3.8 µs).
	const logLinger = 5 * time.Millisecond
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var spare []store.Entry
	for {
		select {
		case <-s.logq.wake:
			timer.Reset(logLinger)
			select {
			case <-timer.C:
			case <-s.logq.done:
				timer.Stop()
			}
		case <-s.logq.done:
		}
		batch, closed := s.logq.take(spare)
		if len(batch) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := s.store.Log(ctx, batch)
			cancel()
			if err != nil {
				s.m.logErrors.Add(float64(len(batch)))
				s.log.Error("decision log write failed", "entries", len(batch), "err", err)
			}
		}
		if closed {
			return // nothing can be put any more, and batch had the rest
		}
		spare = batch
	}
}

// ServeOptions configure Serve.
type ServeOptions struct {
	// TLS, if set, serves HTTPS (with client certificates if it asks for
	// them).
	TLS *tls.Config
	// Grace is how long shutdown waits for requests in flight (default 30s).
	Grace time.Duration
}

// Serve serves s on ln until ctx is done, then shuts down gracefully:
// it stops accepting, lets requests in flight finish (up to Grace), and
// flushes the decision log.
func Serve(ctx context.Context, ln net.Listener, s *Server, options *ServeOptions) error {
	var o ServeOptions
	if options != nil {
		o = *options
	}
	if o.Grace <= 0 {
		o.Grace = 30 * time.Second
	}
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       s.opts.RequestTimeout + 5*time.Second,
		WriteTimeout:      max(s.opts.RequestTimeout, s.opts.MaxWait) + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		TLSConfig:         o.TLS,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	bgctx, stopBG := context.WithCancel(context.WithoutCancel(ctx))
	bgDone := make(chan struct{})
	go func() { s.Run(bgctx); close(bgDone) }()
	errc := make(chan error, 1)
	go func() {
		if o.TLS != nil {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	var err error
	select {
	case err = <-errc:
	case <-ctx.Done():
		s.log.Info("shutting down; finishing requests in flight", "grace", o.Grace)
		sctx, cancel := context.WithTimeout(context.Background(), o.Grace)
		err = hs.Shutdown(sctx)
		cancel()
		<-errc
	}
	stopBG()
	<-bgDone
	s.Close()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// writeJSON writes v with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code = http.StatusInternalServerError
		b = []byte(`{"error":"cannot encode the response"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// apiError is the body of an error response.
type apiError struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, code int, format string, args ...any) {
	writeJSON(w, code, apiError{Error: fmt.Sprintf(format, args...)})
}
