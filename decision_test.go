package toolgate_test

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate"
)

// Stricter is the one combinator of two decisions: the stricter outcome
// with its side's reasons, a on a tie, and a rewrite never dropped by an
// allow or ask of the other side.
func TestStricter(t *testing.T) {
	in := json.RawMessage(`{"x":1}`)
	r := func(name string) []toolgate.Reason { return []toolgate.Reason{{Kind: toolgate.KindRule, Rule: name}} }
	allow := toolgate.Decision{Outcome: toolgate.Allow, Reasons: r("allow")}
	ask := toolgate.Decision{Outcome: toolgate.Ask, Reasons: r("ask")}
	deny := toolgate.Decision{Outcome: toolgate.Deny, Reasons: r("deny")}
	modify := toolgate.Decision{Outcome: toolgate.Modify, Input: in, Reasons: r("modify")}
	askIn := toolgate.Decision{Outcome: toolgate.Ask, Input: in, Reasons: r("ask-in")}
	tests := []struct {
		a, b         toolgate.Decision
		want         toolgate.Outcome
		rule         string
		keepsRewrite bool
	}{
		{allow, allow, toolgate.Allow, "allow", false},
		{allow, ask, toolgate.Ask, "ask", false},
		{ask, deny, toolgate.Deny, "deny", false},
		{deny, modify, toolgate.Deny, "deny", false},
		{toolgate.Decision{}, allow, toolgate.Invalid, "", false},
		{allow, modify, toolgate.Modify, "modify", true},
		{modify, allow, toolgate.Modify, "modify", true},
		{ask, modify, toolgate.Ask, "ask", true},
		{allow, askIn, toolgate.Ask, "ask-in", true},
		{askIn, allow, toolgate.Ask, "ask-in", true},
	}
	for _, tc := range tests {
		d := toolgate.Stricter(tc.a, tc.b)
		if d.Outcome != tc.want || d.Reason().Rule != tc.rule || (d.Input != nil) != tc.keepsRewrite {
			t.Errorf("Stricter(%v, %v) = %v input %s, want %v by %q (rewrite kept: %v)", tc.a.Outcome, tc.b.Outcome, d, d.Input, tc.want, tc.rule, tc.keepsRewrite)
		}
	}
}
