package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/gate"
)

// TestWithEngine runs the gate on the real engine: a compiled policy, an
// approver that says "always allow", and the session rule it adds.
func TestWithEngine(t *testing.T) {
	def := toolgate.Ask
	l := toolgate.Layer{Source: toolgate.SourceProject, Root: "/repo", Default: &def,
		Deny: []toolgate.RuleSpec{{Text: "Bash(rm:*)"}}}
	cfg, err := toolgate.Compile([]toolgate.Layer{l}, nil)
	if err != nil {
		t.Fatal(err)
	}
	eng := toolgate.NewEngine(cfg)
	asked := 0
	approver := gate.ApproverFunc(func(_ context.Context, req gate.ApprovalRequest) (gate.Approval, error) {
		asked++
		return gate.Approval{Allow: true, AlwaysAllow: true}, nil
	})
	g := gate.New(eng, tools(), &gate.Options{Approver: approver, SessionRules: eng})
	h := g.Handler()
	call := func(cmd string) (gate.Result, error) {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return h.Call(context.Background(), &gate.ToolCall{Tool: "Bash", Input: in, Context: gate.CallContext{Cwd: "/repo"}})
	}
	if _, err := call("rm -rf build"); !errors.As(err, new(*gate.PermissionError)) {
		t.Fatalf("rm: got %v, want a permission error", err)
	}
	if _, err := call("make all"); err != nil {
		t.Fatalf("make (approved): %v", err)
	}
	if asked != 1 {
		t.Fatalf("asked %d times, want 1", asked)
	}
	if got := eng.SessionRules().Allow; len(got) != 1 || got[0] != "Bash(make all)" {
		t.Fatalf("always allow added %v, want [Bash(make all)]", got)
	}
	if _, err := call("make all"); err != nil || asked != 1 {
		t.Fatalf("second make: err %v, asked %d; the session rule must allow it without asking", err, asked)
	}
	if _, err := call("make all && rm x"); !errors.As(err, new(*gate.PermissionError)) {
		t.Fatalf("compound with rm: got %v, want a permission error", err)
	}
}
