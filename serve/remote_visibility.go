package serve

import (
	"net/http"
)

// POST /v1/visibility answers, for a list of tool names, which of them the
// policy in force shows to a model: what an MCP gateway deciding remotely
// ("toolgate mcp --server") needs to filter tools/list. It reads the
// policy and the session rules of every session (those with session ""),
// not one session's own: a gateway's listing is shared by its sessions.
//
// Visibility is not an authorisation: every call of a listed tool is still
// decided by POST /v1/decide. A tool the engine cannot answer for (a
// panic) is reported hidden.

// maxVisibilityTools bounds the tools of one visibility request.
const maxVisibilityTools = 10000

// visibilityRequest is the body of POST /v1/visibility.
type visibilityRequest struct {
	Tools []string `json:"tools"`
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
	out := VisibilityAnswer{Revision: dec.pol.revision, Tools: make(map[string]bool, len(req.Tools))}
	for _, t := range req.Tools {
		out.Tools[t] = dec.exposed(t)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, out)
}

// exposed reports whether the base engine (the policy with the session
// rules of every session) shows tool to a model. A panic hides it.
func (d *deciders) exposed(tool string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return d.base != nil && d.base.ExposeToModel(tool)
}
