package toolgate

// Match says how one rule bears on a call.
type Match uint8

// How a rule bears on a call, from not at all to fully.
const (
	// NoMatch: the rule does not name the call's tool.
	NoMatch Match = iota
	// NearMiss: the rule names the call's tool but matches none of its
	// parts (its specifier did not match).
	NearMiss
	// PartialMatch: an allow rule that matches some parts of the call but
	// not all; allow needs every part, path and form.
	PartialMatch
	// FullMatch: the rule matches the call as its list reads it — deny and
	// ask rules any part, allow rules every part.
	FullMatch
)

// String returns "none", "near miss", "partly" or "matched".
func (m Match) String() string {
	switch m {
	case NearMiss:
		return "near miss"
	case PartialMatch:
		return "partly"
	case FullMatch:
		return "matched"
	}
	return "none"
}

// RuleMatch is how one rule of the policy bears on a call.
type RuleMatch struct {
	ID     RuleID
	Rule   string   // the rule's text, trimmed
	Source Source   // its layer's source
	Pos    Position // where the rule's text starts
	Match  Match
	// Part is the first part (sub-command, path or URL) the rule matches,
	// for a full or partial match.
	Part string
}

// Explanation is the engine's account of one call: its decision, and every
// rule that matches it, matches some of its parts, or names its tool but
// matches nothing — by rule identity, as the engine itself reads the rules.
// A command line or a debugger formats it; it derives nothing itself.
type Explanation struct {
	Decision Decision
	// Rules are in order of evaluation: deny rules, then ask and allow
	// rules in the configured precedence; within a list, by priority (the
	// session's rules first, then layer by layer). Runtime and file session
	// rules are included; sub-agent entries' rules are not.
	Rules []RuleMatch
}

// Explain decides a call and says how every rule bears on it.
func (p *Policy) Explain(call Call) Explanation {
	ex := Explanation{Decision: p.Decide(call)}
	lists := [3]Effect{EffectDeny, EffectAllow, EffectAsk}
	if p.precedence == DenyAskAllow {
		lists[1], lists[2] = EffectAsk, EffectAllow
	}
	p.weighRules(call, lists[:], func(r *crule, m Match, part string) {
		ex.Rules = append(ex.Rules, RuleMatch{ID: r.id, Rule: r.text, Source: r.source, Pos: r.pos, Match: m, Part: part})
	})
	return ex
}

// weighRules calls fn for every rule of the lists, in that order and by
// priority within each, that bears on the call at all. A rule's readings
// count once, with the reading that bears most.
func (p *Policy) weighRules(call Call, lists []Effect, fn func(r *crule, m Match, part string)) {
	cc := &callCtx{}
	if inv := p.prepare(cc, &call); inv != nil {
		return
	}
	for _, e := range lists {
		for _, rs := range []*ruleSet{p.session, p.static} {
			if rs == nil {
				continue
			}
			all := rs.of(e).all
			for i := 0; i < len(all); {
				r, w, next := cc.weighReadings(all, i)
				i = next
				switch m := matchRank(w, r); m {
				case NoMatch:
				case NearMiss:
					fn(r, m, "")
				default:
					fn(r, m, w.part)
				}
			}
		}
	}
}
