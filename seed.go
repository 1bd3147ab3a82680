package toolgate

// Seed compatibility: the seed's operations (check, is_allowed,
// is_denied, requires_confirmation, get_matching_rules) as methods of
// Policy. They are thin layers over Decide and Explain; new code uses
// those. The seed's single-layer builder is package seed.

// Check returns the decision's outcome for a call (the seed's check).
func (p *Policy) Check(call Call) Outcome { return p.Decide(call).Outcome.Effective() }

// IsAllowed reports whether the call may run without asking (the seed's
// is_allowed: allow, or modify).
func (p *Policy) IsAllowed(call Call) bool { return p.Decide(call).Allowed() }

// IsDenied reports whether the call is denied.
func (p *Policy) IsDenied(call Call) bool { return p.Decide(call).Denied() }

// RequiresConfirmation reports whether a person must approve the call.
func (p *Policy) RequiresConfirmation(call Call) bool { return p.Decide(call).Outcome == Ask }

// MatchingRules lists, for debugging, every rule of each list that matches
// a call, in order of priority. Matching is read as for that list: deny and
// ask rules any reading, allow rules every reading.
type MatchingRules struct {
	Deny, Allow, Ask []Reason
	// Partial holds allow rules that match some parts of the call but not
	// all; Part names the first part they match.
	Partial []Reason
	// NearMiss holds rules of any list that name the call's tool but match
	// none of its parts; Effect says the list.
	NearMiss []Reason
}

// MatchingRules returns every rule that matches the call (the seed's
// get_matching_rules). [Policy.Explain] says the same by rule identity.
func (p *Policy) MatchingRules(call Call) MatchingRules {
	var m MatchingRules
	p.weighRules(call, []Effect{EffectDeny, EffectAsk, EffectAllow}, func(r *crule, w Match, part string) {
		switch w {
		case FullMatch:
			rs := r.reason(KindRule, part)
			switch r.effect {
			case EffectDeny:
				m.Deny = append(m.Deny, rs)
			case EffectAsk:
				m.Ask = append(m.Ask, rs)
			default:
				m.Allow = append(m.Allow, rs)
			}
		case PartialMatch:
			m.Partial = append(m.Partial, r.reason(KindRule, part))
		case NearMiss:
			m.NearMiss = append(m.NearMiss, r.reason(KindRule, ""))
		}
	})
	return m
}
