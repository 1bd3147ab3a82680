package toolgate_test

import (
	"path"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// A ".." after a symlink is applied physically, as the kernel does (SPEC
// §4.2): deny rules match the lexical or the physical reading, allow rules
// and the workspace test need both.
func TestDotDotAfterSymlink(t *testing.T) {
	links := map[string]string{"/p/docs/k": "/h/.ssh", "/p/docs/s": "/p/src"}
	resolve := func(p string) (string, error) {
		// Resolve the longest linked prefix, repeatedly.
		for range 8 {
			changed := false
			for l, tgt := range links {
				if p == l || strings.HasPrefix(p, l+"/") {
					p, changed = path.Join(tgt, strings.TrimPrefix(p, l)), true
				}
			}
			if !changed {
				break
			}
		}
		return p, nil
	}
	for _, tt := range []struct {
		tool, input string
		want        toolgate.Outcome
	}{
		// docs/k/../.ssh/id_rsa is /p/docs/.ssh/id_rsa lexically, /h/.ssh/id_rsa physically.
		{"Read", `{"file_path":"docs/k/../.ssh/id_rsa"}`, toolgate.Deny},
		{"Bash", `{"command":"cat docs/k/../.ssh/id_rsa"}`, toolgate.Deny},
		{"Bash", `{"command":"cd docs && cat k/../.ssh/id_rsa"}`, toolgate.Deny},
		// docs/k/../x is /h/x physically: outside the workspace.
		{"Read", `{"file_path":"docs/k/../x"}`, toolgate.Ask},
		// docs/s/../a.go is /p/docs/a.go lexically and /p/src/../a.go = /p/a.go
		// physically: both inside; docs/s/../../a.go is /a.go physically.
		{"Read", `{"file_path":"docs/s/../a.go"}`, toolgate.Allow},
		{"Read", `{"file_path":"docs/s/../../a.go"}`, toolgate.Ask},
		{"Read", `{"file_path":"docs/../README.md"}`, toolgate.Allow},
	} {
		allow, ask := toolgate.Allow, toolgate.Ask
		l := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.toolgate/policy.yaml", Root: "/p",
			Deny: []toolgate.RuleSpec{{Text: "Read(~/.ssh/**)"}}, DefaultReadOnly: &allow, Default: &ask}
		pol, err := toolgate.Compile([]toolgate.Layer{l}, &toolgate.Options{ResolveSymlinks: resolve})
		if err != nil {
			t.Fatal(err)
		}
		d := pol.Decide(toolgate.Call{Tool: tt.tool, Input: []byte(tt.input), Cwd: "/p", Home: "/h"})
		if d.Outcome != tt.want {
			t.Errorf("%s %s: %v (%v), want %v", tt.tool, tt.input, d.Outcome, d.Reasons, tt.want)
		}
	}
}
