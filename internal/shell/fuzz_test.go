package shell

import (
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze checks that Analyze never panics, and that any word quoted by
// syntax.Quote reads back as exactly that one static word.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"", "a b", "$(rm -rf /)", "'", "\x01\xff", "~", "*", "if", "a=b", "{a,b}", "--x=@y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = Analyze(s, Options{Cwd: "/w", Home: "/h"})
		q, err := syntax.Quote(s, syntax.LangBash)
		if err != nil {
			return
		}
		a := Analyze("echo "+q, Options{Cwd: "/w", Home: "/h"})
		if len(a.Commands) != 1 {
			t.Fatalf("echo %s: %d commands", q, len(a.Commands))
		}
		c := a.Commands[0]
		if c.Unanalysable != "" || len(a.Unanalysable) > 0 {
			t.Fatalf("echo %s: unanalysable: %q %+v", q, c.Unanalysable, a.Unanalysable)
		}
		if len(c.Words) != 2 || c.Words[0] != (Word{"echo", true}) || c.Words[1] != (Word{s, true}) {
			t.Fatalf("echo %s: words = %+v, want [echo %q]", q, c.Words, s)
		}
	})
}

// FuzzPattern checks that CompilePattern never panics and keeps the spec.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"npm run test:*", "ls *", "a | b", "'*'", "git push $F", "\\;"} {
		f.Add(s, "git push --force")
	}
	f.Fuzz(func(t *testing.T, spec, cmd string) {
		p, err := CompilePattern(spec)
		if err != nil {
			return
		}
		if p.String() != spec {
			t.Fatalf("String() = %q, want %q", p.String(), spec)
		}
		a := Analyze(cmd, Options{})
		for _, c := range a.Commands {
			for _, f := range c.Forms {
				// Deny widens: whatever allow matches, deny matches.
				if p.Match(f, false) && !p.Match(f, true) {
					t.Fatalf("%q matches %+v for allow but not for deny", spec, f)
				}
			}
		}
	})
}
