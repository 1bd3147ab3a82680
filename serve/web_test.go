package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/store"
)

// hostile is a command that tries every way of looking like something
// else on a page: markup, a right-to-left override, a zero-width space and
// an escape sequence (in the session: a command may not hold one).
const hostile = `{"tool":"Bash","input":{"command":"echo <script>alert(1)</script> \"x\" ' & \u202egnp.exe \u200b"},"session":"w1\u001b[2J"}`

// pageClient is a browser-like client with a cookie jar that does not
// follow redirects.
func pageClient(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, u string) (int, string, http.Header) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func postForm(t *testing.T, c *http.Client, u string, v url.Values, origin string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

func TestApprovalsPage(t *testing.T) {
	e := newEnv(t, nil)
	_, d := e.decide(e.agent, hostile)
	if d.Approval == nil {
		t.Fatalf("no approval: %+v", d)
	}
	id := d.Approval.ID
	c := pageClient(t)
	code, body, h := get(t, c, e.ts.URL+"/approvals")
	if code != 200 || !strings.Contains(body, `id="login"`) || strings.Contains(body, id) {
		t.Fatalf("logged out: %d %s", code, body)
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") {
		t.Fatalf("CSP %q", csp)
	}
	// An agent's token does not log in.
	if code, _ := postForm(t, c, e.ts.URL+"/approvals/login", url.Values{"token": {e.agent}}, ""); code != 401 {
		t.Fatalf("agent login: %d", code)
	}
	// A login from another site is refused.
	if code, _ := postForm(t, c, e.ts.URL+"/approvals/login", url.Values{"token": {e.approver}}, "https://evil.example"); code != 403 {
		t.Fatalf("cross-site login: %d", code)
	}
	if code, _ := postForm(t, c, e.ts.URL+"/approvals/login", url.Values{"token": {e.approver}}, e.ts.URL); code != 303 {
		t.Fatalf("login: %d", code)
	}
	code, body, _ = get(t, c, e.ts.URL+"/approvals")
	if code != 200 || !strings.Contains(body, id) || !strings.Contains(body, `id="who">alice<`) {
		t.Fatalf("list: %d %s", code, body)
	}
	// Everything is escaped; invisible characters are shown as escapes.
	for _, bad := range []string{"<script>", "\u202e", "\u200b", "\x1b"} {
		if strings.Contains(body, bad) {
			t.Errorf("the page shows %q raw", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\u202egnp.exe`, `\u200b`, `\u001b[2J`, "&amp;", "&#34;x&#34;"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	m := csrfRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no CSRF token in the form")
	}
	answer := e.ts.URL + "/approvals/" + id + "/answer"
	// Without the CSRF token, with a wrong one, or from another site: refused.
	for _, tc := range []struct {
		v      url.Values
		origin string
	}{
		{url.Values{"action": {"once"}}, ""},
		{url.Values{"action": {"once"}, "csrf": {strings.Repeat("0", 64)}}, ""},
		{url.Values{"action": {"once"}, "csrf": {m[1]}}, "https://evil.example"},
	} {
		if code, _ := postForm(t, c, answer, tc.v, tc.origin); code != 403 {
			t.Fatalf("forged answer %v from %q: %d", tc.v, tc.origin, code)
		}
	}
	req, _ := http.NewRequest("POST", answer, strings.NewReader(url.Values{"action": {"once"}, "csrf": {m[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, err := c.Do(req); err != nil || resp.StatusCode != 403 {
		t.Fatalf("a cross-site form (Sec-Fetch-Site) was not refused: %v %v", resp.StatusCode, err)
	}
	if a, _ := e.srv.store.Approval(context.Background(), id); a.State != store.Pending {
		t.Fatalf("a forged form answered: %s", a.State)
	}
	// Logged out, the form does nothing.
	if code, _ := postForm(t, pageClient(t), answer, url.Values{"action": {"once"}, "csrf": {m[1]}}, ""); code != 401 {
		t.Fatalf("answer without login: %d", code)
	}
	if code, _ := postForm(t, c, answer, url.Values{"action": {"once"}, "csrf": {m[1]}, "note": {"ok"}}, e.ts.URL); code != 303 {
		t.Fatalf("answer: %d", code)
	}
	a, _ := e.srv.store.Approval(context.Background(), id)
	if a.State != store.Approved || a.Approver != "alice" || a.Note != "ok" {
		t.Fatalf("after the answer: %+v", a)
	}
	code, body, _ = get(t, c, e.ts.URL+"/approvals/"+id)
	if code != 200 || !strings.Contains(body, "approved by alice") || strings.Contains(body, `name="action"`) {
		t.Fatalf("detail page: %d %s", code, body)
	}
}
