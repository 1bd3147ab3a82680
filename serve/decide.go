package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/store"
)

// decideCall decides one call for id: the engine's decision, then, for an
// ask, the durable approval — an approved record for exactly this call is
// used (once) and the call allowed; otherwise the pending record is found
// or made and its reference returned with the ask. Every failure is a deny.
func (s *Server) decideCall(ctx context.Context, id Identity, c Call) response {
	start := time.Now()
	dec := s.dec.Load()
	d := dec.decide(c)
	var ref *approvalRef
	var entry store.Entry
	if isAsk(d) {
		d, ref, entry = s.approvalFor(ctx, id, c, d, dec.pol.revision)
	}
	elapsed := time.Since(start)
	out := outcomeOf(d)
	kind := reasonKind(d)
	s.m.decisions.WithLabelValues(out, kind).Inc()
	s.m.latency.Observe(elapsed.Seconds())
	if !s.opts.NoDecisionLog || entry.Approval != "" {
		r := d.Reason()
		entry.Time = s.now()
		entry.Event = "decision"
		entry.Caller, entry.Agent, entry.Session, entry.Tool, entry.Server = id.Name, c.Agent, c.Session, c.Tool, c.Server
		entry.Outcome, entry.Kind, entry.Rule, entry.Revision = out, kind, r.Rule, dec.pol.revision
		entry.Message = r.Message
		entry.Micros = elapsed.Microseconds()
		s.logEntry(entry)
	}
	return newResponse(d, dec.pol.revision, ref)
}

// approvalFor resolves an ask d through the store.
func (s *Server) approvalFor(ctx context.Context, id Identity, c Call, d Decision, rev string) (Decision, *approvalRef, store.Entry) {
	var entry store.Entry
	digest, err := s.digests.digest(c)
	if err != nil {
		return denyWith(d, kindInvalid, "the call cannot be identified for an approval: "+err.Error()), nil, entry
	}
	entry.Digest = digest
	key := store.Key{Digest: digest, Agent: c.Agent, Session: c.Session, Caller: id.Name, Server: c.Server}
	now := s.now()
	if v, ok := s.asks.Load(key); ok {
		p := v.(pendingAsk)
		if now.Before(p.until) && now.Before(p.a.Expires) {
			entry.Approval = p.a.ID
			return d, s.refOf(p.a), entry
		}
	}
	// The single-decision endpoints have no request deadline of their own
	// (routes): this bounds what they wait for.
	ctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	approved, a, found, err := s.store.Peek(ctx, key, now)
	if err != nil {
		s.log.Error("approval lookup failed", "err", err)
		return denyWith(d, kindError, "the approval store is unavailable: "+err.Error()), nil, entry
	}
	if approved {
		var used store.Approval
		var ok bool
		used, ok, err = s.store.Consume(ctx, key, now)
		if err != nil {
			s.log.Error("approval lookup failed", "err", err)
			return denyWith(d, kindError, "the approval store is unavailable: "+err.Error()), nil, entry
		}
		if ok {
			s.m.consumed.Inc()
			entry.Approval, entry.Approver = used.ID, used.Approver
			return allowByApproval(d, used.ID, used.Approver), &approvalRef{ID: used.ID, State: string(store.Used),
				Expires: used.Expires.Format(time.RFC3339), URL: s.approvalURL(used.ID)}, entry
		}
		// Another replica used it first: the call asks again.
		_, a, found, err = s.store.Peek(ctx, key, now)
	}
	if err == nil && !found {
		a = store.Approval{ID: store.NewID(), Digest: digest, Tool: c.Tool, Input: inputText(c), Cwd: c.Cwd,
			Agent: c.Agent, Session: c.Session, Caller: id.Name, Server: c.Server, Revision: rev, Prompt: d.Prompt,
			Suggestions: d.Suggestions, Created: now, Expires: now.Add(s.opts.ApprovalTTL), State: store.Pending}
		// The webhook delivery is recorded with the approval, so that the
		// request is announced even if this replica stops right after.
		dl, announce := s.newDelivery(a)
		if announce {
			err = s.store.CreateApproval(ctx, a, dl)
		} else {
			err = s.store.CreateApproval(ctx, a)
		}
		if err == nil {
			s.m.created.Inc()
			s.m.pending.Add(1)
			if announce {
				s.queueDelivery(dl)
			}
		}
	}
	if err != nil {
		s.log.Error("recording an approval failed", "err", err)
		return denyWith(d, kindError, "the ask cannot be recorded for approval: "+err.Error()), nil, entry
	}
	entry.Approval = a.ID
	s.asks.Store(key, pendingAsk{a: a, until: now.Add(askCacheTTL)})
	return d, s.refOf(a), entry
}

// pendingAsk is a pending approval remembered for its key. The memory can
// only ever answer "still asking", never allow, and it is forgotten on
// every approval change any replica announces (and after askCacheTTL in
// any case), so an answered approval is seen as soon as the change
// notification arrives.
type pendingAsk struct {
	a     store.Approval
	until time.Time
}

// askCacheTTL bounds how long a pending approval is remembered without a
// change notification.
const askCacheTTL = 2 * time.Second

// forgetAsks drops every remembered pending approval.
func (s *Server) forgetAsks() { s.asks.Clear() }

// followApprovals forgets remembered asks whenever approvals change on any
// replica.
func (s *Server) followApprovals(ctx context.Context) {
	ch, cancel := s.store.Subscribe(store.TopicApprovals)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
			s.forgetAsks()
		}
	}
}

// refOf is the reference to a pending approval returned with an ask.
func (s *Server) refOf(a store.Approval) *approvalRef {
	return &approvalRef{ID: a.ID, State: string(a.State), Expires: a.Expires.Format(time.RFC3339), URL: s.approvalURL(a.ID)}
}

// inputText is the call's input as stored in an approval.
func inputText(c Call) string {
	if len(c.Input) == 0 {
		return "{}"
	}
	return string(c.Input)
}

// approvalURL is where a person answers an approval, when the public URL
// is known.
func (s *Server) approvalURL(id string) string {
	if s.opts.PublicURL == "" {
		return ""
	}
	return s.opts.PublicURL + "/approvals/" + id
}

// readBody reads a request body up to the limit. tooBig reports a body over
// it.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (body []byte, tooBig bool, err error) {
	if n := r.ContentLength; n > 0 && n <= s.opts.MaxBody && n <= 1<<20 {
		// The announced length, within the limit, read into one buffer of
		// its size: net/http ends the body there, so it needs no
		// MaxBytesReader. A shorter body is an error, as for ReadAll.
		body = make([]byte, n)
		if _, err = io.ReadFull(r.Body, body); err != nil {
			return nil, false, err
		}
		return body, false, nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
	body, err = io.ReadAll(r.Body)
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return nil, true, err
		}
	}
	return body, false, err
}

// respBufs are the buffers writeDecision encodes into, kept between
// requests so that a decision's JSON is not allocated anew.
var respBufs = sync.Pool{New: func() any { return new([]byte) }}

// Header values of a decision response, shared by every response (net/http
// only reads them).
var (
	jsonContentType = []string{"application/json"}
	noStore         = []string{"no-store"}
)

// writeDecision writes one decision response with status code: the JSON of
// r, exactly as marshalResponse encodes it, and a newline.
func writeDecision(w http.ResponseWriter, code int, r response) {
	bp := respBufs.Get().(*[]byte)
	b := append(marshalResponse((*bp)[:0], r), '\n')
	h := w.Header()
	h["Content-Type"] = jsonContentType
	h["Cache-Control"] = noStore
	w.WriteHeader(code)
	w.Write(b)
	if cap(b) <= 64<<10 {
		*bp = b
		respBufs.Put(bp)
	}
}

// denyStatus writes a deny of kind with an HTTP error status: a rejected
// request still reads as a denial to a client that looks only at the body.
func (s *Server) denyStatus(w http.ResponseWriter, code int, kind, format string, args ...any) {
	writeDecision(w, code, newResponse(denial(kind, fmt.Sprintf(format, args...)), s.Revision(), nil))
}

func (s *Server) defaults() callDefaults { return callDefaults{cwd: s.opts.Cwd, home: s.opts.Home} }

// handleDecide is POST /v1/decide: one request object in, one decision out
// (the toolgate check JSON contract, with the policy revision).
func (s *Server) handleDecide(w http.ResponseWriter, r *http.Request, id Identity) {
	body, tooBig, err := s.readBody(w, r)
	switch {
	case tooBig:
		s.denyStatus(w, http.StatusRequestEntityTooLarge, kindInvalid, "request body is over the %d-byte limit", s.opts.MaxBody)
		return
	case err != nil:
		s.denyStatus(w, http.StatusBadRequest, kindInvalid, "cannot read the request: %v", err)
		return
	}
	c, rerr := parseCall(body, s.defaults())
	if rerr != nil {
		s.m.decisions.WithLabelValues(outcomeDeny, kindInvalid).Inc()
		s.denyStatus(w, http.StatusBadRequest, kindInvalid, "%s", rerr.Msg)
		return
	}
	writeDecision(w, http.StatusOK, s.decideCall(r.Context(), id, c))
}

// handleBatch is POST /v1/decide:batch: a JSON array of request objects
// gets a JSON array of decisions; any other body is JSON Lines, answered
// line for line, exactly as toolgate check answers standard input. A
// malformed element or line gets an invalid deny in its place.
func (s *Server) handleBatch(w http.ResponseWriter, r *http.Request, id Identity) {
	body, tooBig, err := s.readBody(w, r)
	switch {
	case tooBig:
		s.denyStatus(w, http.StatusRequestEntityTooLarge, kindInvalid, "request body is over the %d-byte limit", s.opts.MaxBody)
		return
	case err != nil:
		s.denyStatus(w, http.StatusBadRequest, kindInvalid, "cannot read the request: %v", err)
		return
	}
	def := s.defaults()
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		doc, err := jsonin.Parse(trimmed)
		if err != nil {
			s.denyStatus(w, http.StatusBadRequest, kindInvalid, "batch is not valid JSON: %v", err)
			return
		}
		root := doc.Root()
		if root.Len() > s.opts.MaxBatch {
			s.denyStatus(w, http.StatusRequestEntityTooLarge, kindInvalid, "batch has over %d calls", s.opts.MaxBatch)
			return
		}
		out := []byte{'['}
		root.Each(func(i int, v jsonin.Value) bool {
			if i > 0 {
				out = append(out, ',')
			}
			out = marshalResponse(out, s.decideValue(r.Context(), id, v, def))
			return true
		})
		out = append(out, ']', '\n')
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(out)
		return
	}
	lines := bytes.Split(body, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // a final newline ends the last line
	}
	if len(lines) > s.opts.MaxBatch {
		s.denyStatus(w, http.StatusRequestEntityTooLarge, kindInvalid, "batch has over %d lines", s.opts.MaxBatch)
		return
	}
	var out []byte
	for _, line := range lines {
		line = bytes.TrimSuffix(line, []byte("\r"))
		var resp response
		if len(bytes.TrimSpace(line)) == 0 {
			resp = newResponse(denial(kindInvalid, "empty request line"), s.Revision(), nil)
		} else if c, rerr := parseCall(line, def); rerr != nil {
			resp = newResponse(denial(kindInvalid, rerr.Msg), s.Revision(), nil)
		} else {
			resp = s.decideCall(r.Context(), id, c)
		}
		out = append(marshalResponse(out, resp), '\n')
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(out)
}

// decideValue decides one parsed request of a batch.
func (s *Server) decideValue(ctx context.Context, id Identity, v jsonin.Value, def callDefaults) response {
	c, rerr := callFromValue(v, def)
	if rerr != nil {
		s.m.decisions.WithLabelValues(outcomeDeny, kindInvalid).Inc()
		return newResponse(denial(kindInvalid, rerr.Msg), s.Revision(), nil)
	}
	return s.decideCall(ctx, id, c)
}
