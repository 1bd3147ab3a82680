package toolgate_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// RuleReadings: what lint reports about the Claude Code shapes (docs/rules.md,
// "Claude Code compatibility").
func TestRuleReadings(t *testing.T) {
	tests := []struct {
		rule   string
		effect toolgate.Effect
		want   string // "code[!]=reading" joined by "; " (! marks ApprovesNothing)
	}{
		{"Bash(dd :*)", toolgate.EffectDeny, "padded=Bash(dd:*)"},
		{"Bash(dd :*)", toolgate.EffectAllow, "padded!=Bash(dd:*)"},
		{"Bash( npm test)", toolgate.EffectAllow, "padded!=Bash(npm test)"},
		{"Bash( npm run *)", toolgate.EffectAllow, "padded=Bash(npm run *)"},
		{"Read( ** /*token*)", toolgate.EffectDeny, "padded=Read(**/*token*)"},
		{"Read( ** /*token*)", toolgate.EffectAllow, "padded=Read(**/*token*)"},
		{"Bash(npm run test:*)", toolgate.EffectAllow, ""},
		{"Bash(python3:*)", toolgate.EffectAllow, "exact-only=python3 x"},
		{"Bash(python3 -m pytest:*)", toolgate.EffectAllow, "exact-only=python3 -m pytest x"},
		{"Bash(node -e:*)", toolgate.EffectAllow, "exact-only=node -e x"},
		{"Bash(python3 tools/gen.py)", toolgate.EffectAllow, ""},
		{"Bash(python3:*)", toolgate.EffectDeny, ""},
		{"Bash(cat .env)", toolgate.EffectAllow, "secret-non-path=.env"},
		{"Bash(cat README.md)", toolgate.EffectAllow, ""},
		{"Bash(FOO=1 make:*)", toolgate.EffectAllow, "assign-unsafe!=FOO"},
		{"Bash(PATH=/tmp/bin make:*)", toolgate.EffectAllow, "assign-unsafe!=PATH"},
		{"Bash(TZ=UTC npx vitest run:*)", toolgate.EffectAllow, ""},
		{"Bash(trap:*)", toolgate.EffectAllow, "unanalysable!=trap"},
		{"Bash(touch \\(x\\):*)", toolgate.EffectAllow, "no-command!=Bash(touch \\(x\\):*)"},
		{"Bash(touch \\(x\\):*)", toolgate.EffectDeny, "escaped-as-written=Bash(touch \\(x\\):*); no-command=Bash(touch \\(x\\):*)"},
		{"Bash(echo \"\\(x\\)\":*)", toolgate.EffectAllow, ""},
		{"PowerShell(git status:*)", toolgate.EffectAllow, "powershell-allow!="},
		{"PowerShell(Get-ChildItem)", toolgate.EffectAllow, ""},
		{"Task(Explore)", toolgate.EffectAllow, "alias=Agent(Explore)"},
		{"KillShell", toolgate.EffectDeny, "alias=TaskStop"},
		{"Skill(commit)", toolgate.EffectAllow, "skill="},
	}
	for _, tt := range tests {
		var got []string
		for _, n := range toolgate.RuleReadings(tt.rule, tt.effect) {
			s := n.Code
			if n.ApprovesNothing {
				s += "!"
			}
			got = append(got, s+"="+n.Reading)
		}
		if g := strings.Join(got, "; "); !strings.HasPrefix(g, tt.want) || tt.want == "" && g != "" {
			t.Errorf("RuleReadings(%q, %v) = %q, want %q", tt.rule, tt.effect, g, tt.want)
		}
	}
}

// A rule with several readings is one rule to MatchingRules: listed once,
// by its text, with the reading that matched.
func TestMatchingRulesReadings(t *testing.T) {
	l := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.claude/settings.json", Root: "/p", ClaudeSettings: true,
		Deny: []toolgate.RuleSpec{{Text: "Bash(dd :*)", Pos: toolgate.Position{File: "/p/.claude/settings.json", Line: 3, Column: 8}}},
		Ask:  []toolgate.RuleSpec{{Text: "Bash(git push :*)"}}}
	cfg, err := toolgate.Compile([]toolgate.Layer{l}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.MatchingRules(toolgate.Call{Tool: "Bash", Input: []byte(`{"command":"dd if=/dev/zero of=x"}`), Cwd: "/p"})
	if len(m.Deny) != 1 || m.Deny[0].Rule != "Bash(dd :*)" || m.Deny[0].Line != 3 || m.Deny[0].Column != 8 {
		t.Errorf("deny matches = %+v", m.Deny)
	}
	for _, r := range m.NearMiss {
		if r.Rule == "Bash(dd :*)" {
			t.Errorf("a matching rule is also a near miss: %+v", m.NearMiss)
		}
	}
	d := cfg.Decide(toolgate.Call{Tool: "Bash", Input: []byte(`{"command":"git push origin main"}`), Cwd: "/p"})
	if d.Outcome != toolgate.Ask || d.Reason().Rule != "Bash(git push :*)" {
		t.Errorf("git push: %v %+v", d.Outcome, d.Reason())
	}
}

// A sub-agent's deny rules have the same readings as any other.
func TestAgentRuleReadings(t *testing.T) {
	l := toolgate.Layer{Source: toolgate.SourceCLI, File: "/p/policy.yaml", Root: "/p",
		Allow:  []toolgate.RuleSpec{{Text: "Bash"}},
		Agents: map[string]toolgate.AgentPolicy{"reviewer": {Deny: []toolgate.RuleSpec{{Text: "Bash(dd :*)"}, {Text: "KillShell"}}}}}
	cfg, err := toolgate.Compile([]toolgate.Layer{l}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, input string }{{"Bash", `{"command":"dd if=/dev/zero of=x"}`}, {"TaskStop", `{"task_id":"1"}`}} {
		d := cfg.Decide(toolgate.Call{Tool: c.tool, Input: []byte(c.input), Cwd: "/p", Agent: "reviewer"})
		if d.Outcome != toolgate.Deny {
			t.Errorf("reviewer %s %s: %v %+v", c.tool, c.input, d.Outcome, d.Reason())
		}
	}
}

// FuzzRuleReadings: no rule text makes the readings, or compiling them,
// panic; and a rule that compiles as a deny rule also compiles as an ask
// rule (the same readings).
func FuzzRuleReadings(f *testing.F) {
	for _, s := range []string{"Bash(dd :*)", "Read( ** /*token*)", "Bash(TZ=UTC npx vitest run:*)", `Bash(touch \(x\):*)`,
		"PowerShell(Remove-Item:*)", "Skill(/x:*)", "KillShell", "Task(Explore)", `Bash(echo "\(a\)")`, "Bash( a )"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range []toolgate.Effect{toolgate.EffectAllow, toolgate.EffectDeny, toolgate.EffectAsk} {
			toolgate.RuleReadings(s, e)
		}
		spec := []toolgate.RuleSpec{{Text: s}}
		_, errDeny := toolgate.Compile([]toolgate.Layer{{Source: toolgate.SourceCLI, Root: "/p", Deny: spec}}, nil)
		_, errAsk := toolgate.Compile([]toolgate.Layer{{Source: toolgate.SourceCLI, Root: "/p", Ask: spec}}, nil)
		if (errDeny == nil) != (errAsk == nil) {
			t.Fatalf("%q: deny %v, ask %v", s, errDeny, errAsk)
		}
		toolgate.Compile([]toolgate.Layer{{Source: toolgate.SourceCLI, Root: "/p", Allow: spec}}, nil)
	})
}

// "Bash(:*)" and "Bash( :*)" are load errors with their position: they would
// match no command (Claude Code rejects them too).
func TestEmptyPrefixRule(t *testing.T) {
	for _, text := range []string{"Bash(:*)", "Bash( :*)", "bash(  :*)"} {
		l := toolgate.Layer{Source: toolgate.SourceCLI, File: "/p/x.yaml", Root: "/p",
			Deny: []toolgate.RuleSpec{{Text: text, Pos: toolgate.Position{File: "/p/x.yaml", Line: 2, Column: 3}}}}
		_, err := toolgate.Compile([]toolgate.Layer{l}, nil)
		if err == nil || !strings.Contains(err.Error(), "empty command prefix") || !strings.Contains(err.Error(), "x.yaml:2:8") {
			t.Errorf("%s: %v", text, err)
		}
	}
}
