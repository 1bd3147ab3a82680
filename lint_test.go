package toolgate_test

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// Lint reads rules with the engine's catalog: codes and positions of the
// findings, one rule at a time.
func TestLint(t *testing.T) {
	shell := toolgate.KindShell
	field := "script"
	tests := []struct {
		name  string
		layer toolgate.Layer
		want  []string // "line:code", in position order
	}{
		{"shadowed by deny", rules(nil, []string{"Bash(git:*)"}, []string{"Bash(git status)"}), []string{"1:shadowed-by-deny"}},
		{"unknown tool with a suggestion", rules(nil, nil, []string{"Raed(./x)"}), []string{"1:unknown-tool"}},
		{"duplicate", rules(nil, []string{"Bash(rm:*)", "bash(RM:*)"}, nil), []string{"2:duplicate-rule"}},
		{"param on a shell field", rules(nil, []string{"Bash(command:rm *)"}, nil), []string{"1:param-on-shell-field"}},
		{"path never matches", rules(nil, []string{"Read(https://x.example)"}, nil), []string{"1:path-never-matches"}},
		{"a tools section makes a shell tool and its field", func() toolgate.Layer {
			l := rules(nil, []string{"Runner(script:rm *)"}, nil)
			l.Tools = []toolgate.ToolSpec{{Pattern: "Runner", Kind: &shell, Field: &field}}
			return l
		}(), []string{"1:param-on-shell-field"}},
		{"clean", rules(nil, []string{"Bash(rm:*)"}, []string{"Read(src/**)"}), nil},
	}
	for _, tc := range tests {
		var got []string
		for _, d := range toolgate.Lint([]toolgate.Layer{tc.layer, toolgate.BuiltinLayer(true)}) {
			got = append(got, strings.TrimPrefix(d.Pos.String(), "/p/policy.yaml:")[:1]+":"+d.Code)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%s: findings %v, want %v", tc.name, got, tc.want)
		}
	}
}

// rules builds a project layer whose rules sit on lines 1, 2, … of each
// list (ask, deny, allow).
func rules(ask, deny, allow []string) toolgate.Layer {
	l := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/policy.yaml", Root: "/p"}
	spec := func(rs []string) []toolgate.RuleSpec {
		var out []toolgate.RuleSpec
		for i, r := range rs {
			out = append(out, toolgate.RuleSpec{Text: r, Pos: toolgate.Position{File: l.File, Line: i + 1, Column: 3}})
		}
		return out
	}
	l.Ask, l.Deny, l.Allow = spec(ask), spec(deny), spec(allow)
	return l
}
