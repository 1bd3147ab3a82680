// Package wordindex narrows shell rules to those a command could match, by
// the literal words their patterns start with: rules are kept by their
// literal first word and, where many share it, again by the word that
// follows (git log, npm run test), up to MaxWords deep, so that many rules
// under one command do not make every call of it slow.
//
// The index only narrows: every rule it returns must still be matched in
// full by the caller.
package wordindex

import "github.com/toolgate/toolgate/internal/starglob"

// MaxWords is how many leading words of a rule are indexed.
const MaxWords = 4

// minRules is the number of rules sharing leading words below which trying
// them all is cheaper than indexing them again.
const minRules = 8

// A Key is what the index needs of one form of a command: its first N
// static words, and whether the form goes on past them with a word that is
// not static ASCII (Open), which may stand for any literal word.
type Key struct {
	Words [MaxWords]string
	N     int
	Open  bool
}

// An Index holds rules of type R. The zero Index is empty and ready to use.
type Index[R any] struct {
	first map[string]*node[R]
	any   []R // rules without a literal first word
}

// node holds the rules that share their first depth literal words. Past
// minRules of them they are indexed again by the next word.
type node[R any] struct {
	depth int
	all   []R                 // every rule here
	rest  []R                 // past minRules: rules with no literal word at depth
	by    map[string]*node[R] // past minRules: the others, by that word
}

// Words returns a rule's literal leading words; the first is the one it was
// added under. The index asks for them only when rules under one word
// become many, so a caller may compute them lazily.
type Words[R any] func(R) []string

// Add adds rule r under its literal first word (lower-cased for a rule
// matched case-insensitively), or among the rules every command is offered
// when first is "".
func (x *Index[R]) Add(r R, first string, words Words[R]) {
	if first == "" {
		x.any = append(x.any, r)
		return
	}
	if x.first == nil {
		x.first = map[string]*node[R]{}
	}
	n := x.first[first]
	if n == nil {
		n = &node[R]{depth: 1}
		x.first[first] = n
	}
	n.add(r, words)
}

func (n *node[R]) add(r R, words Words[R]) {
	n.all = append(n.all, r)
	switch {
	case len(n.all) < minRules:
	case len(n.all) == minRules:
		for _, r := range n.all {
			n.index(r, words)
		}
	default:
		n.index(r, words)
	}
}

func (n *node[R]) index(r R, words Words[R]) {
	ws := words(r)
	if len(ws) <= n.depth {
		n.rest = append(n.rest, r)
		return
	}
	w := ws[n.depth]
	if n.by == nil {
		n.by = map[string]*node[R]{}
	}
	child := n.by[w]
	if child == nil {
		child = &node[R]{depth: n.depth + 1}
		n.by[w] = child
	}
	child.add(r, words)
}

// Visit calls fn for the rules that a command with one of keys could
// match: those whose literal words some key has, all of them past a word
// of a key that is not known, and the rules without a literal first word.
// With fold, the keys' words are lower-cased first, as the rules of a
// case-insensitive list were.
func (x *Index[R]) Visit(keys []Key, fold bool, fn func(R)) {
	x.Under(keys, fold, fn)
	for _, r := range x.any {
		fn(r)
	}
}

// Under calls fn for the rules Visit offers a command with one of keys,
// but not the rules without a literal first word.
func (x *Index[R]) Under(keys []Key, fold bool, fn func(R)) {
	for i := range keys {
		k := &keys[i]
		first := k.Words[0]
		if fold {
			first = starglob.Lower(first)
		}
		if n := x.first[first]; n != nil {
			n.visit(k, fold, fn)
		}
	}
}

// All calls fn for every rule, for a command whose name is not known.
func (x *Index[R]) All(fn func(R)) {
	for _, n := range x.first {
		for _, r := range n.all {
			fn(r)
		}
	}
	for _, r := range x.any {
		fn(r)
	}
}

func (n *node[R]) visit(k *Key, fold bool, fn func(R)) {
	if len(n.all) < minRules {
		for _, r := range n.all {
			fn(r)
		}
		return
	}
	if n.depth >= k.N {
		if k.Open {
			for _, r := range n.all {
				fn(r)
			}
			return
		}
		// The command has no more words: only rules that need none.
		for _, r := range n.rest {
			fn(r)
		}
		return
	}
	for _, r := range n.rest {
		fn(r)
	}
	w := k.Words[n.depth]
	if fold {
		w = starglob.Lower(w)
	}
	if child := n.by[w]; child != nil {
		child.visit(k, fold, fn)
	}
}
