// Package pathindex finds the path patterns that could match a path without
// trying every pattern, so that the cost of a path decision depends on the
// path and not on how many path rules a policy holds.
//
// A pattern can only match a path if its last named segment matches one
// component of the path, or of one of the path's spellings: a pattern that
// matches a directory matches everything below it, so that segment is still
// there. The index keys each pattern by what that segment fixes:
//
//   - a segment without wildcards ("secrets", in "**/secrets/**"): the
//     whole component;
//   - a segment with a literal end ("*.pem", "id_*.pub"): that end (up
//     to 16 characters), which the component must end with;
//   - a segment with a literal start ("secret*", ".env*"): that start
//     (up to 16 characters), which the component must begin with.
//
// Keys are folded the way deny matching folds, every rune to the smallest
// member of its Unicode simple-fold orbit, so "ſecret*" is found from
// "SECRETS" and the other way round. A pattern with nothing to key on
// ("**", "*", "*[0-9]*", brace alternatives, "..") is kept apart and offered
// for every path. The index is a filter in front of the matcher, never a
// decision: it may offer a pattern that does not match, and never leaves out
// one that does.
package pathindex

import (
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// maxAffix is the longest prefix or suffix, in runes, that keys a pattern:
// long enough that patterns sharing a common ending (*.x00042.txt) still
// get keys of their own. A component is looked up once for every key
// length the index holds.
const maxAffix = 16

// Index maps path patterns to values of type T. The zero Index is empty and
// ready to use. Add must not run concurrently with anything else; Visit may
// run concurrently with other Visits.
type Index[T any] struct {
	all  []T                          // every value, in the order added
	lit  map[string][]T               // folded whole component
	pre  [maxAffix + 1]map[string][]T // by rune length: folded first runes
	suf  [maxAffix + 1]map[string][]T // by rune length: folded last runes
	rest []T                          // offered for every path
	lens []int                        // the key lengths pre and suf hold, ascending
}

// Key is how a pattern is indexed.
type Key struct {
	// Kind is KeyLiteral, KeyPrefix, KeySuffix or KeyNone.
	Kind KeyKind
	// Text is the folded key (empty for KeyNone).
	Text string
}

// KeyKind says what part of a component a Key fixes.
type KeyKind uint8

const (
	// KeyNone: the pattern is offered for every path.
	KeyNone KeyKind = iota
	// KeyLiteral: a whole component.
	KeyLiteral
	// KeyPrefix: the first runes of a component.
	KeyPrefix
	// KeySuffix: the last runes of a component.
	KeySuffix
)

// KeyOf returns how the pattern text spec is indexed.
func KeyOf(spec string) Key {
	s := spec
	for _, p := range []string{"//", "~/", "./", "/"} {
		if strings.HasPrefix(s, p) {
			s = s[len(p):]
			break
		}
	}
	// Brace alternatives may span segments and escapes hide what a
	// character is: such patterns are not keyed. A pattern that climbs
	// with ".." need not share a segment with the path at all, and "~"
	// alone names the home directory, whose name the pattern does not
	// hold.
	if s == "" || s == "~" || strings.ContainsAny(s, "{}\\") {
		return Key{}
	}
	if s = path.Clean(s); s == "." || strings.Contains(s, "..") {
		return Key{}
	}
	// The segments, from the last: a wholly literal segment anywhere keys
	// best (the last one); failing that, the last segment that is not
	// "**", which must match a component.
	last := ""
	for rest := s; ; {
		i := strings.LastIndexByte(rest, '/')
		if seg := rest[i+1:]; seg != "" && seg != "." {
			if !strings.ContainsAny(seg, "*?[") {
				return Key{KeyLiteral, Fold(seg)}
			}
			if last == "" && seg != "**" {
				last = seg
			}
		}
		if i < 0 {
			break
		}
		rest = rest[:i]
	}
	if last == "" {
		return Key{}
	}
	head := last[:strings.IndexAny(last, "*?[")]
	tail := last[strings.LastIndexAny(last, "*?]")+1:]
	// Fold maps rune to rune, so the affix is cut before it is folded.
	switch {
	case tail != "" && utf8.RuneCountInString(tail) >= utf8.RuneCountInString(head):
		return Key{KeySuffix, Fold(lastRunes(tail, maxAffix))}
	case head != "":
		return Key{KeyPrefix, Fold(firstRunes(head, maxAffix))}
	}
	return Key{}
}

// Add indexes v under the pattern text spec.
func (ix *Index[T]) Add(spec string, v T) {
	ix.all = append(ix.all, v)
	k := KeyOf(spec)
	var m *map[string][]T
	switch k.Kind {
	case KeyLiteral:
		m = &ix.lit
	case KeyPrefix:
		m = &ix.pre[utf8.RuneCountInString(k.Text)]
	case KeySuffix:
		m = &ix.suf[utf8.RuneCountInString(k.Text)]
	default:
		ix.rest = append(ix.rest, v)
		return
	}
	if *m == nil {
		*m = map[string][]T{}
		if k.Kind != KeyLiteral {
			ix.addLen(utf8.RuneCountInString(k.Text))
		}
	}
	(*m)[k.Text] = append((*m)[k.Text], v)
}

// addLen records a key length, keeping ix.lens sorted and unique.
func (ix *Index[T]) addLen(n int) {
	i, found := slices.BinarySearch(ix.lens, n)
	if !found {
		ix.lens = slices.Insert(ix.lens, i, n)
	}
}

// Len reports how many values were added.
func (ix *Index[T]) Len() int { return len(ix.all) }

// All calls fn for every value, in the order they were added.
func (ix *Index[T]) All(fn func(T)) {
	for _, v := range ix.all {
		fn(v)
	}
}

// Visit calls fn for every value whose pattern could match p, in any of the
// spellings deny matching tries ([pathmatch.Spellings]). p is an absolute
// path, or the text of one that could not be placed (then its components
// are those written). fn may be called more than once for a value.
func (ix *Index[T]) Visit(p string, fn func(T)) {
	for _, v := range ix.rest {
		fn(v)
	}
	if len(ix.all) == len(ix.rest) {
		return
	}
	if !pathmatch.NeedsSpellings(p) {
		ix.components(p, fn)
		return
	}
	for _, s := range pathmatch.Spellings(p) {
		ix.components(s, fn)
	}
}

// components looks up every component of s (split at slashes and
// backslashes).
func (ix *Index[T]) components(s string, fn func(T)) {
	var buf [128]byte
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' && s[i] != '\\' {
			continue
		}
		c := s[start:i]
		start = i + 1
		if c == "" || c == "." || c == ".." {
			continue
		}
		ix.component(foldInto(buf[:0], c), fn)
	}
}

// component looks up one folded component.
func (ix *Index[T]) component(c string, fn func(T)) {
	for _, v := range ix.lit[c] {
		fn(v)
	}
	ascii := true
	for i := 0; i < len(c); i++ {
		if c[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	n := len(c)
	if !ascii {
		n = utf8.RuneCountInString(c)
	}
	for _, k := range ix.lens {
		if k > n {
			break
		}
		pre, suf := c[:k], c[len(c)-k:]
		if !ascii {
			pre, suf = firstRunes(c, k), lastRunes(c, k)
		}
		if m := ix.pre[k]; m != nil {
			for _, v := range m[pre] {
				fn(v)
			}
		}
		if m := ix.suf[k]; m != nil {
			for _, v := range m[suf] {
				fn(v)
			}
		}
	}
}

// Fold canonicalises s for the index: every rune becomes the smallest rune
// of its Unicode simple-fold orbit (for ASCII, the upper-case letter).
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return string(foldInto(nil, s))
		}
	}
	return strings.ToUpper(s)
}

// foldInto appends the folded s to buf and returns it as a string that
// shares buf's memory when it fits (the caller must not keep it).
func foldInto(buf []byte, s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		if len(s) > cap(buf) {
			return strings.ToUpper(s)
		}
		b := buf[:len(s)]
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			b[i] = c
		}
		return unsafeString(b)
	}
	for _, r := range s {
		buf = utf8.AppendRune(buf, foldRune(r))
	}
	return string(buf)
}

// foldRune returns the smallest rune of r's simple-fold orbit.
func foldRune(r rune) rune {
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < m {
			m = f
		}
	}
	return m
}

// firstRunes returns the first k runes of s (all of s when shorter).
func firstRunes(s string, k int) string {
	i := 0
	for n := 0; n < k && i < len(s); n++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i]
}

// lastRunes returns the last k runes of s (all of s when shorter).
func lastRunes(s string, k int) string {
	i := len(s)
	for n := 0; n < k && i > 0; n++ {
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	return s[i:]
}
