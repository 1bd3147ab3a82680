package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing/fstest"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/gate"
)

// ExampleNew puts the real engine in front of an agent loop's tools, the
// one way in: config.Build loads and compiles the policy files (checking
// their inline examples), an Engine holds the session rules, and the gate
// decides, asks and runs. A person's "always allow" becomes a session rule,
// so the same call is not asked about twice.
func ExampleNew() {
	fsys := fstest.MapFS{"repo/.toolgate/policy.yaml": {Data: []byte(`version: 1
deny: ["Bash(rm:*)"]
allow: ["Bash(go test:*)"]
examples:
  - {tool: Bash, input: {command: "rm -rf /repo/build"}, expect: deny}
`)}}
	cfg, _, err := config.Build(&config.Options{FS: fsys, Cwd: "/repo", Explicit: []string{"/repo/.toolgate/policy.yaml"}, Builtin: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	engine := toolgate.NewEngine(cfg)
	approver := gate.ApproverFunc(func(_ context.Context, req gate.ApprovalRequest) (gate.Approval, error) {
		fmt.Printf("  [asked] %s -> always\n", req.Prompt)
		return gate.Approval{Allow: true, AlwaysAllow: true}, nil
	})
	g := gate.New(engine, tools(), &gate.Options{Approver: approver, SessionRules: engine, Visibility: engine})

	for _, cmd := range []string{"go test ./...", "rm -rf build", "make lint", "make lint"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		res, err := g.Call(context.Background(), &gate.ToolCall{Tool: "Bash", Input: in, Context: gate.CallContext{Cwd: "/repo"}})
		if err != nil {
			fmt.Printf("%-14s %v\n", cmd, err)
			continue
		}
		fmt.Printf("%-14s %s\n", cmd, res.Content)
	}
	fmt.Println("session allow rules:", engine.SessionRules().Allow)
	// Output:
	// go test ./...  Bash ran with {"command":"go test ./..."}
	// rm -rf build   permission denied for tool "Bash": a rule denies this call on "rm -rf build" (deny rule "Bash(rm:*)" from project /repo/.toolgate/policy.yaml:2:9)
	//   [asked] Bash wants to run: make lint -> always
	// make lint      Bash ran with {"command":"make lint"}
	// make lint      Bash ran with {"command":"make lint"}
	// session allow rules: [Bash(make lint)]
}
