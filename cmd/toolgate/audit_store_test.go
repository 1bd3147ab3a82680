package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/store"
)

// TestAuditStore: toolgate audit --store reads the decision log of a
// toolgate serve store, and --server finds the entries about an approval
// (the ask, the answer, the use, the expiry) by its call's MCP server.
func TestAuditStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "toolgate.db")
	st, err := store.OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	entries := []store.Entry{
		{Time: t0, Event: "decision", Caller: "ci", Tool: "fetch_row", Server: "db", Outcome: "ask", Approval: "ap_1"},
		{Time: t0.Add(time.Minute), Event: "answer", Caller: "ci", Tool: "fetch_row", Server: "db", Outcome: "allow", Approval: "ap_1", Approver: "alice"},
		{Time: t0.Add(2 * time.Minute), Event: "decision", Caller: "ci", Tool: "fetch_row", Server: "db", Outcome: "allow", Approval: "ap_1", Approver: "alice"},
		{Time: t0.Add(3 * time.Minute), Event: "expire", Caller: "ci", Tool: "put_row", Server: "db", Outcome: "deny", Approval: "ap_2"},
		{Time: t0.Add(4 * time.Minute), Event: "decision", Caller: "ci", Tool: "Bash", Outcome: "allow", Rule: "Bash(make)"},
		{Time: t0.Add(5 * time.Minute), Event: "decision", Caller: "ci", Tool: "fetch_row", Server: "fs\u202e", Outcome: "deny"},
	}
	if err := st.Log(context.Background(), entries); err != nil {
		t.Fatal(err)
	}
	st.Close()

	audit := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"audit"}, args...), strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	events := func(out string) []string {
		var got []string
		for line := range strings.Lines(out) {
			var e store.Entry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%v: %q", err, line)
			}
			got = append(got, e.Event+":"+e.Approval+":"+e.Outcome)
		}
		return got
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", "db"}, "[decision:ap_1:ask answer:ap_1:allow decision:ap_1:allow expire:ap_2:deny]"},
		{[]string{"--server", "db", "--event", "answer"}, "[answer:ap_1:allow]"},
		{[]string{"--approval", "ap_1", "--newest", "--limit", "1"}, "[decision:ap_1:allow]"},
		{[]string{"--outcome", "deny", "--server", "db"}, "[expire:ap_2:deny]"},
		{[]string{"--tool", "Bash"}, "[decision::allow]"},
		{[]string{"--since", "2026-05-01T12:03:00Z", "--until", "2026-05-01T12:05:00Z"}, "[expire:ap_2:deny decision::allow]"},
	} {
		code, out, errOut := audit(append([]string{"--store", path, "--json"}, tt.args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errOut)
		}
		if got := strings.Join(events(out), " "); "["+got+"]" != tt.want {
			t.Errorf("%v: [%s], want %s", tt.args, got, tt.want)
		}
	}

	// The table names the server and shows hidden characters as escapes.
	code, out, errOut := audit("--store", path, "--tool", "fetch_row")
	if code != exitOK || !strings.Contains(out, "SERVER") || !strings.Contains(out, `fs\u202e`) || strings.Contains(out, "\u202e") ||
		!strings.Contains(out, "alice") {
		t.Fatalf("table: exit %d\n%s%s", code, out, errOut)
	}

	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--store", filepath.Join(dir, "missing.db")}, exitFailure, "no toolgate serve store"},
		{[]string{"--store", path, "--db", path}, exitUsage, "give one"},
		{[]string{"--event", "answer"}, exitUsage, "need --store"},
		{[]string{"--store", path, "--outcome", "maybe"}, exitUsage, "--outcome"},
	} {
		code, _, errOut := audit(tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.err) {
			t.Errorf("%v: exit %d %q, want %d %q", tt.args, code, errOut, tt.code, tt.err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "missing.db*")); len(m) != 0 {
		t.Errorf("reading a missing store created %v", m)
	}
}
