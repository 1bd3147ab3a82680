package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/gate"
)

// fakePolicy stands in for a compiled toolgate policy: it allows reads,
// denies "rm", asks about "git push", and rewrites shell calls to carry a
// timeout.
type fakePolicy struct{}

func (fakePolicy) Decide(c toolgate.Call) toolgate.Decision {
	var in struct {
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	_ = json.Unmarshal(c.Input, &in)
	switch {
	case c.Tool == "Read":
		return toolgate.Decision{Outcome: toolgate.Allow, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Rule: "Read", Effect: "allow"}}}
	case strings.HasPrefix(in.Command, "rm "):
		return toolgate.Decision{Outcome: toolgate.Deny, Reasons: []toolgate.Reason{{
			Kind: toolgate.KindRule, Rule: "Bash(rm *)", Effect: "deny", Source: "project",
			File: "/repo/.toolgate/policy.yaml", Line: 4, Column: 9, Message: "removing files is not allowed"}}}
	case in.Timeout == 0:
		b, _ := json.Marshal(map[string]any{"command": in.Command, "timeout": 60})
		return toolgate.Decision{Outcome: toolgate.Modify, Input: b, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Rule: "Bash", Effect: "rewrite"}}}
	case strings.HasPrefix(in.Command, "git push"):
		return toolgate.Decision{Outcome: toolgate.Ask, Prompt: "Run `" + in.Command + "`?", Suggestions: []string{"Bash(git push origin main)"},
			Reasons: []toolgate.Reason{{Kind: toolgate.KindRule, Rule: "Bash(git push *)", Effect: "ask"}}}
	}
	return toolgate.Decision{Outcome: toolgate.Allow, Reasons: []toolgate.Reason{{Kind: toolgate.KindDefault}}}
}

func tools() *gate.Registry {
	run := func(name string) gate.ToolFunc {
		return func(_ context.Context, in json.RawMessage, _ *gate.CallContext) (gate.Result, error) {
			return gate.Result{Content: name + " ran with " + string(in)}, nil
		}
	}
	reg, err := gate.NewRegistry(
		gate.Tool{Name: "Read", Description: "Read a file", Func: run("Read"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)},
		gate.Tool{Name: "Bash", Description: "Run a shell command", Func: run("Bash"),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"integer"}},"required":["command"],"additionalProperties":false}`)},
		gate.Tool{Name: "Edit", Description: "Edit a file", Func: run("Edit")},
	)
	if err != nil {
		panic(err)
	}
	return reg
}

// Example shows a complete, small agent loop: a fake model proposes tool
// calls, the gate decides, an approver answers, and every result or
// permission error goes back to the model.
func Example() {
	// The model's proposals, as an LLM would return them.
	proposals := []gate.ToolCall{
		{ID: "1", Tool: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`)},
		{ID: "2", Tool: "Bash", Input: json.RawMessage(`{"command":"rm -rf build"}`)},
		{ID: "3", Tool: "Bash", Input: json.RawMessage(`{"command":"go test ./..."}`)},
		{ID: "4", Tool: "Bash", Input: json.RawMessage(`{"command":"git push origin main","timeout":30}`)},
		{ID: "5", Tool: "Deploy", Input: json.RawMessage(`{}`)},
	}

	// The person at the terminal approves everything they are asked.
	approver := gate.ApproverFunc(func(_ context.Context, req gate.ApprovalRequest) (gate.Approval, error) {
		fmt.Printf("  [asked] %s -> yes\n", req.Prompt)
		return gate.Approval{Allow: true}, nil
	})
	g := gate.New(fakePolicy{}, tools(), &gate.Options{Approver: approver})
	h := g.Handler()

	ctx := context.Background()
	for _, call := range proposals {
		call.Context = gate.CallContext{Cwd: "/repo", Session: "demo"}
		res, err := h.Call(ctx, &call)
		var pe *gate.PermissionError
		var nf *gate.NotFoundError
		switch {
		case errors.As(err, &pe):
			// The model is told why, and can try something else.
			fmt.Printf("%s: tool error to model: %v\n", call.ID, err)
		case errors.As(err, &nf):
			fmt.Printf("%s: %v\n", call.ID, err)
		case err != nil:
			fmt.Printf("%s: failed: %v\n", call.ID, err)
		default:
			fmt.Printf("%s: %s\n", call.ID, res.Content)
		}
	}

	// The same call in a headless run: nobody can be asked, so it is denied.
	headless := proposals[3]
	headless.Context.NonInteractive = true
	_, err := h.Call(ctx, &headless)
	fmt.Println("headless:", err)

	// Output:
	// 1: Read ran with {"file_path":"main.go"}
	// 2: tool error to model: permission denied for tool "Bash": removing files is not allowed (deny rule "Bash(rm *)" from project /repo/.toolgate/policy.yaml:4:9)
	// 3: Bash ran with {"command":"go test ./...","timeout":60}
	//   [asked] Run `git push origin main`? -> yes
	// 4: Bash ran with {"command":"git push origin main","timeout":30}
	// 5: tool "Deploy" not found
	// headless: permission denied for tool "Bash": approval required, but nobody can be asked in a non-interactive context
}

// ExampleGate_SubAgent shows delegation: a "reviewer" sub-agent is checked
// against its own policy and its parent's (the stricter wins), and is shown
// only the tools it may use.
func ExampleGate_SubAgent() {
	parent := gate.New(fakePolicy{}, tools(), nil)

	// The reviewer's own policy denies edits; its visibility hides the shell.
	reviewerPolicy := checkerFunc(func(c toolgate.Call) toolgate.Decision {
		if c.Tool == "Edit" {
			return toolgate.Denial(toolgate.KindRule, "reviewers do not edit")
		}
		return toolgate.Decision{Outcome: toolgate.Allow, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule}}}
	})
	reviewer := parent.SubAgent(gate.SubAgent{
		Name:       "reviewer",
		Policy:     reviewerPolicy,
		Visibility: gate.VisibilityFuncs{Expose: func(tool string) bool { return tool != "Bash" }},
	})

	for _, t := range reviewer.Tools() {
		fmt.Println("reviewer sees:", t.Name)
	}
	ctx := context.Background()
	for _, call := range []gate.ToolCall{
		{Tool: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`)},
		{Tool: "Edit", Input: json.RawMessage(`{"file_path":"main.go"}`)},
		{Tool: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
	} {
		res, err := reviewer.Call(ctx, &call)
		if err != nil {
			fmt.Println(call.Tool+":", err)
			continue
		}
		fmt.Println(call.Tool+":", res.Content)
	}
	// Output:
	// reviewer sees: Read
	// reviewer sees: Edit
	// Read: Read ran with {"file_path":"main.go"}
	// Edit: permission denied for tool "Edit": reviewers do not edit
	// Bash: tool "Bash" not found
}

type checkerFunc func(toolgate.Call) toolgate.Decision

func (f checkerFunc) Decide(c toolgate.Call) toolgate.Decision { return f(c) }
