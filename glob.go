package toolgate

import (
	"strings"
	"unicode/utf8"
)

// starGlob is a pattern where "*" matches any run of characters and every
// other character is literal. It is used for tool names, parameter values and
// primary fields.
type starGlob struct {
	parts []string // literal pieces between stars
	lead  bool     // pattern starts with *
	trail bool     // pattern ends with *
	fold  bool
	lit   bool // no star at all
	text  string
}

func compileStarGlob(p string, fold bool) starGlob {
	g := starGlob{fold: fold, text: p}
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

func (g *starGlob) match(s string) bool {
	if g.fold {
		s = lowerASCIIFast(s)
	}
	if g.lit {
		return s == g.parts[0]
	}
	parts := g.parts
	if len(parts) == 0 {
		return true // only stars
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

// lowerASCIIFast lowercases s, avoiding an allocation when it has no upper
// case letters. Non-ASCII text is folded with strings.ToLower.
// lookupLower returns m[lowerASCIIFast(s)] without allocating the
// lower-cased key when s is short ASCII.
func lookupLower[V any](m map[string]V, s string) (V, bool) {
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
	v, ok := m[lowerASCIIFast(s)]
	return v, ok
}

func lowerASCIIFast(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
		if 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
