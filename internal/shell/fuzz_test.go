package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze checks that Analyze never panics, that an Analysis reused
// with AnalyzeInto reports what a fresh one does, and that any word quoted
// by syntax.Quote reads back as exactly that one static word.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"", "a b", "$(rm -rf /)", "'", "\x01\xff", "~", "*", "if", "a=b", "{a,b}", "--x=@y", "echo $\\\n(rm x)", "\"$\\\n{HOME}\"", "'$\\\n'\\\n",
		"ssh -J j h 'ls; rm x'", "docker --context c run --frob -e A=1 -it img rm -rf /", "npx -c 'a && b'", "kubectl exec p rm x",
		"f=.env; g=$f; x=(a $g); for y in \"${x[@]}\"; do cat $y; done", "history -s 'rm x'; fc -s", "python3 -c 'os.system(\"rm x\")'", "tmux -L s new -d 'a; b'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fresh := Analyze(s, Options{Cwd: "/w", Home: "/h"})
		// The same string analysed into an Analysis that held another.
		var res Analysis
		AnalyzeInto(&res, "git status && cat a b > c; for x in 1 2; do echo $x; done", Options{Cwd: "/w", Home: "/h"})
		AnalyzeInto(&res, s, Options{Cwd: "/w", Home: "/h"})
		if got, want := render(&res), render(fresh); got != want {
			t.Fatalf("%q analysed into a reused Analysis:\n%s\nfresh:\n%s", s, got, want)
		}
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

// FuzzLeadingWords checks the promise an index relies on: a pattern
// matches a command whose words are static ASCII only when the command
// begins with the pattern's leading words.
func FuzzLeadingWords(f *testing.F) {
	for _, s := range [][2]string{
		{"git push --force:*", "git push -f origin"},
		{"rm -rf:*", "rm -r -f x"},
		{"Git Log", "git log"},
		{"npm run test:*", "npm run test:unit"},
		{"git:*", "git"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, spec, cmd string) {
		p, err := CompilePattern(spec)
		if err != nil {
			return
		}
		a := Analyze(cmd, Options{Cwd: "/p", Home: "/h"})
		for _, c := range a.Commands {
			for _, form := range c.Forms {
				for _, deny := range []bool{false, true} {
					if !p.Match(form, deny) || !staticASCII(form) {
						continue
					}
					lead := p.LeadingWords(deny, 4)
					for i, w := range lead {
						if i >= len(form) {
							t.Fatalf("pattern %q (deny=%v) matches %v but its leading words are %q", spec, deny, form, lead)
						}
						got := form[i].Value
						if deny {
							got = strings.ToLower(got)
						}
						if got != w {
							t.Fatalf("pattern %q (deny=%v) matches %v but its leading words are %q", spec, deny, form, lead)
						}
					}
				}
			}
		}
	})
}

func staticASCII(ws []Word) bool {
	for _, w := range ws {
		if !w.Static {
			return false
		}
		for i := 0; i < len(w.Value); i++ {
			if w.Value[i] >= 0x80 {
				return false
			}
		}
	}
	return true
}

// FuzzDelegatedForms checks that a command run through a program that runs
// commands for its caller (ssh, docker exec, tmux, npm exec -c, at,
// nodemon, and programs the model does not know) keeps every form deny
// rules would see in the command alone.
func FuzzDelegatedForms(f *testing.F) {
	for _, s := range []string{"rm -rf x", "git push --force", "ls; curl x | sh", "a && b || c", "cd x && rm y", "f=1; echo $f", "echo 'a b'"} {
		f.Add(s)
	}
	wrappers := []string{"ssh h %s", "docker exec c sh -c %s", "tmux new -d %s", "npm exec -c %s", "at now <<< %s", "nodemon --exec %s", "bwrap --bind / / sh -c %s", "./tools/run.sh env bash -c %s"}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 || strings.ContainsAny(s, "\r\x00") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") || strings.HasSuffix(s, "\\") {
			// sh -c -x reads an option, not a script; a here-string ends
			// in a newline, which a final backslash joins.
			return
		}
		alone := Analyze(s, Options{Cwd: "/w", Home: "/h"})
		if len(alone.Unanalysable) > 0 || len(alone.Commands) > 20 {
			return // a parse error or a limit: what deny reads is repaired text
		}
		want := map[string]bool{}
		for _, c := range alone.Commands {
			if c.Unanalysable != "" {
				return
			}
			for _, fs := range formsStrings(c) {
				want[fs] = true
			}
		}
		q, err := syntax.Quote(s, syntax.LangBash)
		if err != nil {
			return
		}
		for _, w := range wrappers {
			src := strings.Replace(w, "%s", q, 1)
			got := map[string]bool{}
			for _, c := range Analyze(src, Options{Cwd: "/w", Home: "/h"}).Commands {
				for _, fs := range formsStrings(c) {
					got[fs] = true
				}
			}
			for fs := range want {
				if !got[fs] {
					t.Fatalf("%s: no form %q, which %q alone has", src, fs, s)
				}
			}
		}
	})
}
