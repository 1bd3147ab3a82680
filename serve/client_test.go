package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
)

// The client is a toolgate.Checker.
var _ toolgate.Checker = (*Client)(nil)

func TestClient(t *testing.T) {
	e := newEnv(t, nil)
	agent := &Client{URL: e.ts.URL, Token: e.agent}
	call := func(cmd string) Call {
		return Call{Tool: "Bash", Input: json.RawMessage(`{"command":` + jsonString(cmd) + `}`), Cwd: "/work", Session: "c1"}
	}
	if d := agent.Decide(call("npm run test")); d.Outcome != toolgate.Allow {
		t.Fatalf("allow: %v", d)
	}
	if d := agent.Decide(call("rm -rf x")); d.Outcome != toolgate.Deny || d.Reason().Rule != "Bash(rm:*)" {
		t.Fatalf("deny: %v", d)
	}
	d, remote, err := agent.DecideContext(context.Background(), call("git push"))
	if err != nil || d.Outcome != toolgate.Ask || remote.Approval == nil || remote.Revision != e.srv.Revision() {
		t.Fatalf("ask: %v %+v %v", d, remote, err)
	}
	approver := &Client{URL: e.ts.URL, Token: e.approver}
	if _, err := agent.Approve(context.Background(), remote.Approval.ID, "once", ""); err == nil || !strings.Contains(err.Error(), "403") {
		t.Fatalf("agent approved: %v", err)
	}
	// The agent waits for the answer while the approver answers.
	go func() {
		time.Sleep(100 * time.Millisecond)
		approver.Approve(context.Background(), remote.Approval.ID, "once", "")
	}()
	a, err := agent.Approval(context.Background(), remote.Approval.ID, 10*time.Second)
	if err != nil || a.State != "approved" {
		t.Fatalf("wait: %+v %v", a, err)
	}
	if d := agent.Decide(call("git push")); d.Outcome != toolgate.Allow {
		t.Fatalf("approved retry: %v", d)
	}
	list, err := approver.Approvals(context.Background(), "all", 10)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %d %v", len(list), err)
	}
}

// TestClientFailsClosed: an unreachable, refusing or misbehaving server is
// a deny naming the problem, never an allow.
func TestClientFailsClosed(t *testing.T) {
	call := Call{Tool: "Bash", Input: json.RawMessage(`{"command":"ls"}`), Cwd: "/w"}
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	liar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(500)
		w.Write([]byte(`{"decision":"allow","reason":{"kind":"rule"},"reasons":[]}`))
	}))
	defer liar.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>")) }))
	defer garbage.Close()
	odd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"decision":"perhaps","reasons":[]}`))
	}))
	defer odd.Close()
	for name, url := range map[string]string{"unreachable": dead.URL, "allow with 500": liar.URL, "not JSON": garbage.URL, "unknown decision": odd.URL} {
		d := (&Client{URL: url, Token: "x", Timeout: 2 * time.Second}).Decide(call)
		if d.Outcome != toolgate.Deny || d.Reason().Kind != toolgate.KindError || !strings.Contains(d.Reason().Message, "toolgate server cannot decide") {
			t.Errorf("%s: %v", name, d)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
