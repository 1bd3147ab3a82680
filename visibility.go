package toolgate

import "strings"

// Visibility answers which tools a model is shown. [Policy] and [Engine]
// implement it.
//
// For a top-level agent only ExposeToModel counts: a tool is listed when it
// returns true. For a sub-agent (SPEC §8), a tool is listed when the
// sub-agent's own Visibility declares access to it (DeclaresToolAccess) or
// the parent lists it, and the sub-agent's own ExposeToModel does not hide
// it (package gate's SubAgent).
type Visibility interface {
	ExposeToModel(tool string) bool
	DeclaresToolAccess(tool string) bool
}

// toolCtx builds a minimal call context for questions about a tool name.
func (p *Policy) toolCtx(tool string) *callCtx {
	cc := &callCtx{c: p, call: Call{Tool: tool}, tool: tool, lower: strings.ToLower(tool), mode: p.mode}
	cc.setTool()
	if hasPrefixFold(tool, "mcp__") || cc.info.Kind == KindMCP {
		cc.splitMCP()
	}
	return cc
}

// ruleNamesToolAllow reports whether an allow rule names the tool, with
// allow's case-sensitive, unambiguous reading.
func (cc *callCtx) ruleNamesToolAllow(r *crule) bool {
	if r.noApprove {
		return false
	}
	switch {
	case r.isKind:
		return !cc.folded && kindFamily(r.kind, cc.info.Kind)
	case r.nameGlob != nil:
		return r.nameGlob.Match(cc.tool)
	case r.mcpServer != "":
		if r.name != "" && r.name == cc.tool {
			return true
		}
		for _, sp := range cc.mcpAllow {
			if sp.server == r.mcpServer && (r.mcpTool == nil || r.mcpTool.Match(sp.tool)) {
				return true
			}
		}
		return false
	}
	return r.name == cc.tool
}

// DeclaresToolAccess reports whether some allow or ask rule names the tool,
// ignoring specifiers. It does not authorise anything.
func (p *Policy) DeclaresToolAccess(tool string) bool {
	cc := p.toolCtx(tool)
	for _, rs := range []*ruleSet{p.session, p.static} {
		if rs == nil {
			continue
		}
		for _, r := range rs.allow.all {
			if cc.ruleNamesToolAllow(r) {
				return true
			}
		}
		for _, r := range rs.ask.all {
			if cc.ruleNamesTool(r) {
				return true
			}
		}
	}
	return false
}

// ExposeToModel reports whether a tool's definition should be shown to the
// model: false when a deny rule covers the whole tool, or when the default
// is deny and no allow or ask rule declares it. A disabled policy exposes
// everything.
func (p *Policy) ExposeToModel(tool string) bool {
	if !p.enabled {
		return true
	}
	cc := p.toolCtx(tool)
	for _, rs := range []*ruleSet{p.session, p.static} {
		if rs == nil {
			continue
		}
		for _, r := range rs.deny.all {
			if r.bare() && cc.ruleNamesTool(r) {
				return false
			}
		}
	}
	if p.defaultOutcome == Deny && !p.DeclaresToolAccess(tool) {
		return false
	}
	return true
}
