package shell

import "testing"

// Patterns that begin with assignments, as Claude Code writes them when a
// person picks "always allow" for `TZ=UTC npx vitest run` (Claude Code 2.1
// matches its prefix rules against the command text as written, so the rule
// names commands that start with exactly those assignments).
func TestAssignPattern(t *testing.T) {
	tests := []struct {
		pat, cmd    string
		allow, deny bool
	}{
		{"TZ=UTC npx vitest run:*", "TZ=UTC npx vitest run", true, true},
		{"TZ=UTC npx vitest run:*", "TZ=UTC npx vitest run src/a.test.ts", true, true},
		{"TZ=UTC npx vitest run:*", "npx vitest run", false, true},
		{"TZ=UTC npx vitest run:*", "TZ=Europe/Paris npx vitest run", false, true},
		{"TZ=UTC npx vitest run:*", "TZ=UTC CI=1 npx vitest run", false, true},
		{"TZ=UTC npx vitest run:*", "CI=1 TZ=UTC npx vitest run", false, true},
		{"TZ=UTC npx vitest run:*", "TZ='UTC' npx vitest run", true, true},
		{"TZ=UTC npx vitest run:*", "TZ=$Z npx vitest run", false, true},
		{"TZ=UTC npx vitest run:*", "TZ=UTC npx jest", false, false},
		{"FOO=1 make:*", "FOO=1 make all", true, true},
		{"FOO=1 make:*", "make all", false, true},
		{"FOO=1 BAR=2 make", "FOO=1 BAR=2 make", true, true},
		{"FOO=1 BAR=2 make", "BAR=2 FOO=1 make", false, true},
		{"FOO=* make", "FOO=1 make", false, true}, // a wildcard value never approves
		{"FOO=1", "FOO=1", false, false},          // only assignments: a literal word
		{"tz=utc npx vitest:*", "TZ=UTC npx vitest", false, true},
	}
	for _, tt := range tests {
		p, err := CompilePattern(tt.pat)
		if err != nil {
			t.Fatalf("CompilePattern(%q): %v", tt.pat, err)
		}
		a := Analyze(tt.cmd, Options{Cwd: "/w"})
		if len(a.Commands) == 0 {
			if tt.allow || tt.deny {
				t.Errorf("%q: no commands", tt.cmd)
			}
			continue
		}
		c := a.Commands[0]
		if got := p.MatchAllow(c); got != tt.allow {
			t.Errorf("%q allow-match %q = %v, want %v", tt.pat, tt.cmd, got, tt.allow)
		}
		deny := false
		for _, f := range c.Forms {
			deny = deny || p.Match(f, true)
		}
		if deny != tt.deny {
			t.Errorf("%q deny-match %q = %v, want %v", tt.pat, tt.cmd, deny, tt.deny)
		}
		if p.Match(c.Words, false) && len(p.Assigns()) > 0 {
			t.Errorf("%q: Match for allow must leave assignments to MatchAllow", tt.pat)
		}
	}
	p, _ := CompilePattern("TZ=UTC LANG='C x' npx vitest:*")
	if got := p.Assigns(); len(got) != 2 || got[0] != "TZ=UTC" || got[1] != "LANG=C x" {
		t.Errorf("Assigns = %q", got)
	}
}
