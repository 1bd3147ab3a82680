package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
)

const visibilityPolicy = `version: 1
default: deny
allow: ["mcp__fs__read_file"]
ask: ["mcp__fs__write_file"]
deny: ["mcp__fs__delete_file", "mcp__fs__read_file(path:/etc/*)"]
`

func TestVisibility(t *testing.T) {
	e := newEnv(t, nil)
	if err := os.WriteFile(e.policyFile, []byte(visibilityPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	body := `{"tools":["mcp__fs__read_file","mcp__fs__write_file","mcp__fs__delete_file","mcp__fs__other"]}`
	tests := []struct {
		name, token, body string
		code              int
		want              string // in the body
	}{
		{"agent", e.agent, body, 200, `"tools":{"mcp__fs__delete_file":false,"mcp__fs__other":false,"mcp__fs__read_file":true,"mcp__fs__write_file":true}`},
		{"admin", e.admin, body, 200, `"mcp__fs__read_file":true`},
		{"approver", e.approver, body, 403, "may not do this"},
		{"no token", "", body, 401, "bearer token"},
		{"malformed", e.agent, `{"tools":"mcp__fs__read_file"}`, 400, "malformed"},
		{"unknown key", e.agent, `{"tools":[],"sessions":"s"}`, 400, "malformed"},
		{"too many", e.agent, `{"tools":[` + strings.Repeat(`"a",`, maxVisibilityTools) + `"a"]}`, 413, "over 10000 tools"},
		{"none", e.agent, `{"tools":[]}`, 200, `"tools":{}`},
	}
	for _, tt := range tests {
		code, text := e.do("POST", "/v1/visibility", tt.token, tt.body)
		if code != tt.code || !strings.Contains(text, tt.want) {
			t.Errorf("%s: %d %s\nwant %d with %s", tt.name, code, text, tt.code, tt.want)
		}
		if code == 200 && !strings.Contains(text, `"revision":"`+e.srv.Revision()+`"`) {
			t.Errorf("%s: no revision in %s", tt.name, text)
		}
	}

	c := &Client{URL: e.ts.URL, Token: e.agent}
	ans, err := c.ExposedTools(context.Background(), []string{"mcp__fs__read_file", "mcp__fs__delete_file"})
	if err != nil || ans.Revision != e.srv.Revision() || !ans.Tools["mcp__fs__read_file"] || ans.Tools["mcp__fs__delete_file"] || len(ans.Tools) != 2 {
		t.Errorf("ExposedTools = %+v, %v", ans, err)
	}
	if _, err := (&Client{URL: e.ts.URL, Token: e.approver}).ExposedTools(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("ExposedTools with an approver's token: %v", err)
	}

	// A session's own rules count for that session only: an allow shows a
	// tool the policy hides, a deny of the whole tool hides one it shows.
	for _, rl := range []string{
		`{"session":"s1","effect":"allow","rule":"mcp__fs__other"}`,
		`{"session":"s1","effect":"deny","rule":"mcp__fs__write_file"}`,
	} {
		if code, text := e.do("POST", "/v1/session-rules", e.admin, rl); code != 200 {
			t.Fatalf("adding %s: %d %s", rl, code, text)
		}
	}
	tools := []string{"mcp__fs__other", "mcp__fs__write_file", "mcp__fs__read_file"}
	for session, want := range map[string]map[string]bool{
		"s1": {"mcp__fs__other": true, "mcp__fs__write_file": false, "mcp__fs__read_file": true},
		"s2": {"mcp__fs__other": false, "mcp__fs__write_file": true, "mcp__fs__read_file": true},
		"":   {"mcp__fs__other": false, "mcp__fs__write_file": true, "mcp__fs__read_file": true},
	} {
		ans, err := c.SessionExposedTools(context.Background(), session, tools)
		if err != nil || ans.Revision != e.srv.Revision() || !maps.Equal(ans.Tools, want) {
			t.Errorf("SessionExposedTools(%q) = %+v, %v\nwant %v", session, ans, err, want)
		}
		// The session's decisions agree with what it is shown.
		d, _, err := c.DecideContext(context.Background(), Call{Tool: "mcp__fs__other", Session: session, Cwd: "/work"})
		if err != nil || (d.Outcome == toolgate.Allow) != want["mcp__fs__other"] {
			t.Errorf("session %q: mcp__fs__other decided %v, %v", session, d.Outcome, err)
		}
	}
	if base, err := c.ExposedTools(context.Background(), tools); err != nil || base.Tools["mcp__fs__other"] {
		t.Errorf("ExposedTools after s1's rules = %+v, %v", base, err)
	}

	info, err := c.Policy(context.Background())
	if err != nil || info.Revision != e.srv.Revision() {
		t.Errorf("Policy = %+v, %v", info, err)
	}
}

// TestDecideWait: an ask is waited on until a person answers it; approved
// it is allowed once, denied it is a deny naming the approver, unanswered
// it stays an ask with its approval.
func TestDecideWait(t *testing.T) {
	e := newEnv(t, nil)
	agent := &Client{URL: e.ts.URL, Token: e.agent}
	approver := &Client{URL: e.ts.URL, Token: e.approver}
	ctx := context.Background()
	n := 0
	push := func() Call {
		n++
		return Call{Tool: "Bash", Input: json.RawMessage(fmt.Sprintf(`{"command":"git push origin b%d"}`, n)), Cwd: "/work", Session: "w1"}
	}
	// answer answers the one pending approval as soon as it appears.
	answer := func(approve bool) {
		for range 200 {
			list, err := approver.Approvals(ctx, "", 10)
			if err == nil && len(list) > 0 {
				if approve {
					approver.Approve(ctx, list[0].ID, "once", "")
				} else {
					approver.Deny(ctx, list[0].ID, "not today")
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// Not an ask: no waiting.
	d, _, err := agent.DecideWait(ctx, Call{Tool: "Bash", Input: json.RawMessage(`{"command":"rm -rf x"}`), Cwd: "/work"}, time.Minute)
	if err != nil || d.Outcome != toolgate.Deny {
		t.Fatalf("deny: %v %v", d, err)
	}

	// Without a wait the ask stands with its approval.
	d, r, err := agent.DecideWait(ctx, push(), 0)
	if err != nil || d.Outcome != toolgate.Ask || r.Approval == nil || r.Approval.State != "pending" {
		t.Fatalf("no wait: %v %+v %v", d, r, err)
	}
	approver.Deny(ctx, r.Approval.ID, "")

	// Approved while waiting: allowed, with the approver in the reasons.
	call := push()
	go answer(true)
	d, r, err = agent.DecideWait(ctx, call, 20*time.Second)
	if err != nil || d.Outcome != toolgate.Allow || !strings.Contains(d.Reason().Message, "approved by alice") || r.Revision != e.srv.Revision() {
		t.Fatalf("approved: %v %+v %v", d, r, err)
	}
	// Once: the same call asks again.
	if d, _, _ := agent.DecideWait(ctx, call, 0); d.Outcome != toolgate.Ask {
		t.Fatalf("after the approval was used: %v", d)
	}
	if list, _ := approver.Approvals(ctx, "", 10); len(list) == 1 {
		approver.Deny(ctx, list[0].ID, "")
	}

	// Denied while waiting: a deny with the approver and the note, then the
	// ask's reasons.
	go answer(false)
	d, r, err = agent.DecideWait(ctx, push(), 20*time.Second)
	if err != nil || d.Outcome != toolgate.Deny || d.Reason().Message != fmt.Sprintf("alice denied the call (approval %s): not today", r.Approval.ID) ||
		len(d.Reasons) < 2 || d.Reasons[1].Rule != "Bash(git push:*)" || r.Approval.State != "denied" {
		t.Fatalf("denied: %v %+v %v", d, r, err)
	}

	// Unanswered within the wait: the ask stands.
	start := time.Now()
	d, r, err = agent.DecideWait(ctx, push(), 300*time.Millisecond)
	if err != nil || d.Outcome != toolgate.Ask || r.Approval == nil || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("unanswered: %v %+v %v", d, r, err)
	}

	// An unreachable service is an error, never a decision.
	e.ts.Close()
	if d, _, err := agent.DecideWait(ctx, push(), time.Second); err == nil || d.Outcome.Effective() == toolgate.Allow {
		t.Fatalf("unreachable: %v %v", d, err)
	}
}
