package toolgate

import "encoding/json"

// Seed compatibility: the single-layer Policy builder of the seed and its
// operations (check, is_allowed, is_denied, requires_confirmation,
// get_matching_rules). They are thin layers over Compile, Decide and
// Explain, kept for the seed's interface; new code uses those.

// Policy is the single-layer rule policy of the seed: deny, allow and ask
// lists, a default, an enabled flag and a precedence. It is a plain value
// that serialises losslessly (rules as their text); [Policy.Compile] turns it
// into a [Config] that decides.
//
// The zero Policy has no rules, is enabled and asks for everything.
type Policy struct {
	Deny       []string   `json:"deny"`
	Allow      []string   `json:"allow"`
	Ask        []string   `json:"ask"`
	Default    Outcome    `json:"default"`
	Disabled   bool       `json:"-"`
	Precedence Precedence `json:"-"`
}

// NewPolicy returns an empty policy: no rules, default ask.
func NewPolicy() *Policy { return &Policy{Default: Ask} }

// StrictPolicy returns a policy with no rules whose default is ask (the
// seed's strict(); not the strict mode).
func StrictPolicy() *Policy { return &Policy{Default: Ask} }

// DenyRule adds a deny rule and returns the policy.
func (p *Policy) DenyRule(rule string) *Policy { p.Deny = append(p.Deny, rule); return p }

// AllowRule adds an allow rule and returns the policy.
func (p *Policy) AllowRule(rule string) *Policy { p.Allow = append(p.Allow, rule); return p }

// AskRule adds an ask rule and returns the policy.
func (p *Policy) AskRule(rule string) *Policy { p.Ask = append(p.Ask, rule); return p }

// DenyAll adds several deny rules.
func (p *Policy) DenyAll(rules ...string) *Policy { p.Deny = append(p.Deny, rules...); return p }

// AllowAll adds several allow rules.
func (p *Policy) AllowAll(rules ...string) *Policy { p.Allow = append(p.Allow, rules...); return p }

// AskAll adds several ask rules.
func (p *Policy) AskAll(rules ...string) *Policy { p.Ask = append(p.Ask, rules...); return p }

// Layer returns the policy as one layer of the given source.
func (p *Policy) Layer(src Source) Layer {
	l := Layer{Source: src}
	spec := func(rs []string) []RuleSpec {
		out := make([]RuleSpec, len(rs))
		for i, r := range rs {
			out[i] = RuleSpec{Text: r}
		}
		return out
	}
	l.Deny, l.Allow, l.Ask = spec(p.Deny), spec(p.Allow), spec(p.Ask)
	def := p.Default
	if def == Invalid {
		def = Ask
	}
	l.Default = &def
	en := !p.Disabled
	l.Enabled = &en
	pre := p.Precedence
	l.Precedence = &pre
	return l
}

// Compile compiles the policy into a Config.
func (p *Policy) Compile(opts *Options) (*Config, error) {
	return Compile([]Layer{p.Layer(SourceCLI)}, opts)
}

type policyJSON struct {
	Deny       []string `json:"deny"`
	Allow      []string `json:"allow"`
	Ask        []string `json:"ask"`
	Default    string   `json:"default"`
	Enabled    bool     `json:"enabled"`
	Precedence string   `json:"precedence"`
}

// MarshalJSON encodes the policy with its rules as text.
func (p Policy) MarshalJSON() ([]byte, error) {
	def := p.Default
	if def == Invalid {
		def = Ask
	}
	nz := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return json.Marshal(policyJSON{Deny: nz(p.Deny), Allow: nz(p.Allow), Ask: nz(p.Ask), Default: def.String(), Enabled: !p.Disabled, Precedence: p.Precedence.String()})
}

// UnmarshalJSON decodes a policy; unknown outcomes and precedences are
// errors.
func (p *Policy) UnmarshalJSON(b []byte) error {
	pj := policyJSON{Enabled: true}
	if err := json.Unmarshal(b, &pj); err != nil {
		return err
	}
	np := Policy{Deny: pj.Deny, Allow: pj.Allow, Ask: pj.Ask, Default: Ask, Disabled: !pj.Enabled}
	if pj.Default != "" {
		o, err := ParseOutcome(pj.Default)
		if err != nil || o == Modify {
			return &json.UnmarshalTypeError{Value: "default " + pj.Default, Type: nil}
		}
		np.Default = o
	}
	if pj.Precedence != "" {
		pr, err := ParsePrecedence(pj.Precedence)
		if err != nil {
			return err
		}
		np.Precedence = pr
	}
	*p = np
	return nil
}

// Check returns the decision's outcome for a call (the seed's check).
func (c *Config) Check(call Call) Outcome { return c.Decide(call).Outcome.Effective() }

// IsAllowed reports whether the call may run without asking (the seed's
// is_allowed: allow, or modify).
func (c *Config) IsAllowed(call Call) bool { return c.Decide(call).Allowed() }

// IsDenied reports whether the call is denied.
func (c *Config) IsDenied(call Call) bool { return c.Decide(call).Denied() }

// RequiresConfirmation reports whether a person must approve the call.
func (c *Config) RequiresConfirmation(call Call) bool { return c.Decide(call).Outcome == Ask }

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
// get_matching_rules). [Config.Explain] says the same by rule identity.
func (c *Config) MatchingRules(call Call) MatchingRules {
	var m MatchingRules
	c.weighRules(call, []Effect{EffectDeny, EffectAsk, EffectAllow}, func(r *crule, w Match, part string) {
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
