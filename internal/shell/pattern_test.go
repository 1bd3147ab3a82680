package shell

import (
	"errors"
	"slices"
	"testing"
)

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		pat, cmd string
		allow    bool // allow reading matches
		deny     bool // deny reading matches
	}{
		{"npm run build", "npm run build", true, true},
		{"npm run build", "npm  run   'build'", true, true},
		{"npm run build", "npm run build:prod", false, false},
		{"npm run build", "npm run", false, false},
		{"ls *", "ls", true, true},
		{"ls *", "ls -la", true, true},
		{"ls *", "lsof", false, false},
		{"rm:*", "rm -rf x", true, true},
		{"rm:*", "rm", true, true},
		{"rm:*", "rmdir x", false, false},
		{"npm run test:*", "npm run test", true, true},
		{"npm run test:*", "npm run test --watch", true, true},
		{"npm run test:*", "npm run test:unit", false, false},
		{"npm run test *", "npm run test -- x", true, true},
		{"git commit*", "git commit", true, true},
		{"git commit*", "git commit-tree", true, true},
		{"git commit*", "git commit -m x", true, true},
		{"git * main", "git push origin main", true, true},
		{"git * main", "git push origin dev", false, false},
		{"a:b", "a:b", true, true},
		{"a:b", "a b", false, false},
		{"echo 'a b'", "echo 'a b'", true, true},
		{"echo 'a b'", "echo a b", false, false},
		{"echo a b", "echo 'a b'", false, false},
		{"echo '*'", "echo '*'", true, true},
		{"echo '*'", "echo x", false, false},
		{`echo \*`, "echo x", false, false},
		{"echo \"a*\"", "echo a*", true, true},
		{"grep -E 'a|b' *", "grep -E 'a|b' file", true, true},
		{`find . -name x -exec rm {} \;`, `find . -name x -exec rm {} ';'`, true, true},
		{"Git Push", "git push", false, true},
		{"git push", "GIT PUSH", false, true},
		{"git push --force:*", "git push $F", false, true},
		{"git push --force", "git push $F", false, true},
		{"git push *", "git push $F", true, true},
		{"git push:*", "git push $F", true, true},
		{"git push x", "git push $F", false, true},
		{"rm:*", "$X -rf /", false, true},
		{"*", "anything at all", true, true},
		{"*", "$X", true, true},
		{"echo *", "echo $(date)", true, true},
		{"curl * | sh", "", false, false}, // does not compile; see errors
	}
	for _, tt := range tests {
		p, err := CompilePattern(tt.pat)
		if err != nil {
			continue
		}
		a := Analyze(tt.cmd, Options{Cwd: "/w"})
		if len(a.Commands) == 0 {
			t.Fatalf("%q: no commands", tt.cmd)
		}
		ws := a.Commands[0].Words
		if got := p.Match(ws, false); got != tt.allow {
			t.Errorf("%q allow-match %q = %v, want %v", tt.pat, tt.cmd, got, tt.allow)
		}
		if got := p.Match(ws, true); got != tt.deny {
			t.Errorf("%q deny-match %q = %v, want %v", tt.pat, tt.cmd, got, tt.deny)
		}
	}
}

func TestPatternForms(t *testing.T) {
	// Deny rules see every form.
	p, _ := CompilePattern("git push:*")
	a := Analyze("sudo /usr/bin/git -c a=b push --force", Options{})
	hit := false
	for _, f := range a.Commands[0].Forms {
		hit = hit || p.Match(f, true)
	}
	if !hit {
		t.Error("git push:* does not see sudo /usr/bin/git -c a=b push")
	}
	if p.Match(a.Commands[0].Words, false) {
		t.Error("allow reading matched through sudo")
	}
	// xargs needs a trailing wildcard for allow.
	a = Analyze("ls | xargs cat", Options{})
	exact, _ := CompilePattern("cat")
	wild, _ := CompilePattern("cat *")
	if exact.Match(a.Commands[1].Words, false) || !wild.Match(a.Commands[1].Words, false) {
		t.Error("xargs reading wrong")
	}
}

func TestPatternErrors(t *testing.T) {
	tests := []struct {
		spec   string
		offset int
	}{
		{"", 0},
		{"   ", 0},
		{"curl x | sh", 7},
		{"a; b", 1},
		{"a && b", 2},
		{"a || b", 2},
		{"a &", 2},
		{"a\nb", 1},
		{"echo x > f", 7},
		{"cat < f", 4},
		{"echo x >> f", 7},
		{"echo # c", 5},
	}
	for _, tt := range tests {
		_, err := CompilePattern(tt.spec)
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("%q: err = %v, want PatternError", tt.spec, err)
			continue
		}
		if pe.Offset != tt.offset {
			t.Errorf("%q: offset = %d, want %d (%v)", tt.spec, pe.Offset, tt.offset, pe)
		}
	}
	for _, ok := range []string{"grep -E 'a|b' *", `find . -exec rm {} \;`, "echo '>'", `echo \|`, "a:*", "git commit*"} {
		if _, err := CompilePattern(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestPatternWildcard(t *testing.T) {
	for spec, want := range map[string]bool{"ls": false, "ls *": true, "rm:*": true, "echo '*'": false, `echo \*`: false, "a*b": true} {
		p, err := CompilePattern(spec)
		if err != nil {
			t.Fatal(err)
		}
		if p.HasWildcard() != want {
			t.Errorf("%q: HasWildcard = %v", spec, !want)
		}
		if p.String() != spec {
			t.Errorf("String = %q", p.String())
		}
	}
}

func TestLeadingWords(t *testing.T) {
	for _, tc := range []struct {
		spec string
		deny bool
		want []string
	}{
		{"git push --force:*", false, []string{"git", "push"}},
		{"git push:*", false, []string{"git", "push"}},
		{"git:*", false, []string{"git"}},
		{"git *", false, []string{"git"}},
		{"git log*", false, []string{"git"}},
		{"Git Log", false, []string{"Git", "Log"}},
		{"Git Log", true, []string{"git", "log"}},
		{"npm run test:*", false, []string{"npm", "run"}},
		{"'npm' run", false, []string{"npm", "run"}},
		{"*", false, nil},
		{"g*t status", false, nil},
		{"FOO=1 make:*", false, nil},
		{"café status", false, nil},
		{"git café", false, []string{"git"}},
		{"rm -rf:*", true, []string{"rm"}},
		{"rm -rf:*", false, []string{"rm", "-rf"}},
		{"git push -f:*", true, []string{"git", "push"}},
	} {
		p, err := CompilePattern(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if got := p.LeadingWords(tc.deny, 2); !slices.Equal(got, tc.want) {
			t.Errorf("LeadingWords(%q, deny=%v) = %q, want %q", tc.spec, tc.deny, got, tc.want)
		}
	}
}
