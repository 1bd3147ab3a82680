package serve

import (
	"context"
	"testing"
)

// TestDecisionLogNamesServer: a decision entry carries the MCP server the
// request named, through /v1/decide and through AuthZEN, and none when it
// named none.
func TestDecisionLogNamesServer(t *testing.T) {
	e := newEnv(t, nil)
	for _, req := range []struct{ path, body string }{
		{"/v1/decide", `{"tool":"mcp__db__query","input":{"sql":"select 1"},"server":"db"}`},
		{"/v1/decide", `{"tool":"Read","input":{"file_path":"/work/a"}}`},
		{"/access/v1/evaluation", `{"subject":{"type":"agent","id":"helper"},"action":{"name":"mcp__db__query","properties":{"server":"db2"}},` +
			`"resource":{"type":"query","id":"select 2","properties":{"field":"sql"}}}`},
	} {
		if code, body := e.do("POST", req.path, e.agent, req.body); code != 200 {
			t.Fatalf("%s %s: %d %s", req.path, req.body, code, body)
		}
	}
	e.srv.Close() // flushes the decision log
	entries, err := e.srv.store.Entries(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range entries {
		if en.Event == "decision" {
			got = append(got, en.Tool+"@"+en.Server)
		}
	}
	want := []string{"mcp__db__query@db", "Read@", "mcp__db__query@db2"}
	if len(got) != len(want) {
		t.Fatalf("decision entries %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("decision entries %q, want %q", got, want)
		}
	}
}
