package toolgate_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/toolgate/toolgate"
)

// A read call's globs (read_many_files) are read with the file system: the
// names that exist are paths of their own, faced with deny rules and the
// secret check, dot-files included; the glob itself faces deny rules with
// every name it could produce.
func TestReadCallGlobs(t *testing.T) {
	files := map[string][]string{
		"/p/*":     {"/p/README.md", "/p/src"},
		"/p/.*":    {"/p/.env", "/p/.gitignore"},
		"/p/src/*": {"/p/src/main.go"},
		"/p/*.md":  {"/p/README.md"},
		"/p/.*.md": nil,
	}
	glob := func(p string) ([]string, error) {
		if m, ok := files[p]; ok {
			return m, nil
		}
		return filepath.Glob("/nonexistent" + p)
	}
	for _, tt := range []struct {
		deny  []string
		paths string
		want  toolgate.Outcome
	}{
		{nil, `["*"]`, toolgate.Ask},                            // matches /p/.env: a secret read
		{nil, `["*.md"]`, toolgate.Allow},                       // only README.md exists
		{nil, `["src/*"]`, toolgate.Allow},                      // only main.go
		{[]string{"Read(./src/**)"}, `["s*/*"]`, toolgate.Deny}, // could produce src/x
		{[]string{"Read(./README.md)"}, `["*"]`, toolgate.Deny},
		{nil, `["src/*/../../*"]`, toolgate.Ask}, // .. after a glob: anywhere
	} {
		allow, ask := toolgate.Allow, toolgate.Ask
		l := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.toolgate/policy.yaml", Root: "/p", DefaultReadOnly: &allow, Default: &ask}
		for _, r := range tt.deny {
			l.Deny = append(l.Deny, toolgate.RuleSpec{Text: r})
		}
		pol, err := toolgate.Compile([]toolgate.Layer{l}, &toolgate.Options{Glob: glob})
		if err != nil {
			t.Fatal(err)
		}
		d := pol.Decide(toolgate.Call{Tool: "read_many_files", Input: []byte(`{"paths":` + tt.paths + `}`), Cwd: "/p", Home: "/h"})
		if d.Outcome != tt.want {
			t.Errorf("deny %q, paths %s: %v (%v), want %v", tt.deny, tt.paths, d.Outcome, d.Reasons, tt.want)
		}
	}
}

// A glob that matches more names than are checked satisfies no allow rule
// and counts as a secret read: the names past the cap are not seen.
func TestReadCallGlobCap(t *testing.T) {
	glob := func(p string) ([]string, error) {
		if p != "/p/*" {
			return nil, nil
		}
		var out []string
		for i := range 1200 {
			out = append(out, fmt.Sprintf("/p/f%d", i))
		}
		return out, nil
	}
	allow, ask := toolgate.Allow, toolgate.Ask
	l := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.toolgate/policy.yaml", Root: "/p", DefaultReadOnly: &allow, Default: &ask}
	pol, err := toolgate.Compile([]toolgate.Layer{l}, &toolgate.Options{Glob: glob})
	if err != nil {
		t.Fatal(err)
	}
	d := pol.Decide(toolgate.Call{Tool: "read_many_files", Input: []byte(`{"paths":["*"]}`), Cwd: "/p", Home: "/h"})
	if d.Outcome != toolgate.Ask {
		t.Errorf("a glob of 1,200 names: %v (%v), want ask", d.Outcome, d.Reasons)
	}
}
