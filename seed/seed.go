// Package seed is the single-layer policy builder of toolgate's seed
// interface: deny, allow and ask lists, a default, an enabled flag and a
// precedence, built in code and compiled into a [toolgate.Policy].
//
// It is kept for the seed's callers. The seed's queries (check, is_allowed,
// is_denied, requires_confirmation, get_matching_rules) are methods of the
// compiled [toolgate.Policy]. New code builds [toolgate.Layer] values, or
// loads files with package config, and compiles them with
// [toolgate.Compile].
package seed

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate"
)

// Policy is the seed's single-layer rule policy. It is a plain value that
// serialises losslessly (rules as their text); [Policy.Compile] turns it
// into a [toolgate.Policy] that decides.
//
// The zero Policy has no rules, is enabled and asks for everything.
type Policy struct {
	Deny       []string            `json:"deny"`
	Allow      []string            `json:"allow"`
	Ask        []string            `json:"ask"`
	Default    toolgate.Outcome    `json:"default"`
	Disabled   bool                `json:"-"`
	Precedence toolgate.Precedence `json:"-"`
}

// NewPolicy returns an empty policy: no rules, default ask.
func NewPolicy() *Policy { return &Policy{Default: toolgate.Ask} }

// StrictPolicy returns a policy with no rules whose default is ask (the
// seed's strict(); not the strict mode).
func StrictPolicy() *Policy { return &Policy{Default: toolgate.Ask} }

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
func (p *Policy) Layer(src toolgate.Source) toolgate.Layer {
	l := toolgate.Layer{Source: src}
	spec := func(rs []string) []toolgate.RuleSpec {
		out := make([]toolgate.RuleSpec, len(rs))
		for i, r := range rs {
			out[i] = toolgate.RuleSpec{Text: r}
		}
		return out
	}
	l.Deny, l.Allow, l.Ask = spec(p.Deny), spec(p.Allow), spec(p.Ask)
	def := p.Default
	if def == toolgate.Invalid {
		def = toolgate.Ask
	}
	l.Default = &def
	en := !p.Disabled
	l.Enabled = &en
	pre := p.Precedence
	l.Precedence = &pre
	return l
}

// Compile compiles the policy as one layer of source cli.
func (p *Policy) Compile(opts *toolgate.Options) (*toolgate.Policy, error) {
	return toolgate.Compile([]toolgate.Layer{p.Layer(toolgate.SourceCLI)}, opts)
}

// policyJSON is the seed's serialised form.
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
	if def == toolgate.Invalid {
		def = toolgate.Ask
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
// errors, and so is the default modify, which only a rewrite can produce.
func (p *Policy) UnmarshalJSON(b []byte) error {
	pj := policyJSON{Enabled: true}
	if err := json.Unmarshal(b, &pj); err != nil {
		return err
	}
	np := Policy{Deny: pj.Deny, Allow: pj.Allow, Ask: pj.Ask, Default: toolgate.Ask, Disabled: !pj.Enabled}
	if pj.Default != "" {
		if err := np.Default.UnmarshalText([]byte(pj.Default)); err != nil {
			return fmt.Errorf("seed policy: default: %w", err)
		}
		if np.Default == toolgate.Modify {
			return fmt.Errorf("seed policy: default %q: only a rewrite can modify a call", pj.Default)
		}
	}
	if pj.Precedence != "" {
		if err := np.Precedence.UnmarshalText([]byte(pj.Precedence)); err != nil {
			return fmt.Errorf("seed policy: %w", err)
		}
	}
	*p = np
	return nil
}
