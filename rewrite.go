package toolgate

import (
	"encoding/json"
	"strings"

	"github.com/toolgate/toolgate/internal/jsondoc"
	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/internal/urlmatch"
)

type compiledRewrite struct {
	match  *crule
	set    []PointerValue
	remove []PointerRef
}

func (p *Policy) compileRewrite(rw Rewrite, l Layer) (*compiledRewrite, Diagnostics) {
	var diags Diagnostics
	r, d := p.compileRule(rw.Match, EffectDeny, l)
	if d != nil {
		return nil, Diagnostics{*d}
	}
	r.effect = 0
	for _, s := range rw.Set {
		if _, err := jsondoc.ParsePointer(s.Pointer); err != nil {
			diags.Errorf(s.Pos, "rewrite", "rewrite set %q: %v", s.Pointer, err)
		}
		if !json.Valid(s.Value) {
			diags.Errorf(s.Pos, "rewrite", "rewrite set %q: value is not valid JSON", s.Pointer)
		}
	}
	for _, s := range rw.Remove {
		if p, err := jsondoc.ParsePointer(s.Pointer); err != nil {
			diags.Errorf(s.Pos, "rewrite", "rewrite remove %q: %v", s.Pointer, err)
		} else if len(p) == 0 {
			diags.Errorf(s.Pos, "rewrite", "rewrite remove %q: cannot remove the whole input", s.Pointer)
		}
	}
	if len(rw.Set) == 0 && len(rw.Remove) == 0 {
		diags.Errorf(rw.Match.Pos, "rewrite", "rewrite for %q sets and removes nothing", rw.Match.Text)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return &compiledRewrite{match: r, set: rw.Set, remove: rw.Remove}, diags
}

// ruleMatch is how a rule bears on a whole call.
type ruleMatch struct {
	names bool   // the rule names the call's tool (or, for a Read or Edit path rule, applies to its paths)
	cross bool   // it applies only through the paths the call names
	parts int    // parts, paths or readings weighed
	hits  int    // how many of them the rule matches
	part  string // the first part it matches
}

// matches reports whether the rule matches the call as its list reads it:
// a deny-style rule (deny, ask, rewrite) if any part matches; an allow rule
// only if every part does.
func (m ruleMatch) matches(denyLike bool) bool {
	if denyLike {
		return m.hits > 0
	}
	return m.parts > 0 && m.hits == m.parts
}

// matchesCall reports whether a rule matches the whole call as its list
// reads it. It is used for rewrites and for listing matching rules; Decide
// itself weighs the parts one by one.
func (cc *callCtx) matchesCall(r *crule) bool {
	return cc.weigh(r).matches(r.effect != EffectAllow)
}

// weigh matches a rule against every part of the call. A Read deny-style
// path rule also applies to edits and to the paths shell commands name, and
// an Edit one to what shell commands write, as in Decide.
func (cc *callCtx) weigh(r *crule) ruleMatch {
	var m ruleMatch
	denyLike := r.effect != EffectAllow
	k := cc.info.Kind
	crossPath := denyLike && r.isKind && r.pathPattern() != nil &&
		(k == KindShell && (r.kind == KindRead || r.kind == KindEdit) || k == KindEdit && r.kind == KindRead)
	if denyLike {
		m.names = cc.ruleNamesTool(r)
		if !m.names && crossPath {
			m.names, m.cross = true, true
		}
	} else {
		m.names = cc.ruleNamesToolAllow(r)
	}
	if !m.names {
		return m
	}
	add := func(ok bool, part string) {
		m.parts++
		if ok {
			if m.hits == 0 {
				m.part = part
			}
			m.hits++
		}
	}
	switch k {
	case KindShell:
		s, d := cc.shellCommand()
		if d != nil {
			return m
		}
		for _, cmd := range analyze(cc, s).Commands {
			if !denyLike && (cmd.Wrapper || cmd.Delegated) {
				// Allow rules judge neither a wrapper's parts nor the
				// commands another program runs, as in Decide.
				continue
			}
			if crossPath {
				add(cc.shellPathsMatch(r, cmd), cmd.Text)
				continue
			}
			add(r.matches(cc, subject{cmd: cmd}) || cc.tailsMatch(r, cmd), cmd.Text)
		}
	case KindRead, KindList, KindSearch, KindEdit:
		items, d := cc.readPaths()
		if d != nil {
			return m
		}
		for i := range items {
			add(cc.matchPath(r, &items[i]), items[i].display())
		}
	case KindFetch:
		u, _ := cc.input.Get("url").Str()
		t, err := urlmatch.Parse(u)
		add(r.matches(cc, subject{url: &urlTarget{t, err}}), u)
	default:
		add(r.matches(cc, subject{}), "")
	}
	return m
}

// tailsMatch reports whether deny or ask rule r matches a tail of cmd, as
// offerTails offers them.
func (cc *callCtx) tailsMatch(r *crule, cmd *shell.Command) bool {
	hit := false
	eachTail(cmd, func(t tail) { hit = hit || t.matches(r) })
	return hit
}

// shellPathsMatch reports whether a Read or Edit path rule matches a path a
// shell command names: for Read, any argument, read, write or redirection
// target; for Edit, what it writes (and its arguments, when it writes).
func (cc *callCtx) shellPathsMatch(r *crule, cmd *shell.Command) bool {
	lists := [][]shell.PathRef{cmd.ArgPaths, cmd.Reads, cmd.Writes, cmd.Redirects}
	if r.kind == KindEdit {
		lists = [][]shell.PathRef{cmd.Writes, cmd.Redirects}
		if len(cmd.Writes) > 0 || cmd.MayWrite {
			lists = append(lists, cmd.ArgPaths)
		}
	}
	for _, l := range lists {
		for _, ref := range l {
			it := cc.shellPathItem(cmd, ref)
			if cc.matchPath(r, &it) {
				return true
			}
		}
	}
	return false
}

// ruleNamesTool reports whether a deny-style rule names the call's tool.
func (cc *callCtx) ruleNamesTool(r *crule) bool {
	switch {
	case r.isKind:
		return kindFamily(r.kind, cc.info.Kind)
	case r.nameGlob != nil:
		return r.nameGlob.Match(cc.tool)
	case r.mcpServer != "":
		if r.name != "" && r.name == cc.lower {
			return true
		}
		for _, sp := range cc.mcp {
			if strings.EqualFold(sp.server, r.mcpServer) && (r.mcpTool == nil || r.mcpTool.Match(sp.tool)) {
				return true
			}
		}
		return false
	}
	return r.name == cc.lower
}

// decideRewritten decides a call and, when rewrites apply, its rewritten
// form: the stricter of the two wins.
func (p *Policy) decideRewritten(cc *callCtx) Decision {
	d0 := p.decideCore(cc)
	if len(p.rewrites) == 0 || d0.Reason().Kind == KindInvalid {
		return d0
	}
	var applied []*compiledRewrite
	for _, rw := range p.rewrites {
		if cc.matchesCall(rw.match) {
			applied = append(applied, rw)
		}
	}
	if len(applied) == 0 {
		return d0
	}
	doc, err := jsondoc.Decode(cc.doc.Root().Raw())
	if err != nil {
		return Denial(KindError, "rewrite: cannot decode the input: "+err.Error())
	}
	var reasons []Reason
	for _, rw := range applied {
		for _, s := range rw.set {
			v, err := jsondoc.Decode(s.Value)
			if err != nil {
				return Denial(KindError, "rewrite: bad value for "+s.Pointer)
			}
			nd, err := jsondoc.Set(doc, s.Pointer, v)
			if err != nil {
				return Decision{Outcome: Deny, Reasons: []Reason{rw.match.reasonRewriteError("rewrite set " + s.Pointer + " cannot apply: " + err.Error())}}
			}
			doc = nd
		}
		for _, s := range rw.remove {
			nd, err := jsondoc.Remove(doc, s.Pointer)
			if err != nil {
				return Decision{Outcome: Deny, Reasons: []Reason{rw.match.reasonRewriteError("rewrite remove " + s.Pointer + " cannot apply: " + err.Error())}}
			}
			doc = nd
		}
		reasons = append(reasons, rw.match.reasonRewrite("rewrote the input"))
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return Denial(KindError, "rewrite: cannot encode the rewritten input: "+err.Error())
	}
	if jsondoc.Equal(out, cc.doc.Root().Raw()) {
		return d0
	}
	call2 := cc.call
	call2.Input = out
	cc2 := &callCtx{}
	inv := p.prepare(cc2, &call2)
	if inv != nil {
		inv.Reasons = append(inv.Reasons, reasons...)
		return *inv
	}
	d1 := p.decideCore(cc2)
	// Highest priority rewrite last: name it first.
	for i, j := 0, len(reasons)-1; i < j; i, j = i+1, j-1 {
		reasons[i], reasons[j] = reasons[j], reasons[i]
	}
	switch {
	case d0.Denied():
		return d0
	case d1.Denied():
		d1.Reasons = append(d1.Reasons, reasons...)
		return d1
	case d0.Outcome == Ask || d1.Outcome == Ask:
		a := d1
		if d0.Outcome == Ask {
			a = d0
			a.Prompt = cc2.prompt()
		}
		a.Input = out
		a.Reasons = append(a.Reasons, reasons...)
		return a
	}
	return Decision{Outcome: Modify, Input: out, Reasons: append(reasons, d1.Reasons...)}
}

func (r *crule) reasonRewrite(msg string) Reason {
	rs := r.reason(KindRule, "")
	rs.Effect = "rewrite"
	rs.Message = msg
	return rs
}

// reasonRewriteError is the reason for a rewrite that cannot apply to a
// call: an error, which denies it.
func (r *crule) reasonRewriteError(msg string) Reason {
	rs := r.reasonRewrite(msg)
	rs.Kind = KindError
	return rs
}
