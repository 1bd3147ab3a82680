package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate/store"
)

const testPolicy = `version: 1
default: ask
allow:
  - "Bash(npm run test:*)"
  - "Read"
  - "mcp__db__query"
deny:
  - "Bash(rm:*)"
ask:
  - "Bash(git push:*)"
rewrite:
  - match: "mcp__db__query"
    set: {"/limit": 100}
`

// testEnv is a running test server and its tokens.
type testEnv struct {
	t                      testing.TB
	srv                    *Server
	ts                     *httptest.Server
	dir, policyFile        string
	agent, approver, admin string
	clock                  *fakeClock
}

type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) add(d time.Duration) { c.ns.Add(int64(d)) }

// writeTokens writes a token file with an agent, an approver, an admin and
// a second agent, returning their tokens.
func writeTokens(t testing.TB, dir string) (path, agent, approver, admin string) {
	agent, approver, admin = NewToken(), NewToken(), NewToken()
	path = filepath.Join(dir, "tokens")
	text := "# test tokens\n" + TokenLine(RoleAgent, "ci-agent", agent) + "\n" +
		TokenLine(RoleApprover, "alice", approver) + "\n" + TokenLine(RoleAdmin, "root", admin) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, agent, approver, admin
}

type envOpt func(*Options)

func newEnv(t testing.TB, st store.Store, opts ...envOpt) *testEnv {
	t.Helper()
	dir := t.TempDir()
	e := &testEnv{t: t, dir: dir, policyFile: filepath.Join(dir, "policy.yaml"), clock: &fakeClock{}}
	e.clock.ns.Store(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	if err := os.WriteFile(e.policyFile, []byte(testPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	var tokens string
	tokens, e.agent, e.approver, e.admin = writeTokens(t, dir)
	if st == nil {
		var err error
		st, err = store.OpenSQLite(context.Background(), filepath.Join(dir, "toolgate.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
	}
	o := Options{Policy: PolicySource{Configs: []string{e.policyFile}}, Store: st, TokensFile: tokens,
		ReloadInterval: -1, Cwd: "/work", PublicURL: "http://toolgate.test", Now: e.clock.now}
	for _, f := range opts {
		f(&o)
	}
	srv, err := New(context.Background(), &o)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.ts = httptest.NewServer(srv.Handler())
	t.Cleanup(func() { e.ts.Close(); srv.Close() })
	return e
}

// do sends a request with a bearer token and returns the status and body.
func (e *testEnv) do(method, path, token, body string) (int, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.ts.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// decide posts one request and decodes the answer.
func (e *testEnv) decide(token, body string) (int, response) {
	e.t.Helper()
	code, text := e.do("POST", "/v1/decide", token, body)
	var r response
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		e.t.Fatalf("decide answered %d %q: %v", code, text, err)
	}
	return code, r
}

func TestDecide(t *testing.T) {
	e := newEnv(t, nil)
	big := `{"tool":"Bash","input":{"command":"` + strings.Repeat("a", 9<<20) + `"}}`
	tests := []struct {
		name     string
		token    string
		body     string
		code     int
		decision string
		kind     string
	}{
		{"allow", e.agent, `{"tool":"Bash","input":{"command":"npm run test"}}`, 200, "allow", "rule"},
		{"deny", e.agent, `{"tool":"Bash","input":{"command":"rm -rf /tmp/x"}}`, 200, "deny", "rule"},
		{"ask", e.agent, `{"tool":"Bash","input":{"command":"git push origin main"}}`, 200, "ask", "rule"},
		{"modify", e.agent, `{"tool":"mcp__db__query","input":{"sql":"select 1"}}`, 200, "modify", "rule"},
		{"default ask", e.agent, `{"tool":"Bash","input":{"command":"curl example.com"}}`, 200, "ask", "default"},
		{"admin may decide", e.admin, `{"tool":"Bash","input":{"command":"npm run test"}}`, 200, "allow", "rule"},
		{"not JSON", e.agent, `{"tool":`, 400, "deny", "invalid"},
		{"unknown field", e.agent, `{"tool":"Bash","input":{"command":"npm run test"},"mdoe":"bypassPermissions"}`, 400, "deny", "invalid"},
		{"duplicate key", e.agent, `{"tool":"Bash","input":{"command":"rm -rf /","command":"npm run test"}}`, 400, "deny", "invalid"},
		{"no tool", e.agent, `{"input":{}}`, 400, "deny", "invalid"},
		{"array", e.agent, `[]`, 400, "deny", "invalid"},
		{"bad tool name", e.agent, `{"tool":"Ba sh"}`, 200, "deny", "invalid"},
		{"oversized", e.agent, big, 413, "deny", "invalid"},
		{"no token", "", `{"tool":"Bash","input":{"command":"npm run test"}}`, 401, "deny", "error"},
		{"wrong token", "tg_nope", `{"tool":"Bash","input":{"command":"npm run test"}}`, 401, "deny", "error"},
		{"approver may not decide", e.approver, `{"tool":"Bash","input":{"command":"npm run test"}}`, 403, "deny", "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, r := e.decide(tt.token, tt.body)
			if code != tt.code || r.Decision != tt.decision || string(r.Reason.Kind) != tt.kind {
				t.Fatalf("got %d %s/%s (%s), want %d %s/%s", code, r.Decision, r.Reason.Kind, r.Reason.Message, tt.code, tt.decision, tt.kind)
			}
			if r.Revision != e.srv.Revision() || r.Revision == "" {
				t.Fatalf("revision %q, want %q", r.Revision, e.srv.Revision())
			}
			if tt.decision == "ask" && (r.Approval == nil || r.Approval.ID == "" || r.Prompt == "") {
				t.Fatalf("an ask without its approval record or prompt: %+v", r)
			}
			if tt.decision == "modify" && !strings.Contains(string(r.Input), `"limit":100`) {
				t.Fatalf("modify without the rewritten input: %s", r.Input)
			}
		})
	}
}

func TestBatch(t *testing.T) {
	e := newEnv(t, nil)
	code, body := e.do("POST", "/v1/decide:batch", e.agent,
		`[{"tool":"Bash","input":{"command":"npm run test"}}, {"tool":1}, {"tool":"Bash","input":{"command":"rm x"}}]`)
	var rs []response
	if err := json.Unmarshal([]byte(body), &rs); err != nil || code != 200 {
		t.Fatalf("%d %s: %v", code, body, err)
	}
	got := []string{}
	for _, r := range rs {
		got = append(got, r.Decision+"/"+string(r.Reason.Kind))
	}
	if strings.Join(got, " ") != "allow/rule deny/invalid deny/rule" {
		t.Fatalf("array batch: %v", got)
	}
	code, body = e.do("POST", "/v1/decide:batch", e.agent,
		"{\"tool\":\"Bash\",\"input\":{\"command\":\"npm run test\"}}\n\nnot json\r\n{\"tool\":\"Read\",\"input\":{\"file_path\":\"a.go\"}}\n")
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if code != 200 || len(lines) != 4 {
		t.Fatalf("lines batch: %d %q", code, body)
	}
	want := []string{"allow", "deny", "deny", "allow"}
	for i, l := range lines {
		var r response
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Decision != want[i] {
			t.Fatalf("line %d: %s (%v), want %s", i, l, err, want[i])
		}
	}
	many := strings.Repeat(`{"tool":"Read","input":{"file_path":"a"}}`+"\n", 1001)
	if code, _ := e.do("POST", "/v1/decide:batch", e.agent, many); code != 413 {
		t.Fatalf("an over-long batch: %d", code)
	}
}

func TestPolicyAndReload(t *testing.T) {
	e := newEnv(t, nil)
	code, body := e.do("GET", "/v1/policy", e.approver, "")
	var info PolicyInfo
	if err := json.Unmarshal([]byte(body), &info); err != nil || code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	if info.Revision != e.srv.Revision() || len(info.Files) != 1 || info.Files[0] != e.policyFile || info.Settings.Default != "ask" {
		t.Fatalf("policy info: %+v", info)
	}
	found := false
	for _, l := range info.Layers {
		if l.File == e.policyFile && l.Allow == 3 && l.Deny == 1 && l.Ask == 1 {
			found = true
		}
	}
	if !found {
		t.Fatalf("layers: %+v", info.Layers)
	}
	if code, _ := e.do("GET", "/v1/policy", "", ""); code != 401 {
		t.Fatalf("policy without a token: %d", code)
	}

	rev := e.srv.Revision()
	// A broken file keeps the old policy, reported in /readyz.
	os.WriteFile(e.policyFile, []byte("version: 1\ndeny: \"not a list\"\n"), 0o644)
	if code, _ := e.do("POST", "/v1/reload", e.admin, ""); code != 422 {
		t.Fatalf("reload of a broken file: %d", code)
	}
	if code, _ := e.do("POST", "/v1/reload", e.agent, ""); code != 403 {
		t.Fatalf("reload by an agent: %d", code)
	}
	if e.srv.Revision() != rev {
		t.Fatal("a broken file changed the revision")
	}
	if _, r := e.decide(e.agent, `{"tool":"Bash","input":{"command":"rm -rf x"}}`); r.Decision != "deny" || r.Revision != rev {
		t.Fatalf("after a broken reload: %+v", r)
	}
	code, body = e.do("GET", "/readyz", "", "")
	if code != 200 || !strings.Contains(body, "policy_error") || !strings.Contains(body, rev) {
		t.Fatalf("readyz with a broken file: %d %s", code, body)
	}
	if code, _ := e.do("GET", "/readyz?strict=1", "", ""); code != 503 {
		t.Fatalf("strict readyz with a broken file: %d", code)
	}
	// The watcher picks up a fixed file.
	os.WriteFile(e.policyFile, []byte(strings.Replace(testPolicy, `- "Bash(rm:*)"`, `- "Bash(rm:*)"`+"\n  - \"Bash(curl:*)\"", 1)), 0o644)
	// The first check sees the change and waits for it to settle: a file
	// that is still being written is never loaded half.
	e.srv.checkFiles(context.Background())
	if e.srv.Revision() != rev {
		t.Fatal("a file was reloaded at the check that first saw it change, before it settled")
	}
	e.srv.checkFiles(context.Background())
	if e.srv.Revision() == rev {
		t.Fatal("the fixed file was not reloaded")
	}
	if code, body := e.do("GET", "/readyz", "", ""); code != 200 || strings.Contains(body, "policy_error") {
		t.Fatalf("readyz after the fix: %d %s", code, body)
	}
	if _, r := e.decide(e.agent, `{"tool":"Bash","input":{"command":"curl x"}}`); r.Decision != "deny" || r.Reason.Rule != "Bash(curl:*)" {
		t.Fatalf("new rule not in force: %+v", r)
	}
	if code, _ := e.do("GET", "/healthz", "", ""); code != 200 {
		t.Fatal("healthz")
	}
}

func TestApprovalFlow(t *testing.T) {
	e := newEnv(t, nil)
	push := `{"tool":"Bash","input":{"command":"git push origin main"},"session":"s1"}`
	_, r := e.decide(e.agent, push)
	if r.Decision != "ask" || r.Approval == nil || r.Approval.State != "pending" {
		t.Fatalf("first ask: %+v", r)
	}
	id := r.Approval.ID
	if !strings.HasPrefix(r.Approval.URL, "http://toolgate.test/approvals/") {
		t.Fatalf("approval URL %q", r.Approval.URL)
	}
	// Asking again finds the same record.
	if _, r2 := e.decide(e.agent, push); r2.Approval == nil || r2.Approval.ID != id {
		t.Fatalf("second ask made a new record: %+v", r2.Approval)
	}
	// An agent's token can never approve, nor list.
	if code, _ := e.do("POST", "/v1/approvals/"+id+"/approve", e.agent, ""); code != 403 {
		t.Fatalf("agent approve: %d", code)
	}
	if code, _ := e.do("GET", "/v1/approvals", e.agent, ""); code != 403 {
		t.Fatalf("agent list: %d", code)
	}
	// The agent can read its own request.
	if code, body := e.do("GET", "/v1/approvals/"+id, e.agent, ""); code != 200 || !strings.Contains(body, `"pending"`) {
		t.Fatalf("agent get: %d %s", code, body)
	}
	code, body := e.do("GET", "/v1/approvals", e.approver, "")
	if code != 200 || !strings.Contains(body, id) {
		t.Fatalf("list: %d %s", code, body)
	}
	code, body = e.do("POST", "/v1/approvals/"+id+"/approve", e.approver, `{"note":"ok"}`)
	if code != 200 || !strings.Contains(body, `"approved"`) {
		t.Fatalf("approve: %d %s", code, body)
	}
	if code, _ := e.do("POST", "/v1/approvals/"+id+"/approve", e.approver, ""); code != 409 {
		t.Fatalf("second approve: %d", code)
	}
	// An altered call is not covered: another command, another directory,
	// another session.
	for _, alt := range []string{
		`{"tool":"Bash","input":{"command":"git push origin main --force"},"session":"s1"}`,
		`{"tool":"Bash","input":{"command":"git push origin main"},"session":"s1","cwd":"/elsewhere"}`,
		`{"tool":"Bash","input":{"command":"git push origin main"},"session":"s2"}`,
		`{"tool":"Bash","input":{"command":"git push origin main"},"session":"s1","agent":"helper"}`,
	} {
		if _, r := e.decide(e.agent, alt); r.Decision != "ask" {
			t.Fatalf("altered call %s: %s", alt, r.Decision)
		}
	}
	// The same call, keys in another order, passes exactly once.
	_, r = e.decide(e.agent, `{"session":"s1","input":{"command":"git push origin main"},"tool":"Bash"}`)
	if r.Decision != "allow" || r.Reason.Kind != "approval" || !strings.Contains(r.Reason.Message, "alice") {
		t.Fatalf("approved retry: %+v", r)
	}
	if _, r = e.decide(e.agent, push); r.Decision != "ask" || r.Approval.ID == id {
		t.Fatalf("replayed approval: %+v", r)
	}
	// The answer is in the decision log with the approver.
	e.srv.Close()
	entries, _ := e.srv.store.Entries(context.Background(), 0, 0)
	var answer, used bool
	for _, en := range entries {
		if en.Event == "answer" && en.Approval == id && en.Approver == "alice" && en.Outcome == "allow" {
			answer = true
		}
		if en.Event == "decision" && en.Approval == id && en.Outcome == "allow" && en.Approver == "alice" {
			used = true
		}
	}
	if !answer || !used {
		t.Fatalf("log lacks the answer (%v) or the use (%v): %+v", answer, used, entries)
	}
}

func TestApprovalExpiryAndDeny(t *testing.T) {
	e := newEnv(t, nil, func(o *Options) { o.ApprovalTTL = time.Minute; o.UseWindow = time.Minute })
	push := `{"tool":"Bash","input":{"command":"git push"}}`
	_, r := e.decide(e.agent, push)
	id := r.Approval.ID
	e.clock.add(2 * time.Minute)
	if code, body := e.do("POST", "/v1/approvals/"+id+"/approve", e.approver, ""); code != 409 || !strings.Contains(body, "expired") {
		t.Fatalf("approve after expiry: %d %s", code, body)
	}
	// Approved, then not used in time.
	_, r = e.decide(e.agent, push)
	id2 := r.Approval.ID
	if id2 == id {
		t.Fatal("an expired record was reused")
	}
	e.do("POST", "/v1/approvals/"+id2+"/approve", e.approver, "")
	e.clock.add(2 * time.Minute)
	if _, r = e.decide(e.agent, push); r.Decision != "ask" {
		t.Fatalf("an expired approval allowed: %+v", r)
	}
	// Denied.
	id3 := r.Approval.ID
	if code, _ := e.do("POST", "/v1/approvals/"+id3+"/deny", e.approver, `{"note":"no"}`); code != 200 {
		t.Fatal("deny")
	}
	if _, r = e.decide(e.agent, push); r.Decision != "ask" || r.Approval.ID == id3 {
		t.Fatalf("after a deny: %+v", r)
	}
	e.srv.sweepOnce(context.Background())
	if a, _ := e.srv.store.Approval(context.Background(), id2); a.State != store.Expired {
		t.Fatalf("sweeper left %s", a.State)
	}
	if code, _ := e.do("POST", "/v1/approvals/ap_unknown/approve", e.approver, ""); code != 404 {
		t.Fatal("unknown id")
	}
	if code, _ := e.do("POST", "/v1/approvals/"+id3+"/approve", e.approver, `{"scope":"forever"}`); code != 400 {
		t.Fatal("bad scope")
	}
}

func TestApproveForSession(t *testing.T) {
	e := newEnv(t, nil)
	_, r := e.decide(e.agent, `{"tool":"Bash","input":{"command":"make deploy"},"session":"s9"}`)
	if len(r.Suggestions) == 0 {
		t.Fatalf("no suggestions: %+v", r)
	}
	code, body := e.do("POST", "/v1/approvals/"+r.Approval.ID+"/approve", e.approver, `{"scope":"session"}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	for range 3 { // the session rule holds for every retry in the session, not once
		if _, r := e.decide(e.agent, `{"tool":"Bash","input":{"command":"make deploy"},"session":"s9"}`); r.Decision != "allow" {
			t.Fatalf("session rule not applied: %+v", r)
		}
	}
	if _, r := e.decide(e.agent, `{"tool":"Bash","input":{"command":"make deploy"},"session":"other"}`); r.Decision != "ask" {
		t.Fatalf("a session rule leaked into another session: %+v", r)
	}
	code, body = e.do("GET", "/v1/session-rules?session=s9", e.admin, "")
	if code != 200 || !strings.Contains(body, r.Suggestions[0]) {
		t.Fatalf("session rules: %d %s", code, body)
	}
}

func TestSessionRuleEndpoints(t *testing.T) {
	e := newEnv(t, nil)
	add := `{"session":"s1","effect":"deny","rule":"Bash(npm run test:*)"}`
	if code, _ := e.do("POST", "/v1/session-rules", e.agent, add); code != 403 {
		t.Fatalf("agent adds a rule: %d", code)
	}
	if code, _ := e.do("POST", "/v1/session-rules", e.approver, add); code != 403 {
		t.Fatalf("approver adds a rule: %d", code)
	}
	if code, body := e.do("POST", "/v1/session-rules", e.admin, add); code != 200 {
		t.Fatalf("admin adds a rule: %d %s", code, body)
	}
	call := `{"tool":"Bash","input":{"command":"npm run test"},"session":"s1"}`
	if _, r := e.decide(e.agent, call); r.Decision != "deny" || r.Reason.Kind != "session" {
		t.Fatalf("session deny not applied: %+v", r)
	}
	if _, r := e.decide(e.agent, `{"tool":"Bash","input":{"command":"npm run test"}}`); r.Decision != "allow" {
		t.Fatalf("a session rule applied outside its session: %+v", r)
	}
	for _, bad := range []string{`{"session":"s1","effect":"maybe","rule":"Bash"}`, `{"session":"s1","effect":"allow","rule":"Bash(("}`, `{"x":1}`} {
		if code, _ := e.do("POST", "/v1/session-rules", e.admin, bad); code != 400 {
			t.Fatalf("bad rule %s accepted: %d", bad, code)
		}
	}
	if code, body := e.do("DELETE", "/v1/session-rules", e.admin, add); code != 200 || !strings.Contains(body, "true") {
		t.Fatalf("remove: %d %s", code, body)
	}
	if _, r := e.decide(e.agent, call); r.Decision != "allow" {
		t.Fatalf("removed rule still applies: %+v", r)
	}
}

func TestAuthZEN(t *testing.T) {
	e := newEnv(t, nil)
	tests := []struct {
		body     string
		code     int
		decision bool
		outcome  string
	}{
		{`{"subject":{"type":"agent","id":"builder"},"action":{"name":"Bash"},"resource":{"type":"command","id":"npm run test"}}`, 200, true, "allow"},
		{`{"subject":{"type":"session","id":"s1"},"action":{"name":"Bash"},"resource":{"type":"command","id":"rm -rf /"}}`, 200, false, "deny"},
		{`{"action":{"name":"Read"},"resource":{"type":"path","id":"src/a.go"},"context":{"cwd":"/repo"}}`, 200, true, "allow"},
		{`{"action":{"name":"mcp__db__query"},"resource":{"type":"sql","id":"select 1","properties":{"field":"sql"}}}`, 200, false, "modify"},
		{`{"action":{"name":"Bash"},"resource":{"type":"command","id":"git push"}}`, 200, false, "ask"},
		{`{"action":{"name":"Bash"},"resource":{"type":"thing","id":"x"}}`, 200, false, "deny"},
		{`{"action":{"name":"Bash"},"resource":{"type":"command","id":"ls"},"context":{"cwd":5}}`, 200, false, "deny"},
		{`{"subject":{},"action":{"name":"Bash"},"action":{"name":"Read"}}`, 400, false, ""},
		{`{"action":{"name":"Bash"},"extra":1}`, 400, false, ""},
	}
	for i, tt := range tests {
		code, body := e.do("POST", "/access/v1/evaluation", e.agent, tt.body)
		var r struct {
			Decision bool
			Context  struct{ Toolgate response }
		}
		json.Unmarshal([]byte(body), &r)
		if code != tt.code || r.Decision != tt.decision || (tt.outcome != "" && r.Context.Toolgate.Decision != tt.outcome) {
			t.Errorf("%d: %s → %d %s", i, tt.body, code, body)
		}
	}
	code, body := e.do("POST", "/access/v1/evaluations", e.agent, `{"action":{"name":"Bash"},
		"evaluations":[{"resource":{"type":"command","id":"npm run test"}},{"resource":{"type":"command","id":"rm x"}},{"resource":{"type":"command","id":"npm run test"}}],
		"options":{"evaluations_semantic":"deny_on_first_deny"}}`)
	var rs struct{ Evaluations []azResponse }
	if err := json.Unmarshal([]byte(body), &rs); err != nil || code != 200 || len(rs.Evaluations) != 2 ||
		!rs.Evaluations[0].Decision || rs.Evaluations[1].Decision {
		t.Fatalf("evaluations: %d %s", code, body)
	}
	if code, _ := e.do("POST", "/access/v1/evaluation", e.approver, tests[0].body); code != 403 {
		t.Fatalf("approver evaluates: %d", code)
	}
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, nil)
	e.decide(e.agent, `{"tool":"Bash","input":{"command":"npm run test"}}`)
	e.decide(e.agent, `{"tool":"Bash","input":{"command":"git push"}}`)
	e.decide(e.agent, `{"tool":`)
	_, body := e.do("GET", "/metrics", "", "")
	for _, want := range []string{
		`toolgate_decisions_total{kind="rule",outcome="allow"} 1`,
		`toolgate_decisions_total{kind="rule",outcome="ask"} 1`,
		`toolgate_decisions_total{kind="invalid",outcome="deny"} 1`,
		`toolgate_approvals_created_total 1`,
		`toolgate_decision_duration_seconds_count 2`,
		`toolgate_policy_healthy 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}

func TestWebhook(t *testing.T) {
	got := make(chan []byte, 2)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
	}))
	defer hook.Close()
	for _, slack := range []bool{false, true} {
		e := newEnv(t, nil, func(o *Options) { o.Webhook = Webhook{URL: hook.URL, Slack: slack} })
		ctx, cancel := context.WithCancel(context.Background())
		go e.srv.deliverWebhooks(ctx)
		e.decide(e.agent, `{"tool":"Bash","input":{"command":"git push <@here> \u202e"}}`)
		var b []byte
		select {
		case b = <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("no webhook")
		}
		cancel()
		if slack {
			var m map[string]string
			if json.Unmarshal(b, &m) != nil || !strings.Contains(m["text"], "&lt;@here&gt;") || !strings.Contains(m["text"], `\u202e`) ||
				!strings.Contains(m["text"], "|Answer it>") {
				t.Fatalf("slack body %s", b)
			}
		} else {
			var ev webhookEvent
			if json.Unmarshal(b, &ev) != nil || ev.Type != "approval.requested" || ev.Approval.ID == "" || !strings.HasPrefix(ev.URL, "http://toolgate.test/approvals/ap_") {
				t.Fatalf("json body %s", b)
			}
		}
	}
}

func TestTokens(t *testing.T) {
	good := HashToken("x")
	for _, tt := range []struct{ text, err string }{
		{"agent a " + good, ""},
		{"agent a " + good + "\nadmin a " + HashToken("y"), "second token"},
		{"boss a " + good, "unknown role"},
		{"agent a x", "sha256"},
		{"agent a sha256:abcd", "sha256"},
		{"agent " + good, "want"},
		{"# nothing\n", "no tokens"},
	} {
		_, err := parseTokens("f", []byte(tt.text))
		if (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.err)
		}
	}
}

// TestNewFailsClosed: a broken policy or token file stops the start.
func TestNewFailsClosed(t *testing.T) {
	dir := t.TempDir()
	tokens, _, _, _ := writeTokens(t, dir)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("version: 1\nallow: 3\n"), 0o644)
	st, _ := store.OpenSQLite(context.Background(), filepath.Join(dir, "db"))
	defer st.Close()
	if _, err := New(context.Background(), &Options{Policy: PolicySource{Configs: []string{bad}}, Store: st, TokensFile: tokens}); err == nil {
		t.Fatal("started with a broken policy")
	}
	if _, err := New(context.Background(), &Options{Store: st, TokensFile: filepath.Join(dir, "none")}); err == nil {
		t.Fatal("started without tokens")
	}
}

func TestDigest(t *testing.T) {
	d := func(tool, in, cwd string) string {
		s, err := callDigest(Call{Tool: tool, Input: json.RawMessage(in), Cwd: cwd})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := d("Bash", `{"command":"ls","timeout":1}`, "/w")
	if a != d("Bash", ` { "timeout" : 1, "command":"ls" }`, "/w") {
		t.Fatal("key order or spacing changed the digest")
	}
	for _, other := range []string{d("Bash", `{"command":"ls","timeout":2}`, "/w"), d("Bash", `{"command":"ls","timeout":1}`, "/x"),
		d("bash", `{"command":"ls","timeout":1}`, "/w"), d("Bash", `{"command":"ls "}`, "/w")} {
		if other == a {
			t.Fatal("different calls share a digest")
		}
	}
	if d("Bash", ``, "/w") != d("Bash", `{}`, "/w") {
		t.Fatal("absent input is {}")
	}
	if _, err := callDigest(Call{Tool: "Bash", Input: json.RawMessage(`[1]`)}); err == nil {
		t.Fatal("a non-object input has a digest")
	}
}

func TestGracefulShutdown(t *testing.T) {
	e := newEnv(t, nil)
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, e.srv, &ServeOptions{Grace: 5 * time.Second}) }()
	url := "http://" + ln.Addr().String()
	// A slow request in flight when shutdown starts still gets its answer.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", url+"/v1/decide", pr)
	req.Header.Set("Authorization", "Bearer "+e.agent)
	res := make(chan string, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			res <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		res <- string(b)
	}()
	pw.Write([]byte(`{"tool":"Bash",`))
	time.Sleep(100 * time.Millisecond)
	cancel()
	time.Sleep(100 * time.Millisecond)
	pw.Write([]byte(`"input":{"command":"npm run test"}}`))
	pw.Close()
	if got := <-res; !strings.Contains(got, `"decision":"allow"`) {
		t.Fatalf("in-flight request: %s", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := http.Post(url+"/healthz", "", bytes.NewReader(nil)); err == nil {
		t.Fatal("still serving after shutdown")
	}
	_ = fmt.Sprint()
}

func netListen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
