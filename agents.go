package toolgate

// agentEntry is a compiled sub-agent policy (SPEC §8): it can only tighten.
type agentEntry struct {
	rules         *ruleSet // deny and ask rules; allow rules only widen visibility
	allowNames    []*crule
	def, defRO    *Outcome
	mode          *Mode
	hasRules      bool
	declaredNames map[string]bool
	ordinal       int
}

func (p *Policy) addAgent(name string, ap AgentPolicy, li int, l Layer) Diagnostics {
	var diags Diagnostics
	e := p.agents[name]
	if e == nil {
		e = &agentEntry{rules: newRuleSet(), declaredNames: map[string]bool{}}
		p.agents[name] = e
	}
	for _, eff := range []Effect{EffectDeny, EffectAsk, EffectAllow} {
		var specs []RuleSpec
		switch eff {
		case EffectDeny:
			specs = ap.Deny
		case EffectAsk:
			specs = ap.Ask
		default:
			specs = ap.Allow
		}
		var rbuf [4]*crule // the readings of one rule, taken before the next
		for i, s := range specs {
			rs, d := p.compileReadings(s, eff, l, rbuf[:0]) // readings.go
			if d != nil {
				diags = append(diags, *d)
				continue
			}
			for _, r := range rs {
				r.ordinal = e.ordinal
				r.id = RuleID{Layer: li, Agent: name, List: eff, Index: i}
				if eff == EffectAllow {
					e.allowNames = append(e.allowNames, r)
					continue
				}
				e.rules.of(eff).add(r)
				e.hasRules = true
			}
			e.ordinal++
		}
	}
	// Layers arrive highest priority first: keep the first setting seen.
	if e.def == nil && ap.Default != nil {
		e.def = ap.Default
	}
	if e.defRO == nil && ap.DefaultReadOnly != nil {
		e.defRO = ap.DefaultReadOnly
	}
	if e.mode == nil && ap.Mode != nil {
		e.mode = ap.Mode
		if p.disabledModes[ap.Mode.Name] {
			diags.Errorf(ap.Pos, "mode-disabled", "agent %q: mode %s is disabled by the managed configuration", name, ap.Mode.Name)
		}
	}
	return diags
}

// applyAgent makes a decision stricter with the calling sub-agent's entry.
func (p *Policy) applyAgent(cc *callCtx, d Decision) Decision {
	e := p.agents[cc.call.Agent]
	if e == nil || d.Denied() {
		return d
	}
	if e.hasRules {
		ac := *p
		ac.static, ac.session = e.rules, nil
		ac.defaultOutcome, ac.defaultReadOnly = Allow, Allow
		ac.rewrites = nil
		acc := *cc
		acc.c = &ac
		acc.mode = Mode{Name: ModeDefault}
		da := ac.decideCore(&acc)
		if k := da.Reason().Kind; (k == KindRule) && (da.Outcome == Deny || da.Outcome == Ask) {
			if da.Outcome == Deny || d.Outcome != Ask {
				d = Stricter(d, da)
				if da.Outcome == Ask && d.Outcome == Ask {
					d.Prompt = cc.prompt()
				}
			}
		}
	}
	if e.def != nil || e.defRO != nil || e.mode != nil {
		ac := *p
		if e.def != nil {
			ac.defaultOutcome = *e.def
			if e.defRO == nil && p.defaultReadOnly == p.defaultOutcome {
				ac.defaultReadOnly = *e.def
			}
		}
		if e.defRO != nil {
			ac.defaultReadOnly = *e.defRO
		}
		acc := *cc
		acc.c = &ac
		if e.mode != nil {
			acc.mode = *e.mode
		}
		d2 := ac.decideRewritten(&acc)
		d2 = ac.finish(&acc, d2)
		d = Stricter(d, d2)
	}
	return d
}

// AgentCanSee reports whether a sub-agent is shown a tool: its own entry's
// allow or ask rules declare the tool, or the configuration exposes it; and
// the entry's deny rules do not hide it.
func (p *Policy) AgentCanSee(agent, tool string) bool {
	e := p.agents[agent]
	if e == nil {
		return p.ExposeToModel(tool)
	}
	cc := p.toolCtx(tool)
	for _, r := range e.rules.deny.all {
		if r.bare() && cc.ruleNamesTool(r) {
			return false
		}
	}
	for _, r := range e.allowNames {
		if cc.ruleNamesToolAllow(r) {
			return true
		}
	}
	for _, r := range e.rules.ask.all {
		if cc.ruleNamesTool(r) {
			return true
		}
	}
	return p.ExposeToModel(tool)
}
