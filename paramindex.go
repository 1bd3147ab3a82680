package toolgate

import (
	"slices"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/starglob"
)

// The rules of one tool name are tried one by one while they are few.
// Past paramIndexMin of them, parameter rules (key:pattern) are indexed by
// their key and by the literal value, or the literal prefix, that a value
// must have to match; a decision then tries only the rules whose key holds
// such a value or a value with such a prefix, and the rest.
//
// The index only narrows: every rule it returns is still matched in full,
// and a rule it cannot narrow (another matcher, a pattern with a leading
// star, a specifier with a second reading) is always
// returned. A rule matches only if some string form of its key's value
// matches the pattern (matchValue), and the lookup tries every such form.

// paramIndexMin is the number of rules of one tool name below which trying
// them all is cheaper than the index.
const paramIndexMin = 16

// toolRules are the rules of one exact tool name, or of one MCP server's
// literal tool.
type toolRules struct {
	all    []*crule
	params *paramIndex // past paramIndexMin rules
}

func (t *toolRules) add(r *crule) {
	t.all = append(t.all, r)
	switch {
	case len(t.all) < paramIndexMin:
	case len(t.all) == paramIndexMin:
		t.params = &paramIndex{}
		for _, r := range t.all {
			t.params.add(r)
		}
	default:
		t.params.add(r)
	}
}

// visit calls fn for every rule that could match the call's input (some
// more than once).
func (t *toolRules) visit(input jsonin.Value, fn func(r *crule)) {
	if t.params == nil {
		for _, r := range t.all {
			fn(r)
		}
		return
	}
	t.params.visit(input, fn)
}

// paramIndex indexes parameter rules by key; a policy names few keys per
// tool, so they are a list.
type paramIndex struct {
	rest []*crule
	keys []paramKey
}

// paramKey holds the indexed rules of one key and case mode.
type paramKey struct {
	key   string
	fold  bool
	exact map[string][]*crule // patterns without a star, by their text
	pre   map[string][]*crule // patterns with a literal prefix, by the prefix
	lens  []int               // the lengths of pre's keys, ascending
}

func (x *paramIndex) add(r *crule) {
	m, ok := r.m.(paramMatcher)
	if !ok || m.dual != nil {
		x.rest = append(x.rest, r)
		return
	}
	g := &m.glob
	lit, isLit := g.Literal()
	switch p := g.Prefix(); {
	case isLit:
		k := x.key(m.key, g.Fold())
		k.exact[lit] = append(k.exact[lit], r)
	case p != "":
		k := x.key(m.key, g.Fold())
		if i, found := slices.BinarySearch(k.lens, len(p)); !found {
			k.lens = slices.Insert(k.lens, i, len(p))
		}
		k.pre[p] = append(k.pre[p], r)
	default:
		x.rest = append(x.rest, r)
	}
}

func (x *paramIndex) key(key string, fold bool) *paramKey {
	for i := range x.keys {
		if k := &x.keys[i]; k.key == key && k.fold == fold {
			return k
		}
	}
	x.keys = append(x.keys, paramKey{key: key, fold: fold, exact: map[string][]*crule{}, pre: map[string][]*crule{}})
	return &x.keys[len(x.keys)-1]
}

func (x *paramIndex) visit(input jsonin.Value, fn func(r *crule)) {
	for _, r := range x.rest {
		fn(r)
	}
	for i := range x.keys {
		k := &x.keys[i]
		eachStringForm(input.Lookup(k.key), func(s string) {
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

// eachStringForm calls fn with every string matchValue may match a pattern
// against, for either case mode: a string, each element of an array (and
// theirs), the strings inside an object, the text of any other value.
func eachStringForm(v jsonin.Value, fn func(string)) {
	if !v.Exists() {
		return
	}
	switch v.Kind() {
	case jsonin.String:
		s, _ := v.Str()
		fn(s)
	case jsonin.Array:
		for i := 0; i < v.Len(); i++ {
			eachStringForm(v.Index(i), fn)
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

// str returns the text of string value v, decoding it once for the rules
// that read the same value one after another.
func (cc *callCtx) str(v jsonin.Value) string {
	if v == cc.lastStr {
		return cc.lastText
	}
	s, _ := v.Str()
	cc.lastStr, cc.lastText = v, s
	return s
}
