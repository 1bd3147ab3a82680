package starglob

import (
	"regexp"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		fold   bool
		want   bool
	}{
		{"Bash", "Bash", false, true},
		{"Bash", "bash", false, false},
		{"Bash", "bash", true, true},
		{"mcp__*", "mcp__github__get", false, true},
		{"*_file", "read_file", false, true},
		{"*_file", "read_files", false, false},
		{"read_*_file", "read_many_file", false, true},
		{"a*b*c", "abc", false, true},
		{"a*b*c", "acb", false, false},
		{"a*a", "a", false, false}, // the prefix and the suffix may not overlap
		{"a*a", "aa", false, true},
		{"*", "", false, true},
		{"**", "x/y", false, true},
		{"", "", false, true},
		{"", "x", false, false},
		{"*Ü*", "xüy", true, true},
	} {
		g := Compile(tc.pat, tc.fold)
		if got := g.Match(tc.s); got != tc.want {
			t.Errorf("Compile(%q, %v).Match(%q) = %v, want %v", tc.pat, tc.fold, tc.s, got, tc.want)
		}
	}
	var zero Glob
	if !zero.Match("") || zero.Match("x") {
		t.Error("the zero Glob must match only the empty string")
	}
}

func TestLiteralPrefix(t *testing.T) {
	for _, tc := range []struct {
		pat, lit, prefix string
		isLit            bool
	}{
		{"Read", "read", "read", true},
		{"mcp__*", "", "mcp__", false},
		{"*x", "", "", false},
		{"a*b", "", "a", false},
		{"*", "", "", false},
	} {
		g := Compile(tc.pat, true)
		lit, ok := g.Literal()
		if lit != tc.lit || ok != tc.isLit || g.Prefix() != tc.prefix || g.Text() != tc.pat || !g.Fold() {
			t.Errorf("Compile(%q, true): Literal = %q, %v; Prefix = %q; Text = %q; want %q, %v; %q; %q", tc.pat, lit, ok, g.Prefix(), g.Text(), tc.lit, tc.isLit, tc.prefix, tc.pat)
		}
	}
}

func TestLower(t *testing.T) {
	m := map[string]int{"bash": 1, "ünï": 2}
	for _, tc := range []struct {
		in   string
		want int
	}{{"BASH", 1}, {"bash", 1}, {"ÜNÏ", 2}, {strings.Repeat("X", 40), 0}} {
		if got, _ := LookupLower(m, tc.in); got != tc.want {
			t.Errorf("LookupLower(%q) = %d, want %d", tc.in, got, tc.want)
		}
		if Lower(tc.in) != strings.ToLower(tc.in) {
			t.Errorf("Lower(%q) = %q", tc.in, Lower(tc.in))
		}
	}
	if n := testing.AllocsPerRun(100, func() { LookupLower(m, "BASH") }); n != 0 {
		t.Errorf("LookupLower of short ASCII allocates %v times", n)
	}
}

// FuzzMatch checks Match against a regular expression built from the
// pattern, and LookupLower against a lookup of strings.ToLower.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"a*b", "axxb"}, {"*x*", "yxy"}, {"A*", "abc"}, {"a*a", "a"}, {"**", ""}} {
		f.Add(s[0], s[1], false)
		f.Add(s[0], s[1], true)
	}
	f.Fuzz(func(t *testing.T, pat, s string, fold bool) {
		expr := "(?s)^"
		pieces := strings.Split(pat, "*")
		for i, p := range pieces {
			if fold {
				p = strings.ToLower(p)
			}
			if i > 0 {
				expr += ".*"
			}
			expr += regexp.QuoteMeta(p)
		}
		re, err := regexp.Compile(expr + "$")
		if err != nil {
			t.Skip()
		}
		subject := s
		if fold {
			subject = strings.ToLower(s)
		}
		g := Compile(pat, fold)
		if got, want := g.Match(s), re.MatchString(subject); got != want {
			t.Fatalf("Compile(%q, %v).Match(%q) = %v; the reference says %v", pat, fold, s, got, want)
		}
		m := map[string]bool{strings.ToLower(pat): true}
		if got, _ := LookupLower(m, s); got != m[strings.ToLower(s)] {
			t.Fatalf("LookupLower(%q) in {%q} = %v", s, strings.ToLower(pat), got)
		}
	})
}
