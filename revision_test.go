package toolgate_test

import (
	"reflect"
	"testing"

	"github.com/toolgate/toolgate"
)

// The revision changes when any field of any layer changes. The table names
// a change for every field of Layer; a new field fails the test until it
// has one, and then the revision must see it (it hashes a canonical
// encoding, not a list of fields).
func TestRevisionSeesEveryField(t *testing.T) {
	deny, strict, off := toolgate.Deny, toolgate.Mode{Name: toolgate.ModeStrict}, false
	prec, read, field := toolgate.DenyAskAllow, toolgate.KindRead, "path"
	change := map[string]func(l *toolgate.Layer){
		"Source":                func(l *toolgate.Layer) { l.Source = toolgate.SourceUser },
		"File":                  func(l *toolgate.Layer) { l.File = "/p/other.yaml" },
		"Root":                  func(l *toolgate.Layer) { l.Root = "/q" },
		"Allow":                 func(l *toolgate.Layer) { l.Allow = append(l.Allow, toolgate.RuleSpec{Text: "Read"}) },
		"Deny":                  func(l *toolgate.Layer) { l.Deny = append(l.Deny, toolgate.RuleSpec{Text: "Read"}) },
		"Ask":                   func(l *toolgate.Layer) { l.Ask = append(l.Ask, toolgate.RuleSpec{Text: "Read"}) },
		"Default":               func(l *toolgate.Layer) { l.Default = &deny },
		"DefaultReadOnly":       func(l *toolgate.Layer) { l.DefaultReadOnly = &deny },
		"Precedence":            func(l *toolgate.Layer) { l.Precedence = &prec },
		"Mode":                  func(l *toolgate.Layer) { l.Mode = &strict },
		"Enabled":               func(l *toolgate.Layer) { l.Enabled = &off },
		"AdditionalDirectories": func(l *toolgate.Layer) { l.AdditionalDirectories = []string{"/x"} },
		"ProtectedPaths":        func(l *toolgate.Layer) { l.ProtectedPaths = []toolgate.RuleSpec{{Text: "secrets"}} },
		"UnprotectedPaths":      func(l *toolgate.Layer) { l.UnprotectedPaths = []toolgate.RuleSpec{{Text: ".vscode"}} },
		"Tools": func(l *toolgate.Layer) {
			l.Tools = []toolgate.ToolSpec{{Pattern: "Peek", Kind: &read, Field: &field}}
		},
		"Rewrites": func(l *toolgate.Layer) {
			l.Rewrites = []toolgate.Rewrite{{Match: toolgate.RuleSpec{Text: "Bash"}, Remove: []toolgate.PointerRef{{Pointer: "/timeout"}}}}
		},
		"Agents": func(l *toolgate.Layer) {
			l.Agents = map[string]toolgate.AgentPolicy{"helper": {Deny: []toolgate.RuleSpec{{Text: "Bash"}}}}
		},
		"AllowManagedRulesOnly": func(l *toolgate.Layer) { l.AllowManagedRulesOnly = true },
		"DisableModes":          func(l *toolgate.Layer) { l.DisableModes = []toolgate.ModeName{toolgate.ModeBypassPermissions} },
		"ClaudeSettings":        func(l *toolgate.Layer) { l.ClaudeSettings = true },
		"ExactToolNames":        func(l *toolgate.Layer) { l.ExactToolNames = true },
	}
	base := func() toolgate.Layer {
		return toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.toolgate/policy.yaml", Root: "/p",
			Allow: []toolgate.RuleSpec{{Text: "Bash(git status)", Pos: toolgate.Position{Line: 3, Column: 5}}}}
	}
	rev := func(l toolgate.Layer) string { return mustCompile(t, l).Revision() }
	r0 := rev(base())
	if r0 != rev(base()) {
		t.Fatal("the revision of the same layers differs between compilations")
	}
	lt := reflect.TypeFor[toolgate.Layer]()
	for i := 0; i < lt.NumField(); i++ {
		name := lt.Field(i).Name
		f, ok := change[name]
		if !ok {
			t.Errorf("no change for Layer.%s in this table: add one", name)
			continue
		}
		l := base()
		f(&l)
		if rev(l) == r0 {
			t.Errorf("changing Layer.%s leaves the revision as it was", name)
		}
	}
	// A rule's position is part of it: reasons name it.
	l := base()
	l.Allow[0].Pos.Line = 4
	if rev(l) == r0 {
		t.Error("moving a rule leaves the revision as it was")
	}
}
