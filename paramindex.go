package toolgate

import (
	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/paramindex"
)

// The rules of one tool name are tried one by one while they are few.
// Past paramIndexMin of them, parameter rules (key:pattern) are kept in a
// paramindex.Index by their key and by the literal value, or the literal
// prefix, that a value must have to match; a decision then tries only the
// rules whose key holds such a value or a value with such a prefix, and
// the rest.
//
// The index only narrows: every rule it returns is still matched in full,
// and a rule it cannot narrow (another matcher, a pattern with a leading
// star, a specifier with a second reading) is always returned. A rule
// matches only if some string form of its key's value matches the pattern
// (matchValue), and the lookup tries every such form
// (paramindex.EachStringForm).

// paramIndexMin is the number of rules of one tool name below which trying
// them all is cheaper than the index.
const paramIndexMin = 16

// toolRules are the rules of one exact tool name, or of one MCP server's
// literal tool.
type toolRules struct {
	all    []*crule
	params *paramindex.Index[*crule] // past paramIndexMin rules
}

func (t *toolRules) add(r *crule) {
	t.all = append(t.all, r)
	switch {
	case len(t.all) < paramIndexMin:
	case len(t.all) == paramIndexMin:
		t.params = &paramindex.Index[*crule]{}
		for _, r := range t.all {
			addParamRule(t.params, r)
		}
	default:
		addParamRule(t.params, r)
	}
}

// addParamRule indexes r by its parameter key and glob when it is a plain
// parameter rule.
func addParamRule(x *paramindex.Index[*crule], r *crule) {
	if m, ok := r.m.(paramMatcher); ok && m.dual == nil {
		x.Add(r, m.key, &m.glob)
		return
	}
	x.AddRest(r)
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
	t.params.Visit(input, fn)
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
