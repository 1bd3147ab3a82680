package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/toolgate/toolgate/internal/jsonin"
)

// The OpenID AuthZEN Authorization API mapping (docs/serve.md):
//
//	subject   {type, id, properties}: id is the sub-agent's name (type
//	          "session": the session id); properties.agent and
//	          properties.session set either explicitly.
//	action    {name, properties}: name is the tool; properties.server is
//	          the MCP server.
//	resource  {type, id, properties}: type "command", "path" or "url" puts
//	          id in the input field command, file_path or url;
//	          properties.field names another field.
//	context   cwd, home, mode, read_only and server are the call's fields;
//	          context.input (an object) is the rest of the input, and every
//	          other key of context is an input field too.
//
// decision is true only for allow: a modify (which an AuthZEN client cannot
// apply), an ask and a deny are false; the full toolgate decision is in
// context.toolgate.

type azEntity struct {
	Type       string                     `json:"type,omitempty"`
	ID         string                     `json:"id,omitempty"`
	Name       string                     `json:"name,omitempty"`
	Properties map[string]json.RawMessage `json:"properties,omitempty"`
}

type azRequest struct {
	Subject  *azEntity                  `json:"subject,omitempty"`
	Action   *azEntity                  `json:"action,omitempty"`
	Resource *azEntity                  `json:"resource,omitempty"`
	Context  map[string]json.RawMessage `json:"context,omitempty"`
}

type azBatch struct {
	azRequest
	Evaluations []azRequest `json:"evaluations"`
	Options     struct {
		Semantic string `json:"evaluations_semantic,omitempty"`
	} `json:"options"`
}

type azResponse struct {
	Decision bool           `json:"decision"`
	Context  map[string]any `json:"context,omitempty"`
}

// merge fills what r leaves out from the batch defaults d.
func (r azRequest) merge(d azRequest) azRequest {
	if r.Subject == nil {
		r.Subject = d.Subject
	}
	if r.Action == nil {
		r.Action = d.Action
	}
	if r.Resource == nil {
		r.Resource = d.Resource
	}
	if r.Context == nil {
		r.Context = d.Context
	}
	return r
}

// callFields are the context keys that are call fields, not input.
var callFields = map[string]bool{"cwd": true, "home": true, "mode": true, "read_only": true, "server": true, "input": true}

// toRequest builds the toolgate request object of an AuthZEN request; the
// result is then read by the strict request parser.
func (r azRequest) toRequest() ([]byte, error) {
	if r.Action == nil || r.Action.Name == "" {
		return nil, fmt.Errorf("action.name (the tool) is required")
	}
	req := map[string]json.RawMessage{}
	str := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	req["tool"] = str(r.Action.Name)
	if v, ok := r.Action.Properties["server"]; ok {
		req["server"] = v
	}
	if sub := r.Subject; sub != nil {
		if sub.Type == "session" {
			req["session"] = str(sub.ID)
		} else if sub.ID != "" {
			req["agent"] = str(sub.ID)
		}
		for _, k := range []string{"agent", "session"} {
			if v, ok := sub.Properties[k]; ok {
				req[k] = v
			}
		}
	}
	input := map[string]json.RawMessage{}
	if raw, ok := r.Context["input"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &input); err != nil {
			return nil, fmt.Errorf("context.input must be an object")
		}
	}
	for k, v := range r.Context {
		if callFields[k] {
			if k != "input" {
				req[k] = v
			}
			continue
		}
		input[k] = v
	}
	if res := r.Resource; res != nil && res.ID != "" {
		field := ""
		if raw, ok := res.Properties["field"]; ok {
			if err := json.Unmarshal(raw, &field); err != nil || field == "" {
				return nil, fmt.Errorf("resource.properties.field must be a field name")
			}
		} else {
			switch res.Type {
			case "command":
				field = "command"
			case "path", "file":
				field = "file_path"
			case "url":
				field = "url"
			default:
				return nil, fmt.Errorf("resource.type %q is not command, path or url (name the input field in resource.properties.field)", res.Type)
			}
		}
		input[field] = str(res.ID)
	}
	in, err := json.Marshal(input)
	if err != nil {
		return nil, err
	}
	req["input"] = in
	return json.Marshal(req)
}

// evaluate decides one AuthZEN request.
func (s *Server) evaluate(ctx context.Context, id Identity, r azRequest) azResponse {
	body, err := r.toRequest()
	var resp response
	if err != nil {
		resp = newResponse(denial(kindInvalid, err.Error()), s.Revision(), nil)
	} else if c, rerr := parseCall(body, s.defaults()); rerr != nil {
		resp = newResponse(denial(kindInvalid, rerr.Msg), s.Revision(), nil)
	} else {
		resp = s.decideCall(ctx, id, c)
	}
	return azResponse{Decision: resp.Decision == outcomeAllow, Context: map[string]any{
		"reason_user": map[string]string{"en": resp.Reason.Message},
		"toolgate":    resp,
	}}
}

// readAuthZEN reads an AuthZEN body strictly: it must be valid JSON with
// no duplicate key (checked by the engine's parser), and no unknown field.
func (s *Server) readAuthZEN(w http.ResponseWriter, r *http.Request, v any) bool {
	body, tooBig, err := s.readBody(w, r)
	fail := func(code int, msg string) bool {
		writeJSON(w, code, azResponse{Decision: false, Context: map[string]any{"error": msg}})
		return false
	}
	switch {
	case tooBig:
		return fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is over the %d-byte limit", s.opts.MaxBody))
	case err != nil:
		return fail(http.StatusBadRequest, "cannot read the request: "+err.Error())
	}
	if _, err := jsonin.Parse(body); err != nil {
		return fail(http.StatusBadRequest, "request is not valid JSON: "+err.Error())
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fail(http.StatusBadRequest, "malformed AuthZEN request: "+err.Error())
	}
	return true
}

// handleEvaluation is POST /access/v1/evaluation.
func (s *Server) handleEvaluation(w http.ResponseWriter, r *http.Request, id Identity) {
	var req azRequest
	if !s.readAuthZEN(w, r, &req) {
		return
	}
	writeJSON(w, http.StatusOK, s.evaluate(r.Context(), id, req))
}

// handleEvaluations is POST /access/v1/evaluations: each evaluation takes
// what it leaves out from the top level. The semantics execute_all
// (default), deny_on_first_deny and permit_on_first_permit are honoured.
func (s *Server) handleEvaluations(w http.ResponseWriter, r *http.Request, id Identity) {
	var req azBatch
	if !s.readAuthZEN(w, r, &req) {
		return
	}
	if len(req.Evaluations) > s.opts.MaxBatch {
		writeJSON(w, http.StatusRequestEntityTooLarge, azResponse{Context: map[string]any{"error": fmt.Sprintf("over %d evaluations", s.opts.MaxBatch)}})
		return
	}
	switch req.Options.Semantic {
	case "", "execute_all", "deny_on_first_deny", "permit_on_first_permit":
	default:
		writeJSON(w, http.StatusBadRequest, azResponse{Context: map[string]any{"error": "unknown evaluations_semantic " + req.Options.Semantic}})
		return
	}
	if len(req.Evaluations) == 0 {
		writeJSON(w, http.StatusOK, s.evaluate(r.Context(), id, req.azRequest))
		return
	}
	out := []azResponse{}
	for _, e := range req.Evaluations {
		res := s.evaluate(r.Context(), id, e.merge(req.azRequest))
		out = append(out, res)
		if (req.Options.Semantic == "deny_on_first_deny" && !res.Decision) ||
			(req.Options.Semantic == "permit_on_first_permit" && res.Decision) {
			break
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"evaluations": out})
}
