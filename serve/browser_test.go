package serve

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/toolgate/toolgate/store"
)

const chromiumPath = "/usr/bin/chromium"

// TestBrowserApprovals drives the approvals page in a real headless
// Chromium: log in with an approver's token, see a hostile command shown
// as inert, escaped text, approve one ask and deny another. Without
// Chromium it skips, unless CI is set (.ci/chromium-install installs it).
func TestBrowserApprovals(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is missing (run .ci/chromium-install)", chromiumPath)
		}
		t.Skipf("%s is missing: skipping the browser test", chromiumPath)
	}
	e := newEnv(t, nil, func(o *Options) { o.PublicURL = "" })
	_, first := e.decide(e.agent, hostile)
	_, second := e.decide(e.agent, `{"tool":"Bash","input":{"command":"make deploy"},"session":"w2"}`)
	if first.Approval == nil || second.Approval == nil {
		t.Fatal("no approvals to answer")
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.Flag("headless", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	// submit clicks a button that posts a form and waits until the page
	// the answer redirects to has loaded. Waiting for an element instead
	// would find it on the page still shown: after the first answer, that
	// page has a #notice too, and under load the test then read the old
	// notice, or read it as the page went away.
	submit := func(sel string) {
		t.Helper()
		resp, err := chromedp.RunResponse(ctx, chromedp.Click(css(sel)))
		if err != nil {
			t.Fatalf("submitting with %s: %v", sel, err)
		}
		if resp.Status != 200 || !strings.HasPrefix(resp.URL, e.ts.URL+"/approvals") {
			t.Fatalf("submitting with %s: %d from %s", sel, resp.Status, resp.URL)
		}
	}
	card := "#" + first.Approval.ID
	if err := chromedp.Do(ctx,
		chromedp.Navigate(e.ts.URL+"/approvals"),
		chromedp.WaitVisible(css("#token")),
		chromedp.SendKeys(css("#token"), e.approver),
	); err != nil {
		t.Fatal(err)
	}
	submit("#login-submit")
	if who := text("#who"); who != "alice" {
		t.Fatalf("logged in as %q", who)
	}
	scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("script").length`))
	if err != nil || scripts != 0 {
		t.Fatalf("the page holds %d script elements (%v)", scripts, err)
	}
	command, prompt := text(card+" .command"), text(card+" .prompt")
	if !strings.Contains(command, "<script>alert(1)</script>") || !strings.Contains(command, `\u202egnp.exe`) ||
		!strings.Contains(command, `\u200b`) || strings.ContainsRune(command, '\u202e') {
		t.Fatalf("command shown as %q", command)
	}
	if strings.ContainsRune(prompt, '\u202e') {
		t.Fatalf("prompt shows a raw bidi override: %q", prompt)
	}

	submit(card + " button.once")
	if notice := text("#notice"); !strings.Contains(notice, first.Approval.ID+" approved (once)") {
		t.Fatalf("notice %q", notice)
	}
	submit("#" + second.Approval.ID + " button.deny")
	if notice := text("#notice"); !strings.Contains(notice, second.Approval.ID+" denied") {
		t.Fatalf("notice %q", notice)
	}
	for id, want := range map[string]store.State{first.Approval.ID: store.Approved, second.Approval.ID: store.Denied} {
		a, err := e.srv.store.Approval(context.Background(), id)
		if err != nil || a.State != want || a.Approver != "alice" {
			t.Fatalf("%s: %s by %q (%v), want %s by alice", id, a.State, a.Approver, err, want)
		}
	}
	// The approved call now passes, once.
	if _, d := e.decide(e.agent, hostile); d.Decision != "allow" {
		t.Fatalf("after the browser approved: %+v", d)
	}
}
