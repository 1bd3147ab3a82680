package shell

import "testing"

// TestModelParseIntoReuse: parsing into a reused argv gives what a fresh
// parse gives, and never writes into the words parsed.
func TestModelParseIntoReuse(t *testing.T) {
	cmds := [][]string{
		{"git", "diff", "--stat", "HEAD~1"},
		{"git", "-C", "x", "log", "--oneline", "-n", "5"},
		{"grep", "-rn", "--include=*.go", "TODO", "src"},
		{"ls", "-la", "--frob", "dir"},
		{"ls", "a", "b"},
		{"sed", "-n", "-e", "1p", "f"},
		{"head", "-5", "f", "--", "-x"},
	}
	var a argv
	for range 3 {
		for _, c := range cmds {
			m := lookupModel(c[0])
			if m == nil {
				t.Fatalf("no model for %s", c[0])
			}
			args := make([]wordInfo, len(c)-1)
			for i, w := range c[1:] {
				args[i] = staticWord(w)
			}
			orig := append([]wordInfo(nil), args...)
			fresh := m.parse(args)
			m.parseInto(&a, args)
			if got, want := summary(&a), summary(&fresh); got != want {
				t.Errorf("%v parsed into a reused argv: %s, fresh: %s", c, got, want)
			}
			for i := range args {
				if args[i] != orig[i] {
					t.Errorf("%v: parsing wrote into word %d", c, i)
				}
			}
		}
	}
	a.reset()
	if len(a.opts) != 0 || len(a.own) != 0 || len(a.unknown) != 0 || a.args != nil || a.ops != nil {
		t.Errorf("reset argv still holds words: %+v", a)
	}
	for _, o := range a.opts[:cap(a.opts)] {
		if o != (opt{}) {
			t.Errorf("reset argv keeps an option: %+v", o)
		}
	}
	for _, w := range a.own[:cap(a.own)] {
		if w != (wordInfo{}) {
			t.Errorf("reset argv keeps a word: %+v", w)
		}
	}
}

func summary(a *argv) string {
	s := a.name
	for _, o := range a.opts {
		s += " opt:" + o.name + "=" + o.val.Value + "," + o.val2.Value
	}
	for _, w := range a.ops {
		s += " op:" + w.Value
	}
	for _, u := range a.unknown {
		s += " unknown:" + u
	}
	if a.unsafe {
		s += " unsafe"
	}
	if a.dyn {
		s += " dyn"
	}
	return s + " rest:" + string(rune('0'+a.rest))
}
