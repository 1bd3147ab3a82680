package toolgate

import "github.com/toolgate/toolgate/internal/pathindex"

// Path rules of each kind are kept in a pathindex.Index: a path is offered
// only the rules whose pattern could match one of its components (by a
// literal segment, or by the folded start or end of the pattern's last
// segment), plus the few patterns with nothing to key on. Rules of a kind
// without a specifier (a bare Read) are in byKind and always offered.

// smallPathIndex is the size below which offering every path rule is
// cheaper than looking up a path's components.
const smallPathIndex = 8

// eachPathRule calls fn for every kind-name path rule of effect e for kind
// k that could match the path. With it nil, or for a glob, every rule is
// visited.
func (cc *callCtx) eachPathRule(e Effect, k Kind, it *pathItem, fn func(r *crule)) {
	for _, rs := range [2]*ruleSet{cc.c.session, cc.c.static} {
		if rs == nil {
			continue
		}
		ix := rs.of(e)
		for _, r := range ix.byKind[k] {
			fn(r)
		}
		paths := &ix.paths[k]
		switch {
		case paths.Len() == 0:
		case it == nil || it.glob || paths.Len() <= smallPathIndex:
			paths.All(fn)
		case !it.placed:
			paths.Visit(it.text, fn)
		default:
			for _, f := range it.forms() {
				paths.Visit(f, fn)
			}
		}
	}
}

// pathRules is the index of one kind's path rules.
type pathRules = pathindex.Index[*crule]
