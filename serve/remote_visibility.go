package serve

import (
	"errors"
	"net/http"

	"github.com/toolgate/toolgate"
)

// POST /v1/visibility answers, for a list of tool names, which of them the
// policy in force shows to a model: what an MCP gateway deciding remotely
// ("toolgate mcp --server") needs to filter tools/list. Without a session
// it reads the policy and the rules for every session (those with session
// ""); with one ("session": ID), also that session's own rules, the
// engine POST /v1/decide decides the session's calls with: a session rule
// that allows a tool the policy hides shows it to that session only.
//
// Visibility is not an authorisation: every call of a listed tool is still
// decided by POST /v1/decide. A tool the engine cannot answer for (a
// panic) is reported hidden.

// maxVisibilityTools bounds the tools of one visibility request.
const maxVisibilityTools = 10000

// visibilityRequest is the body of POST /v1/visibility.
type visibilityRequest struct {
	Tools []string `json:"tools"`
	// Session, if not empty, adds the session's own rules.
	Session string `json:"session,omitempty"`
}

// VisibilityAnswer is the answer of POST /v1/visibility: for each tool
// asked about, whether the model is shown it, under the policy revision.
type VisibilityAnswer struct {
	Revision string          `json:"revision"`
	Tools    map[string]bool `json:"tools"`
}

func (s *Server) handleVisibility(w http.ResponseWriter, r *http.Request, _ Identity) {
	var req visibilityRequest
	if !s.decodeJSON(w, r, &req) {
		return
	}
	if len(req.Tools) > maxVisibilityTools {
		writeError(w, http.StatusRequestEntityTooLarge, "over %d tools in one request", maxVisibilityTools)
		return
	}
	dec := s.dec.Load()
	e, err := dec.visibilityEngine(req.Session)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	out := VisibilityAnswer{Revision: dec.pol.revision, Tools: make(map[string]bool, len(req.Tools))}
	for _, t := range req.Tools {
		out.Tools[t] = exposed(e, t)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}

// visibilityEngine is the engine that decides the calls of session: the
// base engine (the policy with the rules for every session) for "" and for
// a session without rules of its own, otherwise the session's engine, kept
// or built as decide keeps and builds it.
func (d *deciders) visibilityEngine(session string) (*toolgate.Engine, error) {
	rules, ok := d.bySession[session]
	if session == "" || !ok {
		return d.base, nil
	}
	if kept, ok := d.sessions.get(session); ok {
		return kept, nil
	}
	built, err := buildEngine(d.pol, d.global, rules)
	if err != nil {
		return nil, errors.New("the session's rules do not compile: " + err.Error())
	}
	return d.sessions.put(session, built), nil
}

// exposed reports whether e shows tool to a model. A panic, or no engine,
// hides it.
func exposed(e *toolgate.Engine, tool string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return e != nil && e.ExposeToModel(tool)
}
