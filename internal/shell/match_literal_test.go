package shell

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// checkLiteral fails when matchLiteral takes a pattern and subject but
// decides otherwise than the automaton.
func checkLiteral(t *testing.T, spec string, words []Word) {
	t.Helper()
	p, err := CompilePattern(spec)
	if err != nil {
		return
	}
	for _, deny := range []bool{false, true} {
		pat := p.units
		if deny {
			pat = p.lower
		}
		got, ok := matchLiteral(pat, words, deny)
		if !ok {
			continue
		}
		if want := matchAutomaton(pat, words, deny); got != want {
			t.Fatalf("pattern %q, words %+v, deny %v: compared %v, automaton %v", spec, words, deny, got, want)
		}
	}
}

// TestMatchLiteralAgrees: on random patterns and commands over a small
// alphabet (so that they often match), the direct comparison decides as
// the automaton does whenever it applies, and it applies to most.
func TestMatchLiteralAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pieces := []string{"a", "b", "A", "ab", ":", "-x", "é", "'a b'", "''", "*", ":*", " *"}
	subj := []string{"a", "b", "A", "ab", "a:", ":", "-x", "é", "É", "a b", "", "*"}
	took := 0
	for range 20000 {
		var spec strings.Builder
		for k := range 1 + rng.IntN(4) {
			if k > 0 {
				spec.WriteByte(' ')
			}
			for range 1 + rng.IntN(2) {
				spec.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		words := make([]Word, 1+rng.IntN(4))
		for i := range words {
			v := subj[rng.IntN(len(subj))]
			if rng.IntN(3) == 0 {
				v += subj[rng.IntN(len(subj))]
			}
			words[i] = Word{Value: v, Static: rng.IntN(10) != 0}
		}
		checkLiteral(t, spec.String(), words)
		if p, err := CompilePattern(spec.String()); err == nil {
			if _, ok := matchLiteral(p.units, words, false); ok {
				took++
			}
		}
	}
	if took < 2000 {
		t.Errorf("the direct comparison applied to only %d of 20000 cases", took)
	}
}

// FuzzMatchLiteral: the direct comparison and the automaton agree.
func FuzzMatchLiteral(f *testing.F) {
	f.Add("git diff:*", "git\x00diff\x00--stat", true)
	f.Add("npm run test *", "npm\x00run\x00test", true)
	f.Add("Git Push", "git\x00PUSH", true)
	f.Fuzz(func(t *testing.T, spec, cmd string, static bool) {
		var words []Word
		for _, v := range strings.Split(cmd, "\x00") {
			words = append(words, Word{Value: v, Static: static || len(v)%2 == 0})
		}
		checkLiteral(t, spec, words)
	})
}
