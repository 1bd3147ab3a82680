package toolgate

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// Path rules are indexed by one literal segment of their pattern: a path can
// only match a pattern if that segment is one of its components (a pattern
// that matches a directory also matches what lies below it, so the segment
// is still there). Keys are folded the way deny matching folds: every rune
// to the smallest member of its Unicode simple-fold orbit, so "ſecrets"
// finds the rules for "secrets". Patterns without a usable literal segment,
// and rules without a specifier, are kept in the unindexed list.

// pathKey returns the index key of a path pattern: its last segment without
// glob characters, folded; "" when there is none.
func pathKey(spec string) string {
	s := spec
	for _, p := range []string{"//", "~/", "./", "/"} {
		if strings.HasPrefix(s, p) {
			s = s[len(p):]
			break
		}
	}
	// The matcher cleans patterns; a pattern that climbs with ".." is not
	// indexed at all (its literal segments need not appear in the path).
	if s = path.Clean(s); s == "." || strings.Contains(s, "..") {
		return ""
	}
	segs := strings.Split(s, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		seg := segs[i]
		if seg == "" || seg == "." || seg == ".." || seg == "**" || strings.ContainsAny(seg, "*?[]{}\\") {
			continue
		}
		return foldKey(seg)
	}
	return ""
}

// foldKey canonicalises a component for the index.
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < m {
				m = f
			}
		}
		b.WriteRune(m)
	}
	return b.String()
}

// visitComponents calls fn for the rules indexed under the key of every
// component of p, in every spelling the deny matcher tries
// ([pathmatch.Spellings]: backslashes as separators, ":stream" suffixes and
// trailing dots and spaces dropped).
func visitComponents(p string, by map[string][]*crule, fn func(r *crule)) {
	var buf [128]byte
	emit := func(c string) {
		if len(c) <= len(buf) {
			ascii := true
			for i := 0; i < len(c); i++ {
				ch := c[i]
				if ch >= utf8.RuneSelf {
					ascii = false
					break
				}
				if 'a' <= ch && ch <= 'z' {
					ch -= 'a' - 'A'
				}
				buf[i] = ch
			}
			if ascii {
				for _, r := range by[string(buf[:len(c)])] {
					fn(r)
				}
				return
			}
		}
		for _, r := range by[foldKey(c)] {
			fn(r)
		}
	}
	split := func(s string) {
		start := 0
		for i := 0; i <= len(s); i++ {
			if i < len(s) && s[i] != '/' && s[i] != '\\' {
				continue
			}
			if c := s[start:i]; c != "" && c != "." && c != ".." {
				emit(c)
			}
			start = i + 1
		}
	}
	if !pathmatch.NeedsSpellings(p) {
		split(p)
		return
	}
	for _, s := range pathmatch.Spellings(p) {
		split(s)
	}
}

// smallPathIndex is the size below which visiting every indexed rule is
// cheaper than looking up a path's components.
const smallPathIndex = 8

// eachPathRule calls fn for every kind-name path rule of effect e for kind
// k that could match the path: unindexed rules, and indexed rules whose key
// is a component of one of its readings. With it nil, or for a glob, every
// rule is visited.
func (cc *callCtx) eachPathRule(e Effect, k Kind, it *pathItem, fn func(r *crule)) {
	for _, rs := range [2]*ruleSet{cc.c.session, cc.c.static} {
		if rs == nil {
			continue
		}
		ix := rs.of(e)
		for _, r := range ix.byKind[k] {
			fn(r)
		}
		all := ix.pathAll[k]
		if len(all) == 0 {
			continue
		}
		if it == nil || it.glob {
			for _, r := range all {
				fn(r)
			}
			continue
		}
		if len(all) <= smallPathIndex {
			for _, r := range all {
				if it.mayHoldKey(r.pathKey) {
					fn(r)
				}
			}
			continue
		}
		by := ix.pathBy[k]
		if !it.placed {
			visitComponents(it.text, by, fn)
			continue
		}
		for _, f := range it.forms() {
			visitComponents(f, by, fn)
		}
	}
}

// mayHoldKey reports whether one of the path's readings could have key as a
// component: always for a path that could not be placed or that holds
// non-ASCII text (Unicode folding is left to the matcher), otherwise
// whether key occurs in it, ignoring ASCII case. A cheap filter in front of
// the matcher, never a decision.
func (it *pathItem) mayHoldKey(key string) bool {
	if !it.placed {
		return true // matched against placements below the working directory too
	}
	for _, f := range it.forms() {
		if containsFoldASCII(f, key) {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether upper (an ASCII key in upper case)
// occurs in s ignoring ASCII case; true for any s or key holding a byte
// outside ASCII.
func containsFoldASCII(s, upper string) bool {
	for i := 0; i < len(upper); i++ {
		if upper[i] >= utf8.RuneSelf {
			return true
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	n := len(upper)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for ; j < n; j++ {
			c := s[i+j]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c != upper[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
