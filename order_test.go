package toolgate_test

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate"
)

// TestOrderOfEvaluation walks SPEC §6.3 one step at a time, each case
// showing that its step decides before the later ones could.
func TestOrderOfEvaluation(t *testing.T) {
	def, ro := toolgate.Ask, toolgate.Allow
	l := layer(toolgate.SourceProject,
		[]string{"Bash(git push:*)", "Edit", "Bash(rm:*)", "Bash(bash:*)", "Read"},
		[]string{"Bash(shutdown:*)", "Read(./secrets/**)"},
		[]string{"Bash(git push origin main)"})
	l.Default, l.DefaultReadOnly = &def, &ro
	c := mustCompile(t, l)
	auto := func(toolgate.Call, toolgate.Decision) (toolgate.Outcome, error) { return toolgate.Allow, nil }
	withAuto, err := toolgate.Compile([]toolgate.Layer{l}, &toolgate.Options{Classifier: auto})
	if err != nil {
		t.Fatal(err)
	}
	mode := func(name toolgate.ModeName) *toolgate.Mode { return &toolgate.Mode{Name: name} }
	read := func(p string) toolgate.Call {
		in, _ := json.Marshal(map[string]string{"file_path": p})
		return toolgate.Call{Tool: "Read", Input: in, Cwd: "/p"}
	}
	edit := func(p string) toolgate.Call {
		in, _ := json.Marshal(map[string]string{"file_path": p})
		return toolgate.Call{Tool: "Edit", Input: in, Cwd: "/p"}
	}
	with := func(call toolgate.Call, m *toolgate.Mode) toolgate.Call { call.Mode = m; return call }
	tests := []struct {
		step string
		cfg  *toolgate.Policy
		call toolgate.Call
		want toolgate.Outcome
		kind toolgate.ReasonKind
	}{
		{"1 invalid call", c, toolgate.Call{Tool: "Read", Cwd: "/p", Input: json.RawMessage(`{"file_path":1}`)}, toolgate.Deny, toolgate.KindInvalid},
		{"2 deny rules beat every mode", c, with(bash("shutdown now"), mode(toolgate.ModeBypassPermissions)), toolgate.Deny, toolgate.KindRule},
		{"2 deny rules beat allow rules", c, read("/p/secrets/k"), toolgate.Deny, toolgate.KindRule},
		{"3 a floor beats an allow rule", c, bash("rm -rf /"), toolgate.Ask, toolgate.KindSafety},
		{"3 a floor beats bypass", c, with(edit("/p/.git/config"), mode(toolgate.ModeBypassPermissions)), toolgate.Ask, toolgate.KindSafety},
		{"3 unanalysable beats an allow rule", c, bash(`bash -c "$X"`), toolgate.Ask, toolgate.KindSafety},
		{"4 plan denies writes before allow rules", c, with(edit("/p/a.go"), mode(toolgate.ModePlan)), toolgate.Deny, toolgate.KindMode},
		{"4 plan lets reads through", c, with(read("/p/a.go"), mode(toolgate.ModePlan)), toolgate.Allow, toolgate.KindRule},
		{"5 allow before ask (deny-allow-ask)", c, bash("git push origin main"), toolgate.Allow, toolgate.KindRule},
		{"6 read-only default", c, bash("cat a.go"), toolgate.Allow, toolgate.KindReadOnly},
		{"6 default", c, bash("make"), toolgate.Ask, toolgate.KindDefault},
		{"6 bypass replaces only the default", c, with(bash("make"), mode(toolgate.ModeBypassPermissions)), toolgate.Allow, toolgate.KindMode},
		{"6 strict", c, with(bash("make"), mode(toolgate.ModeStrict)), toolgate.Deny, toolgate.KindMode},
		{"7 auto asks the classifier", withAuto, with(bash("make"), mode(toolgate.ModeAuto)), toolgate.Allow, toolgate.KindMode},
		{"7 auto never settles a floor", withAuto, with(bash("rm -rf /"), mode(toolgate.ModeAuto)), toolgate.Ask, toolgate.KindSafety},
		{"8 dontAsk turns ask into deny", c, with(bash("make"), mode(toolgate.ModeDontAsk)), toolgate.Deny, toolgate.KindMode},
	}
	for _, tt := range tests {
		d := tt.cfg.Decide(tt.call)
		if d.Outcome != tt.want || d.Reason().Kind != tt.kind {
			t.Errorf("step %s: got %s; want %s with reason kind %s", tt.step, d, tt.want, tt.kind)
		}
	}
}
