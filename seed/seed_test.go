package seed_test

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/seed"
)

func bash(cmd string) toolgate.Call {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return toolgate.Call{Tool: "Bash", Input: in, Cwd: "/p"}
}

func TestPolicyFacade(t *testing.T) {
	p := seed.NewPolicy().AllowRule("Bash(git status)").DenyRule("Bash(rm:*)").AskRule("Bash(git push:*)")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back seed.Policy
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(&back)
	if string(b) != string(b2) {
		t.Fatalf("round trip: %s != %s", b, b2)
	}
	c, err := back.Compile(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.IsAllowed(bash("git status")) || !c.IsDenied(bash("rm x")) || !c.RequiresConfirmation(bash("git push")) {
		t.Fatal("facade predicates disagree with the rules")
	}
	m := c.MatchingRules(bash("git push && rm x"))
	if len(m.Deny) != 1 || len(m.Ask) != 1 || len(m.Allow) != 0 {
		t.Fatalf("matching rules = %+v", m)
	}
	if !c.DeclaresToolAccess("Bash") || c.DeclaresToolAccess("Read") {
		t.Fatal("DeclaresToolAccess")
	}
	strict, _ := seed.NewPolicy().DenyRule("WebFetch").Compile(nil)
	if strict.ExposeToModel("WebFetch") || !strict.ExposeToModel("Read") {
		t.Fatal("ExposeToModel")
	}
}

func TestPolicyJSONErrors(t *testing.T) {
	for _, in := range []string{
		`{"default":"maybe"}`,
		`{"default":"modify"}`,
		`{"precedence":"allow-first"}`,
		`{"deny":"Bash"}`,
	} {
		var p seed.Policy
		if err := json.Unmarshal([]byte(in), &p); err == nil {
			t.Errorf("%s: decoded as %+v; want an error", in, p)
		}
	}
	var p seed.Policy
	if err := json.Unmarshal([]byte(`{"enabled":false,"default":"deny","precedence":"deny-ask-allow"}`), &p); err != nil {
		t.Fatal(err)
	}
	if !p.Disabled || p.Default != toolgate.Deny || p.Precedence != toolgate.DenyAskAllow {
		t.Fatalf("decoded %+v", p)
	}
}
