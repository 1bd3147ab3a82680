package serve

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolgate/toolgate/store"
)

// The approvals page. It has no script at all (the Content-Security-Policy
// forbids any), so what it shows can only be text: html/template escapes
// every value, and commands, paths and prompts are shown with invisible and
// bidirectional characters as visible escapes.
//
// Login: an approver pastes a token; the cookie holds the token itself
// (HttpOnly, SameSite=Strict, Secure over HTTPS, path /approvals), so any
// replica can check it against the token file with no shared session
// state. Every form carries a CSRF token derived from the token's hash
// (HMAC), and a POST whose Origin is another site's is refused.

const cookieName = "toolgate_approver"

func (s *Server) webRoutes(mux *http.ServeMux) {
	mux.Handle("GET /approvals", s.limit(http.HandlerFunc(s.pageList)))
	mux.Handle("GET /approvals/{id}", s.limit(http.HandlerFunc(s.pageOne)))
	mux.Handle("POST /approvals/login", s.limit(http.HandlerFunc(s.pageLogin)))
	mux.Handle("POST /approvals/logout", s.limit(http.HandlerFunc(s.pageLogout)))
	mux.Handle("POST /approvals/{id}/answer", s.limit(http.HandlerFunc(s.pageAnswer)))
}

// csrfToken is the CSRF token of an identity's forms.
func csrfToken(id Identity) string {
	m := hmac.New(sha256.New, id.hash[:])
	m.Write([]byte("toolgate approvals csrf"))
	return hex.EncodeToString(m.Sum(nil))
}

// pageIdentity is the approver logged in through the cookie.
func (s *Server) pageIdentity(r *http.Request) (Identity, bool) {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return Identity{}, false
	}
	id, ok := s.tokens.Load().lookup(c.Value)
	if !ok || !id.can(RoleApprover, RoleAdmin) {
		return Identity{}, false
	}
	return id, true
}

// sameOrigin refuses a POST from another site. A browser that sends
// Sec-Fetch-Site is believed (same-origin, or none for a typed URL);
// otherwise Origin, when sent, must be this host.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// pageItem is one approval as the page shows it.
type pageItem struct {
	ID, Tool, Server, Command, Input, Cwd, Agent, Session, Caller, Prompt, Revision string
	Suggestions                                                                     []string
	Created, Expires, State, Approver                                               string
	CanSession                                                                      bool
}

func (s *Server) item(a store.Approval) pageItem {
	it := pageItem{ID: a.ID, Tool: Visible(a.Tool), Server: Visible(a.Server), Cwd: Visible(a.Cwd), Agent: Visible(a.Agent),
		Session: Visible(a.Session), Caller: Visible(a.Caller), Prompt: visibleLines(a.Prompt), Revision: a.Revision,
		Created: a.Created.Format(time.RFC3339), Expires: a.Expires.Format(time.RFC3339), State: string(a.State),
		Approver: Visible(a.Approver), CanSession: a.Session != "" && len(a.Suggestions) > 0}
	for _, sg := range a.Suggestions {
		it.Suggestions = append(it.Suggestions, Visible(sg))
	}
	var in map[string]any
	if json.Unmarshal([]byte(a.Input), &in) == nil {
		if c, ok := in["command"].(string); ok {
			it.Command = Visible(c)
		}
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(a.Input), "", "  ") == nil {
		it.Input = visibleLines(pretty.String())
	} else {
		it.Input = Visible(a.Input)
	}
	return it
}

// visibleLines is visible of each line, keeping the line breaks.
func visibleLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Visible(l)
	}
	return strings.Join(lines, "\n")
}

type pageData struct {
	Login   bool
	Error   string
	Notice  string
	Who     string
	CSRF    string
	Items   []pageItem
	Single  bool
	Revised string
}

func (s *Server) render(w http.ResponseWriter, code int, d pageData) {
	securityHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, d); err != nil {
		http.Error(w, "cannot render the page", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func (s *Server) pageList(w http.ResponseWriter, r *http.Request) {
	id, ok := s.pageIdentity(r)
	if !ok {
		s.render(w, http.StatusOK, pageData{Login: true})
		return
	}
	list, err := s.store.Approvals(r.Context(), store.Filter{State: store.Pending, Limit: 200})
	d := pageData{Who: id.Name, CSRF: csrfToken(id), Notice: r.URL.Query().Get("notice")}
	if err != nil {
		d.Error = "cannot read the approvals: " + err.Error()
	}
	now := s.now()
	for _, a := range list {
		if a.Expires.After(now) {
			d.Items = append(d.Items, s.item(a))
		}
	}
	s.render(w, http.StatusOK, d)
}

func (s *Server) pageOne(w http.ResponseWriter, r *http.Request) {
	id, ok := s.pageIdentity(r)
	if !ok {
		s.render(w, http.StatusOK, pageData{Login: true})
		return
	}
	a, err := s.store.Approval(r.Context(), r.PathValue("id"))
	d := pageData{Who: id.Name, CSRF: csrfToken(id), Single: true}
	if err != nil {
		d.Error = err.Error()
		s.render(w, http.StatusNotFound, d)
		return
	}
	if a.State == store.Pending && !a.Expires.After(s.now()) {
		a.State = store.Expired
	}
	d.Items = []pageItem{s.item(a)}
	s.render(w, http.StatusOK, d)
}

func (s *Server) pageLogin(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		s.render(w, http.StatusForbidden, pageData{Login: true, Error: "cross-site request refused"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	tok := strings.TrimSpace(r.PostFormValue("token"))
	id, ok := s.tokens.Load().lookup(tok)
	if !ok || !id.can(RoleApprover, RoleAdmin) {
		s.render(w, http.StatusUnauthorized, pageData{Login: true, Error: "unknown token, or not an approver's"})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: "/approvals", HttpOnly: true,
		Secure: r.TLS != nil || strings.HasPrefix(s.opts.PublicURL, "https:"), SameSite: http.SameSiteStrictMode,
		MaxAge: 12 * 3600})
	s.log.Info("approver logged in", "name", id.Name)
	http.Redirect(w, r, "/approvals", http.StatusSeeOther)
}

func (s *Server) pageLogout(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) {
		s.render(w, http.StatusForbidden, pageData{Login: true, Error: "cross-site request refused"})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/approvals", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/approvals", http.StatusSeeOther)
}

func (s *Server) pageAnswer(w http.ResponseWriter, r *http.Request) {
	id, ok := s.pageIdentity(r)
	if !ok {
		s.render(w, http.StatusUnauthorized, pageData{Login: true, Error: "log in first"})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	given := r.PostFormValue("csrf")
	if !sameOrigin(r) || subtle.ConstantTimeCompare([]byte(given), []byte(csrfToken(id))) != 1 {
		s.render(w, http.StatusForbidden, pageData{Who: id.Name, CSRF: csrfToken(id), Error: "the form is stale or came from another site; nothing was answered"})
		return
	}
	action := r.PostFormValue("action")
	approve, scope := false, ""
	switch action {
	case "once":
		approve, scope = true, "once"
	case "session":
		approve, scope = true, "session"
	case "deny":
	default:
		s.render(w, http.StatusBadRequest, pageData{Who: id.Name, CSRF: csrfToken(id), Error: "unknown action"})
		return
	}
	apID := r.PathValue("id")
	if _, code, err := s.answer(r.Context(), id, apID, approve, scope, r.PostFormValue("note")); err != nil {
		s.render(w, code, pageData{Who: id.Name, CSRF: csrfToken(id), Error: apID + ": " + err.Error()})
		return
	}
	notice := apID + " denied"
	if approve {
		notice = apID + " approved (" + scope + ")"
	}
	http.Redirect(w, r, "/approvals?notice="+url.QueryEscape(notice), http.StatusSeeOther)
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolgate approvals</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}
pre{background:#f4f4f4;padding:.5rem;white-space:pre-wrap;word-break:break-all}
.card{border:1px solid #ccc;border-radius:6px;padding:1rem;margin:1rem 0}
.err{color:#a00}.notice{color:#060}
dt{font-weight:bold}dd{margin:0 0 .4rem 0}
button{margin-right:.5rem}
</style></head><body>
<h1>toolgate approvals</h1>
{{if .Error}}<p class="err" id="error">{{.Error}}</p>{{end}}
{{if .Notice}}<p class="notice" id="notice">{{.Notice}}</p>{{end}}
{{if .Login}}
<form method="post" action="/approvals/login" id="login">
<label>Approver token <input type="password" name="token" id="token" autocomplete="off" required></label>
<button type="submit" id="login-submit">Log in</button>
</form>
{{else}}
<form method="post" action="/approvals/logout"><p>Logged in as <b id="who">{{.Who}}</b> <button type="submit">Log out</button></p></form>
{{if not .Items}}<p id="empty">No pending approvals.</p>{{end}}
{{range .Items}}
<div class="card" id="{{.ID}}">
<h2>{{.Tool}}{{if .Server}} <small>on MCP server <span class="server">{{.Server}}</span></small>{{end}}</h2>
{{if .Command}}<p>Command:</p><pre class="command">{{.Command}}</pre>{{end}}
<p>What will happen:</p><pre class="prompt">{{.Prompt}}</pre>
<dl>
<dt>Asked by</dt><dd class="caller">{{.Caller}}{{if .Agent}} (agent {{.Agent}}){{end}}</dd>
<dt>Session</dt><dd>{{if .Session}}{{.Session}}{{else}}none{{end}}</dd>
<dt>Working directory</dt><dd>{{.Cwd}}</dd>
<dt>Asked</dt><dd>{{.Created}}, expires {{.Expires}}</dd>
<dt>State</dt><dd class="state">{{.State}}{{if .Approver}} by {{.Approver}}{{end}}</dd>
<dt>Policy revision</dt><dd>{{.Revision}}</dd>
{{if .Suggestions}}<dt>Rules for this session</dt><dd>{{range .Suggestions}}<code>{{.}}</code> {{end}}</dd>{{end}}
</dl>
<details><summary>Full input</summary><pre class="input">{{.Input}}</pre></details>
{{if eq .State "pending"}}
<form method="post" action="/approvals/{{.ID}}/answer">
<input type="hidden" name="csrf" value="{{$.CSRF}}">
<label>Note <input type="text" name="note" maxlength="500"></label>
<button type="submit" name="action" value="once" class="once">Approve once</button>
{{if .CanSession}}<button type="submit" name="action" value="session" class="session">Approve for this session</button>{{end}}
<button type="submit" name="action" value="deny" class="deny">Deny</button>
</form>
{{end}}
</div>
{{end}}
{{end}}
</body></html>
`))
