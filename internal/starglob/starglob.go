// Package starglob matches the patterns of tool names, parameter values and
// primary fields, where "*" stands for any run of characters (slashes
// included) and every other character is literal, and folds ASCII case
// without allocating for the lookups that go with them.
package starglob

import (
	"strings"
	"unicode/utf8"
)

// A Glob is a compiled star pattern. The zero Glob matches only "".
type Glob struct {
	parts []string // literal pieces between stars
	lead  bool     // the pattern starts with *
	trail bool     // the pattern ends with *
	fold  bool
	lit   bool // no star at all
	text  string
}

// Compile compiles pattern p. With fold, it and the strings it is matched
// against are compared case-insensitively.
func Compile(p string, fold bool) Glob {
	g := Glob{fold: fold, text: p}
	if fold {
		p = strings.ToLower(p)
	}
	if !strings.Contains(p, "*") {
		g.lit = true
		g.parts = []string{p}
		return g
	}
	g.lead = strings.HasPrefix(p, "*")
	g.trail = strings.HasSuffix(p, "*")
	for _, s := range strings.Split(p, "*") {
		if s != "" {
			g.parts = append(g.parts, s)
		}
	}
	return g
}

// Text returns the pattern as it was compiled.
func (g *Glob) Text() string { return g.text }

// Fold reports whether the pattern ignores case.
func (g *Glob) Fold() bool { return g.fold }

// Literal returns the string the pattern matches when it has no star
// (lower-cased when it folds case).
func (g *Glob) Literal() (string, bool) {
	if !g.lit {
		return "", false
	}
	return g.parts[0], true
}

// Prefix returns the literal text every match starts with (lower-cased
// when the pattern folds case): all of a literal pattern, the text before
// the first star otherwise.
func (g *Glob) Prefix() string {
	if g.lead || len(g.parts) == 0 {
		return ""
	}
	return g.parts[0]
}

// Match reports whether s matches the pattern.
func (g *Glob) Match(s string) bool {
	if g.fold {
		s = Lower(s)
	}
	if g.lit {
		return s == g.parts[0]
	}
	parts := g.parts
	if len(parts) == 0 {
		return g.lead || s == "" // only stars, or the zero Glob
	}
	if !g.lead {
		if !strings.HasPrefix(s, parts[0]) {
			return false
		}
		s = s[len(parts[0]):]
		parts = parts[1:]
	}
	if !g.trail && len(parts) > 0 {
		last := parts[len(parts)-1]
		if !strings.HasSuffix(s, last) {
			return false
		}
		s = s[:len(s)-len(last)]
		parts = parts[:len(parts)-1]
	}
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}

// Lower lower-cases s as strings.ToLower does, without allocating when s
// is ASCII with no upper-case letter.
func Lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// LookupLower returns m[Lower(s)], without allocating the lower-cased key
// when s is ASCII and at most 32 bytes long.
func LookupLower[V any](m map[string]V, s string) (V, bool) {
	var buf [32]byte
	ascii := len(s) <= len(buf)
	for i := 0; ascii && i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	if ascii {
		v, ok := m[string(buf[:len(s)])]
		return v, ok
	}
	v, ok := m[Lower(s)]
	return v, ok
}
