package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/toolgate/toolgate/store"
)

// authedHandler is a handler that knows its caller.
type authedHandler func(w http.ResponseWriter, r *http.Request, id Identity)

// routes registers every endpoint.
func (s *Server) routes() {
	mux := http.NewServeMux()
	s.mux = mux
	// Decisions answer a refused caller with a deny, never a bare error.
	decide := func(h authedHandler) http.Handler {
		return s.limit(s.auth(h, true, RoleAgent, RoleAdmin))
	}
	// A single decision waits on nothing but the approval store, and
	// approvalFor bounds that by RequestTimeout itself, so that a decision
	// that needs no approval (nearly all) does not start and stop a timer.
	decideOne := func(h authedHandler) http.Handler {
		return s.auth(h, true, RoleAgent, RoleAdmin)
	}
	api := func(h authedHandler, roles ...Role) http.Handler { return s.limit(s.auth(h, false, roles...)) }

	mux.Handle("POST /v1/decide", decideOne(s.handleDecide))
	mux.Handle("POST /v1/decide:batch", decide(s.handleBatch))
	mux.Handle("POST /access/v1/evaluation", decideOne(s.handleEvaluation))
	mux.Handle("POST /access/v1/evaluations", decide(s.handleEvaluations))
	mux.Handle("GET /v1/policy", api(s.handlePolicy, RoleAgent, RoleApprover, RoleAdmin))
	mux.Handle("POST /v1/visibility", api(s.handleVisibility, RoleAgent, RoleAdmin))
	mux.Handle("POST /v1/reload", api(s.handleReload, RoleAdmin))
	mux.Handle("GET /v1/session-rules", api(s.handleListRules, RoleAdmin))
	mux.Handle("POST /v1/session-rules", api(s.handleAddRule, RoleAdmin))
	mux.Handle("DELETE /v1/session-rules", api(s.handleRemoveRule, RoleAdmin))
	mux.Handle("GET /v1/approvals", api(s.handleListApprovals, RoleApprover, RoleAdmin))
	// An agent may read (and wait for) the approvals it asked for.
	mux.Handle("GET /v1/approvals/{id}", s.auth(s.handleGetApproval, false, RoleAgent, RoleApprover, RoleAdmin))
	mux.Handle("POST /v1/approvals/{id}/approve", api(s.handleApprove, RoleApprover, RoleAdmin))
	mux.Handle("POST /v1/approvals/{id}/deny", api(s.handleDeny, RoleApprover, RoleAdmin))
	mux.Handle("GET /v1/webhooks/deliveries", api(s.handleDeliveries, RoleAdmin))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, map[string]string{"status": "ok"}) })
	mux.HandleFunc("GET /readyz", s.handleReady)
	mux.Handle("GET /metrics", s.m.handler())
	s.webRoutes(mux)
}

// limit bounds a request's time.
func (s *Server) limit(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// auth checks the bearer token and its role. For a decision endpoint the
// refusal is a deny decision with the error status.
func (s *Server) auth(h authedHandler, decision bool, roles ...Role) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := s.tokens.Load().lookup(bearer(r))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolgate"`)
			if decision {
				s.denyStatus(w, http.StatusUnauthorized, kindError, "missing or unknown bearer token")
			} else {
				writeError(w, http.StatusUnauthorized, "missing or unknown bearer token")
			}
			return
		}
		if !id.can(roles...) {
			if decision {
				s.denyStatus(w, http.StatusForbidden, kindError, "token %q (role %s) may not do this", id.Name, id.Role)
			} else {
				writeError(w, http.StatusForbidden, "token %q (role %s) may not do this", id.Name, id.Role)
			}
			return
		}
		h(w, r, id)
	})
}

func (s *Server) handlePolicy(w http.ResponseWriter, r *http.Request, _ Identity) {
	writeJSON(w, http.StatusOK, s.dec.Load().pol.info)
}

func (s *Server) handleReload(w http.ResponseWriter, r *http.Request, id Identity) {
	if err := s.Reload(r.Context()); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error(), "revision": s.Revision()})
		return
	}
	s.log.Info("reload requested", "by", id.Name)
	writeJSON(w, http.StatusOK, map[string]string{"revision": s.Revision()})
}

// readiness is the body of /readyz.
type readiness struct {
	Ready       bool   `json:"ready"`
	Revision    string `json:"revision"`
	PolicyError string `json:"policy_error,omitempty"`
	RulesError  string `json:"session_rules_error,omitempty"`
	Database    string `json:"database"`
}

// handleReady is /readyz: ready when the database answers. A broken policy
// file is reported but keeps the replica ready, since the previous policy
// still decides; ?strict=1 makes it not ready.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	rd := readiness{Ready: true, Revision: s.Revision(), Database: "ok"}
	if p := s.policyErr.Load(); p != nil {
		rd.PolicyError = *p
		if r.URL.Query().Get("strict") != "" {
			rd.Ready = false
		}
	}
	if p := s.rulesErr.Load(); p != nil {
		rd.RulesError = *p
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		rd.Ready = false
		rd.Database = err.Error()
	}
	code := http.StatusOK
	if !rd.Ready {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, rd)
}

func (s *Server) handleListRules(w http.ResponseWriter, r *http.Request, _ Identity) {
	rules, err := s.store.SessionRules(r.Context())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "reading session rules: %v", err)
		return
	}
	out := []store.SessionRule{}
	session, filter := r.URL.Query().Get("session"), r.URL.Query().Has("session")
	for _, rl := range rules {
		if !filter || rl.Session == session {
			out = append(out, rl)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"rules": out})
}

// decodeJSON reads a small JSON body into v, strictly.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeError(w, http.StatusBadRequest, "malformed request body: %v", err)
		return false
	}
	return true
}

func (s *Server) handleAddRule(w http.ResponseWriter, r *http.Request, id Identity) {
	var rl SessionRule
	if !s.decodeJSON(w, r, &rl) {
		return
	}
	if err := checkSessionRule(rl); err != nil {
		writeError(w, http.StatusBadRequest, "%v", err)
		return
	}
	added, err := s.addRules(r.Context(), id, rl)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"added": added > 0, "revision": s.Revision()})
}

// addRules stores session rules and applies them on this replica before
// returning (the others follow by notification).
func (s *Server) addRules(ctx context.Context, id Identity, rules ...SessionRule) (int, error) {
	n := 0
	for _, rl := range rules {
		added, err := s.store.AddSessionRule(ctx, store.SessionRule{Session: rl.Session, Effect: rl.Effect, Rule: rl.Rule,
			Author: id.Name, Created: s.now()})
		if err != nil {
			return n, err
		}
		if added {
			n++
			s.logEntry(store.Entry{Time: s.now(), Event: "session_rule", Approver: id.Name, Session: rl.Session,
				Outcome: rl.Effect, Rule: rl.Rule, Revision: s.Revision(), Message: "session rule added by " + id.Name})
		}
	}
	if n > 0 {
		return n, s.reloadRules(ctx)
	}
	return n, nil
}

func (s *Server) handleRemoveRule(w http.ResponseWriter, r *http.Request, id Identity) {
	var rl SessionRule
	if !s.decodeJSON(w, r, &rl) {
		return
	}
	removed, err := s.store.RemoveSessionRule(r.Context(), store.SessionRule{Session: rl.Session, Effect: rl.Effect, Rule: rl.Rule})
	if err == nil && removed {
		s.logEntry(store.Entry{Time: s.now(), Event: "session_rule", Approver: id.Name, Session: rl.Session,
			Outcome: rl.Effect, Rule: rl.Rule, Revision: s.Revision(), Message: "session rule removed by " + id.Name})
		err = s.reloadRules(r.Context())
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"removed": removed})
}

func (s *Server) handleListApprovals(w http.ResponseWriter, r *http.Request, _ Identity) {
	q := r.URL.Query()
	f := store.Filter{State: store.State(q.Get("state"))}
	if f.State == "all" {
		f.State = ""
	} else if f.State == "" {
		f.State = store.Pending
	}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil {
		f.Limit = min(n, 1000)
	}
	list, err := s.store.Approvals(r.Context(), f)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "reading approvals: %v", err)
		return
	}
	if list == nil {
		list = []store.Approval{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": list})
}

// handleGetApproval is GET /v1/approvals/{id}; with ?wait=DURATION it waits
// (up to MaxWait) until the approval is no longer pending.
func (s *Server) handleGetApproval(w http.ResponseWriter, r *http.Request, id Identity) {
	ctx := r.Context()
	var wait time.Duration
	if ws := r.URL.Query().Get("wait"); ws != "" {
		d, err := time.ParseDuration(ws)
		if err != nil || d < 0 {
			writeError(w, http.StatusBadRequest, "wait must be a duration such as 30s")
			return
		}
		wait = min(d, s.opts.MaxWait)
	} else {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.opts.RequestTimeout)
		defer cancel()
	}
	var ch <-chan struct{}
	if wait > 0 {
		var cancel func()
		ch, cancel = s.store.Subscribe(store.TopicApprovals)
		defer cancel()
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	poll := time.NewTicker(time.Second) // a notification may be lost with a connection
	defer poll.Stop()
	for {
		a, err := s.store.Approval(ctx, r.PathValue("id"))
		if errors.Is(err, store.ErrNotFound) || (err == nil && !id.can(RoleApprover, RoleAdmin) && a.Caller != id.Name) {
			writeError(w, http.StatusNotFound, "no such approval")
			return
		}
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, "reading the approval: %v", err)
			return
		}
		if a.State == store.Pending && !a.Expires.After(s.now()) {
			a.State = store.Expired // the sweeper has not got to it yet
		}
		if wait == 0 || a.State != store.Pending {
			writeJSON(w, http.StatusOK, a)
			return
		}
		select {
		case <-ch:
		case <-poll.C:
		case <-deadline.C:
			wait = 0
		case <-ctx.Done():
			return
		}
	}
}

// answerRequest is the body of approve and deny.
type answerRequest struct {
	// Scope is "once" (default) or "session": approve and add the ask's
	// suggested rules as allow rules of its session.
	Scope string `json:"scope,omitempty"`
	Note  string `json:"note,omitempty"`
}

func (s *Server) handleApprove(w http.ResponseWriter, r *http.Request, id Identity) {
	s.answerHTTP(w, r, id, true)
}

func (s *Server) handleDeny(w http.ResponseWriter, r *http.Request, id Identity) {
	s.answerHTTP(w, r, id, false)
}

func (s *Server) answerHTTP(w http.ResponseWriter, r *http.Request, id Identity, approve bool) {
	var req answerRequest
	if r.ContentLength != 0 && !s.decodeJSON(w, r, &req) {
		return
	}
	a, code, err := s.answer(r.Context(), id, r.PathValue("id"), approve, req.Scope, req.Note)
	if err != nil {
		writeError(w, code, "%v", err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// answer records a person's answer. It is the one place answers are made
// (API and web page), so the checks hold for both: only approvers and
// admins answer, never the identity that asked, only pending and
// unexpired records, and every answer is logged with its approver.
func (s *Server) answer(ctx context.Context, id Identity, apID string, approve bool, scope, note string) (store.Approval, int, error) {
	if !id.can(RoleApprover, RoleAdmin) {
		return store.Approval{}, http.StatusForbidden, errors.New("only approvers answer approvals")
	}
	switch scope {
	case "", "once":
		scope = "once"
	case "session":
		if !approve {
			return store.Approval{}, http.StatusBadRequest, errors.New("scope applies to approvals only")
		}
	default:
		return store.Approval{}, http.StatusBadRequest, errors.New(`scope must be "once" or "session"`)
	}
	a, err := s.store.Approval(ctx, apID)
	if errors.Is(err, store.ErrNotFound) {
		return a, http.StatusNotFound, err
	}
	if err != nil {
		return a, http.StatusServiceUnavailable, err
	}
	if a.Caller == id.Name {
		return a, http.StatusForbidden, errors.New("an approval cannot be answered by the identity that asked for it")
	}
	var sessionRules []SessionRule
	if scope == "session" {
		if a.Session == "" {
			return a, http.StatusBadRequest, errors.New("the call has no session: approve it once")
		}
		if len(a.Suggestions) == 0 {
			return a, http.StatusBadRequest, errors.New("the ask suggests no rule: approve it once")
		}
		for _, sg := range a.Suggestions {
			rl := SessionRule{Session: a.Session, Effect: "allow", Rule: sg}
			if err := checkSessionRule(rl); err != nil {
				return a, http.StatusUnprocessableEntity, err
			}
			sessionRules = append(sessionRules, rl)
		}
	}
	now := s.now()
	a, err = s.store.Answer(ctx, apID, store.Answer{Approve: approve, Approver: id.Name, Note: note, Now: now,
		UseBy: now.Add(s.opts.UseWindow)})
	s.forgetAsks() // this replica sees its own answer at once
	switch {
	case errors.Is(err, store.ErrNotPending), errors.Is(err, store.ErrExpired):
		return a, http.StatusConflict, err
	case err != nil:
		return a, http.StatusServiceUnavailable, err
	}
	answer := "denied"
	outcome := outcomeDeny
	if approve {
		answer, outcome = "approved_"+scope, outcomeAllow
	}
	s.m.answered.WithLabelValues(answer).Inc()
	s.m.pending.Add(-1)
	s.logEntry(store.Entry{Time: now, Event: "answer", Caller: a.Caller, Agent: a.Agent, Session: a.Session,
		Tool: a.Tool, Server: a.Server, Digest: a.Digest, Outcome: outcome, Kind: "approval", Revision: a.Revision, Approval: a.ID,
		Approver: id.Name, Message: answer + ": " + note})
	s.log.Info("approval answered", "id", a.ID, "answer", answer, "approver", id.Name, "tool", a.Tool)
	if len(sessionRules) > 0 {
		if _, err := s.addRules(ctx, id, sessionRules...); err != nil {
			return a, http.StatusServiceUnavailable, errors.New("approved once, but the session rules were not added: " + err.Error())
		}
	}
	return a, http.StatusOK, nil
}
