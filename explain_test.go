package toolgate_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// Every rule reason carries the rule's identity, and Explain lists the
// rules by it in order of evaluation: the deciding rule is there, matched.
func TestRuleIdentity(t *testing.T) {
	user := layer(toolgate.SourceUser, []string{"Bash(npm run test:*)"}, []string{"Bash(curl:*)"}, nil)
	proj := layer(toolgate.SourceProject, []string{"Bash(git status)"}, []string{"Read(./.env)", "Bash(rm:*)"}, []string{"Bash(git push:*)"})
	proj.Agents = map[string]toolgate.AgentPolicy{"helper": {Deny: []toolgate.RuleSpec{{Text: "Bash(git:*)"}}}}
	c := mustCompile(t, user, proj) // sorted: project (0), user (1)
	tests := []struct {
		call toolgate.Call
		want toolgate.RuleID
	}{
		{bash("rm -rf build"), toolgate.RuleID{Layer: 0, List: toolgate.EffectDeny, Index: 1}},
		{bash("cat .env"), toolgate.RuleID{Layer: 0, List: toolgate.EffectDeny, Index: 0}},
		{bash("curl x"), toolgate.RuleID{Layer: 1, List: toolgate.EffectDeny, Index: 0}},
		{bash("git push"), toolgate.RuleID{Layer: 0, List: toolgate.EffectAsk, Index: 0}},
		{bash("npm run test -- -v"), toolgate.RuleID{Layer: 1, List: toolgate.EffectAllow, Index: 0}},
		{func() toolgate.Call { c := bash("git status"); c.Agent = "helper"; return c }(), toolgate.RuleID{Layer: 0, Agent: "helper", List: toolgate.EffectDeny, Index: 0}},
	}
	for _, tc := range tests {
		d := c.Decide(tc.call)
		if got := d.Reason().RuleID; got != tc.want {
			t.Errorf("%s: deciding reason %v has id %+v, want %+v", tc.call.Input, d.Reason(), got, tc.want)
		}
		if tc.want.Agent != "" {
			continue
		}
		ex := c.Explain(tc.call)
		found := false
		for _, m := range ex.Rules {
			if m.ID == tc.want {
				found = m.Match == toolgate.FullMatch
			}
		}
		if !found {
			t.Errorf("%s: Explain does not list %+v as matched: %+v", tc.call.Input, tc.want, ex.Rules)
		}
	}
	if id := c.Decide(bash("ls")).Reason().RuleID; !id.IsZero() {
		t.Errorf("a default reason names rule %+v", id)
	}

	e := toolgate.NewEngine(c)
	if err := e.AddSessionRule(toolgate.EffectDeny, "Bash(ls:*)"); err != nil {
		t.Fatal(err)
	}
	want := toolgate.RuleID{Layer: -1, List: toolgate.EffectDeny, Index: 0}
	if got := e.Decide(bash("ls")).Reason().RuleID; got != want {
		t.Errorf("session rule id %+v, want %+v", got, want)
	}
}

// Explain lists rules in order of evaluation with how each bears on the
// call: a partial allow match and a near miss with the part.
func TestExplainOrder(t *testing.T) {
	l := layer(toolgate.SourceProject, []string{"Bash(npm run test:*)"}, []string{"Bash(rm:*)"}, []string{"Bash(git push:*)"})
	c := mustCompile(t, l)
	ex := c.Explain(bash("npm run test && rm -rf build"))
	type row struct {
		list  toolgate.Effect
		match toolgate.Match
		part  string
	}
	var got []row
	for _, m := range ex.Rules {
		got = append(got, row{m.ID.List, m.Match, m.Part})
	}
	want := []row{
		{toolgate.EffectDeny, toolgate.FullMatch, "rm -rf build"},
		{toolgate.EffectAllow, toolgate.PartialMatch, "npm run test"},
		{toolgate.EffectAsk, toolgate.NearMiss, ""},
	}
	if len(got) != len(want) {
		t.Fatalf("Explain rules = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rule %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if ex.Decision.Outcome != toolgate.Deny {
		t.Errorf("decision %v, want deny", ex.Decision)
	}
}

// Settings name the layer that won each setting; the built-in
// default_read_only gives way to a file's default (issue 11).
func TestSettingsOrigin(t *testing.T) {
	deny := toolgate.Deny
	proj := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.toolgate/policy.yaml", Default: &deny}
	c := mustCompile(t, proj, toolgate.BuiltinLayer(true))
	st := c.Settings()
	if st.Default != toolgate.Deny || st.DefaultFrom.Layer != 0 || st.DefaultFrom.File != proj.File {
		t.Errorf("default %v from %+v, want deny from layer 0", st.Default, st.DefaultFrom)
	}
	if st.DefaultReadOnly != toolgate.Deny || !st.DefaultReadOnlyFrom.IsZero() {
		t.Errorf("default_read_only %v from %+v, want deny following default", st.DefaultReadOnly, st.DefaultReadOnlyFrom)
	}
	if st.PrecedenceFrom.Source != toolgate.SourceBuiltin || st.PrecedenceFrom.Layer != 1 {
		t.Errorf("precedence from %+v, want the built-in layer (1)", st.PrecedenceFrom)
	}
	d := c.Decide(toolgate.Call{Tool: "Read", Input: []byte(`{"file_path":"/p/a"}`), Cwd: "/p"})
	if d.Outcome != toolgate.Deny || d.Reason().Kind != toolgate.KindReadOnly {
		t.Errorf("decision %v, want deny by default_read_only", d)
	}
	c = mustCompile(t, toolgate.BuiltinLayer(true))
	if st := c.Settings(); st.DefaultReadOnly != toolgate.Allow || st.DefaultReadOnlyFrom.Source != toolgate.SourceBuiltin {
		t.Errorf("built-in alone: default_read_only %v from %+v, want allow from builtin", st.DefaultReadOnly, st.DefaultReadOnlyFrom)
	}
}

// CheckMode says, with the managed file, which modes a managed layer
// disables; a call in such a mode is an invalid call.
func TestCheckMode(t *testing.T) {
	managed := toolgate.Layer{Source: toolgate.SourceManaged, File: "/etc/toolgate/policy.yaml",
		DisableModes: []toolgate.ModeName{toolgate.ModeBypassPermissions}}
	c := mustCompile(t, managed)
	if err := c.CheckMode(toolgate.ModeDefault); err != nil {
		t.Errorf("default mode: %v", err)
	}
	err := c.CheckMode(toolgate.ModeBypassPermissions)
	if err == nil || !strings.Contains(err.Error(), "/etc/toolgate/policy.yaml") {
		t.Errorf("bypassPermissions: %v, want an error naming the managed file", err)
	}
	call := bash("ls")
	call.Mode = &toolgate.Mode{Name: toolgate.ModeBypassPermissions}
	if d := c.Decide(call); d.Outcome != toolgate.Deny || d.Reason().Kind != toolgate.KindInvalid {
		t.Errorf("a call in a disabled mode: %v, want an invalid deny", d)
	}
}

// Explain weighs rules as Decide does for the commands another program
// runs: the program's allow rule approves them (ssh), and deny rules see
// the commands an unknown program may run (bwrap); the deciding rule is
// listed as matched in both.
func TestExplainDelegated(t *testing.T) {
	c := mustCompile(t, layer(toolgate.SourceProject, []string{"Bash(ssh:*)", "Bash(bwrap:*)"}, []string{"Bash(rm -rf:*)", "Bash(terraform destroy:*)"}, nil))
	for _, tc := range []struct {
		cmd  string
		want toolgate.Outcome
		rule string
	}{
		{"ssh host 'uptime; df -h'", toolgate.Allow, "Bash(ssh:*)"},
		{"bwrap --bind / / rm -rf build", toolgate.Deny, "Bash(rm -rf:*)"},
		// A tail that starts with a program the model does not know is
		// judged by its words alone (no guessed command of its own).
		{"bwrap --bind / / terraform destroy -auto-approve", toolgate.Deny, "Bash(terraform destroy:*)"},
	} {
		d := c.Decide(bash(tc.cmd))
		if d.Outcome != tc.want || d.Reason().Rule != tc.rule {
			t.Fatalf("%s: %v, want %v by %s", tc.cmd, d, tc.want, tc.rule)
		}
		found := false
		for _, m := range c.Explain(bash(tc.cmd)).Rules {
			if m.ID == d.Reason().RuleID {
				found = m.Match == toolgate.FullMatch
			}
		}
		if !found {
			t.Errorf("%s: Explain does not list the deciding rule %s as matched", tc.cmd, tc.rule)
		}
	}
}
