package hook_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/hook"
)

// A Claude Code PreToolUse hook that denies a command by rule.
func ExampleRun() {
	payload := `{"session_id":"s1","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse",
		"tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"toolu_1"}`
	decide := func(call toolgate.Call) (toolgate.Decision, error) {
		return toolgate.Decision{Outcome: toolgate.Deny, Reasons: []toolgate.Reason{{
			Kind: toolgate.KindRule, Rule: "Bash(rm -rf:*)", Effect: "deny", Source: "project",
			File: "/p/.toolgate/policy.yaml", Line: 4, Column: 5, Part: "rm -rf build",
		}}}, nil
	}
	exit := hook.Run(context.Background(), hook.Claude, strings.NewReader(payload), os.Stdout, os.Stderr, decide, nil)
	fmt.Println("exit", exit)
	// Output:
	// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"toolgate: denied: deny rule \"Bash(rm -rf:*)\" in project /p/.toolgate/policy.yaml:4:5 matched \"rm -rf build\""}}
	// exit 0
}
