package visible

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"git status", "git status"},
		{"héllo wörld ✓ 日本", "héllo wörld ✓ 日本"},
		{"a\nb\tc", `a\nb\tc`},
		{"evil\x1b[2J", `evil\u001b[2J`},
		{"cat \u202egnp.exe", `cat \u202egnp.exe`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"nb\u00a0sp", `nb\u00a0sp`},
		{"line\u2028sep", `line\u2028sep`},
		{"private\ue000use", `private\ue000use`},
		{"plane15\U000f0000", `plane15\U000f0000`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"bad\xffbyte", `bad\ufffdbyte`},
		{"repl\ufffd", `repl\ufffd`},
		{"del\x7f", `del\u007f`},
		{"nul\x00", `nul\u0000`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscapeNoAlloc(t *testing.T) {
	s := "git diff --stat HEAD~1 -- ünïcode"
	if n := testing.AllocsPerRun(100, func() { _ = Escape(s) }); n != 0 {
		t.Errorf("Escape of plain text allocates %v times", n)
	}
}

// FuzzEscape checks that the escaped text holds no hidden character, no
// line break and no byte that is not UTF-8, and that text needing no
// escape comes back unchanged.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"ls -la", "a\u202eb", "\xff\xfe", "x\ttab\n", "\U0010ffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		if !utf8.ValidString(e) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, e)
		}
		for _, r := range e {
			if hidden(r) || r == '\n' || r == '\t' {
				t.Fatalf("Escape(%q) = %q still holds %U", s, e, r)
			}
		}
		clean := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return hidden(r) || r == '\n' || r == '\t' })
		if clean && e != s {
			t.Fatalf("Escape(%q) = %q changed text that needed no escape", s, e)
		}
	})
}
