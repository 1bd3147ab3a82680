// Package paramindex narrows the parameter rules (key:pattern) of one tool
// to those that could match a call's input: rules are kept by their key and
// by the literal value, or the literal prefix, that a value must have to
// match, so a lookup tries only the rules whose key holds such a value or a
// value with such a prefix, and the rest.
//
// The index only narrows: every rule it returns must still be matched in
// full by the caller, and a rule it cannot narrow (added with AddRest, or a
// pattern with a leading star) is always returned.
package paramindex

import (
	"slices"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/starglob"
)

// An Index holds rules of type R. The zero Index is empty and ready to use.
type Index[R any] struct {
	rest []R
	keys []key[R]
}

// key holds the indexed rules of one key and case mode.
type key[R any] struct {
	name  string
	fold  bool
	exact map[string][]R // patterns without a star, by their text
	pre   map[string][]R // patterns with a literal prefix, by the prefix
	lens  []int          // the lengths of pre's keys, ascending
}

// Add adds rule r, which matches when some string form (EachStringForm) of
// the value at input key k matches glob g.
func (x *Index[R]) Add(r R, k string, g *starglob.Glob) {
	lit, isLit := g.Literal()
	switch p := g.Prefix(); {
	case isLit:
		kx := x.key(k, g.Fold())
		kx.exact[lit] = append(kx.exact[lit], r)
	case p != "":
		kx := x.key(k, g.Fold())
		if i, found := slices.BinarySearch(kx.lens, len(p)); !found {
			kx.lens = slices.Insert(kx.lens, i, len(p))
		}
		kx.pre[p] = append(kx.pre[p], r)
	default:
		x.rest = append(x.rest, r)
	}
}

// AddRest adds a rule the index cannot narrow: every Visit returns it.
func (x *Index[R]) AddRest(r R) { x.rest = append(x.rest, r) }

func (x *Index[R]) key(name string, fold bool) *key[R] {
	for i := range x.keys {
		if k := &x.keys[i]; k.name == name && k.fold == fold {
			return k
		}
	}
	x.keys = append(x.keys, key[R]{name: name, fold: fold, exact: map[string][]R{}, pre: map[string][]R{}})
	return &x.keys[len(x.keys)-1]
}

// Visit calls fn for every rule that could match input, some of them more
// than once: the rules added with AddRest, and those whose key holds a
// string form equal to their literal or starting with their prefix.
func (x *Index[R]) Visit(input jsonin.Value, fn func(R)) {
	for _, r := range x.rest {
		fn(r)
	}
	for i := range x.keys {
		k := &x.keys[i]
		EachStringForm(input.Lookup(k.name), func(s string) {
			if k.fold {
				s = starglob.Lower(s)
			}
			for _, r := range k.exact[s] {
				fn(r)
			}
			for _, n := range k.lens {
				if n > len(s) {
					break
				}
				for _, r := range k.pre[s[:n]] {
					fn(r)
				}
			}
		})
	}
}

// EachStringForm calls fn with every string a parameter pattern is matched
// against: a string, each element of an array (and theirs), the strings
// inside an object, the text of any other value. A missing value has none.
func EachStringForm(v jsonin.Value, fn func(string)) {
	if !v.Exists() {
		return
	}
	switch v.Kind() {
	case jsonin.String:
		s, _ := v.Str()
		fn(s)
	case jsonin.Array:
		for i := 0; i < v.Len(); i++ {
			EachStringForm(v.Index(i), fn)
		}
	case jsonin.Object:
		v.Strings(func(s string) bool {
			fn(s)
			return true
		})
	default:
		fn(v.Text())
	}
}
