package pathmatch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of one token of a glob segment.
type tokKind uint8

const (
	tLit   tokKind = iota + 1 // one literal rune
	tAny                      // ?
	tStar                     // *
	tClass                    // [...]
)

type token struct {
	kind tokKind
	r    rune   // tLit
	cls  *class // tClass
}

// class is a bracket expression.
type class struct {
	negated bool
	ranges  []runeRange
	named   []func(rune) bool
}

type runeRange struct{ lo, hi rune }

func (c *class) has(r rune) bool {
	for _, rg := range c.ranges {
		if rg.lo <= r && r <= rg.hi {
			return true
		}
	}
	for _, f := range c.named {
		if f(r) {
			return true
		}
	}
	return false
}

// match reports whether r matches the class. With fold, it matches when any
// case form of r does — so a folded class accepts everything the exact class
// accepts, negated or not.
func (c *class) match(r rune, fold bool) bool {
	if c.has(r) != c.negated {
		return true
	}
	if !fold {
		return false
	}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if c.has(f) != c.negated {
			return true
		}
	}
	return false
}

var namedClasses = map[string]func(rune) bool{
	"alpha":  unicode.IsLetter,
	"digit":  func(r rune) bool { return '0' <= r && r <= '9' },
	"alnum":  func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) },
	"upper":  unicode.IsUpper,
	"lower":  unicode.IsLower,
	"space":  unicode.IsSpace,
	"blank":  func(r rune) bool { return r == ' ' || r == '\t' },
	"punct":  unicode.IsPunct,
	"xdigit": func(r rune) bool { return strings.ContainsRune("0123456789abcdefABCDEF", r) },
	"word":   func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) },
	"print":  unicode.IsPrint,
	"graph":  unicode.IsGraphic,
	"cntrl":  unicode.IsControl,
}

// segKind is the kind of one path segment of a pattern.
type segKind uint8

const (
	sLit   segKind = iota + 1 // a literal name
	sGlob                     // a name with wildcards
	sDStar                    // ** — zero or more whole components
)

type seg struct {
	kind segKind
	lit  string  // sLit: the unescaped name
	toks []token // sGlob
	// sGlob fast paths: a "*" then an ASCII literal ("*.pem"), or an ASCII
	// literal then a "*" ("id_*"), the literal in fix.
	shape uint8
	fix   string
}

const (
	shapeSuffix uint8 = iota + 1 // *fix
	shapePrefix                  // fix*
)

// setShape fills in the fast-path shape of a glob segment.
func (s *seg) setShape() {
	n := len(s.toks)
	if n < 2 {
		return
	}
	var lits []token
	switch {
	case s.toks[0].kind == tStar:
		s.shape, lits = shapeSuffix, s.toks[1:]
	case s.toks[n-1].kind == tStar:
		s.shape, lits = shapePrefix, s.toks[:n-1]
	default:
		return
	}
	for _, t := range lits {
		if t.kind != tLit || t.r >= utf8.RuneSelf {
			s.shape = 0
			return
		}
	}
	var b strings.Builder
	b.Grow(len(lits))
	for _, t := range lits {
		b.WriteByte(byte(t.r))
	}
	s.fix = b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// match reports whether the path component c matches the segment (never
// called for sDStar).
func (s *seg) match(c string, fold bool) bool {
	if s.kind == sLit {
		if fold {
			return strings.EqualFold(s.lit, c)
		}
		return s.lit == c
	}
	if s.shape != 0 && (!fold || isASCII(c)) {
		if len(c) < len(s.fix) {
			return false
		}
		part := c[:len(s.fix)]
		if s.shape == shapeSuffix {
			part = c[len(c)-len(s.fix):]
		}
		if fold {
			return strings.EqualFold(part, s.fix)
		}
		return part == s.fix
	}
	return matchToks(s.toks, c, fold)
}

// matchToks matches a glob segment against one component with the classic
// linear backtracking to the last star.
func matchToks(toks []token, s string, fold bool) bool {
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for {
		if ti < len(toks) && toks[ti].kind == tStar {
			starTi, starSi = ti, si
			ti++
			continue
		}
		if ti == len(toks) && si == len(s) {
			return true
		}
		if ti < len(toks) && si < len(s) {
			r, w := decodeRune(s, si)
			t := &toks[ti]
			ok := false
			switch t.kind {
			case tAny:
				ok = true
			case tLit:
				ok = t.r == r || (fold && runeEqualFold(t.r, r))
			case tClass:
				ok = t.cls.match(r, fold)
			}
			if ok {
				ti++
				si += w
				continue
			}
		}
		if starTi < 0 || starSi >= len(s) {
			return false
		}
		_, w := decodeRune(s, starSi)
		starSi += w
		ti, si = starTi+1, starSi
	}
}

func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func runeEqualFold(a, b rune) bool {
	if a == b {
		return true
	}
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		return lowerASCII(byte(a)) == lowerASCII(byte(b))
	}
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// foldRune returns a canonical case form of r, so that foldRune(a) ==
// foldRune(b) exactly when runeEqualFold(a, b): the smallest rune of its
// simple-folding orbit, lower-cased when that is ASCII (so the Kelvin sign
// folds to "k", as "K" does).
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return rune(lowerASCII(byte(r)))
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	if m < utf8.RuneSelf {
		return rune(lowerASCII(byte(m)))
	}
	return m
}

// foldString returns s with every rune in its canonical case form. It does
// not allocate when s is ASCII without upper-case letters.
func foldString(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.Map(foldRune, s)
		}
	}
	return s
}

// literalPrefix and literalSuffix return the runes a glob segment's matches
// must start and end with.
func literalPrefix(toks []token) []rune {
	var out []rune
	for _, t := range toks {
		if t.kind != tLit {
			break
		}
		out = append(out, t.r)
	}
	return out
}

func literalSuffix(toks []token) []rune {
	var out []rune
	for i := len(toks) - 1; i >= 0 && toks[i].kind == tLit; i-- {
		out = append(out, toks[i].r) // reversed
	}
	return out
}

// runesCompatible reports whether one rune sequence is a prefix of the other.
func runesCompatible(a, b []rune, fold bool) bool {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] && !(fold && runeEqualFold(a[i], b[i])) {
			return false
		}
	}
	return true
}
