package toolgate

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Engine is a [Policy] with session rules that change at run time. Checks
// run concurrently with changes and see either the old or the new rule set:
// every change compiles a new immutable Policy and swaps a pointer.
//
// Session rules are never persisted by the library.
type Engine struct {
	mu      sync.Mutex // serialises changes
	cur     atomic.Pointer[Policy]
	base    *Policy
	session SessionRules
}

// SessionRules are the rules of the session layer, by list.
type SessionRules struct {
	Allow, Deny, Ask []string
}

func (s *SessionRules) list(e Effect) *[]string {
	switch e {
	case EffectAllow:
		return &s.Allow
	case EffectDeny:
		return &s.Deny
	}
	return &s.Ask
}

// NewEngine returns an engine deciding with c and no runtime session rules.
func NewEngine(c *Policy) *Engine {
	e := &Engine{base: c}
	e.cur.Store(c)
	return e
}

// Policy returns the configuration in force, session rules included.
func (e *Engine) Policy() *Policy { return e.cur.Load() }

// Decide decides a call with the configuration in force.
func (e *Engine) Decide(c Call) Decision { return e.cur.Load().Decide(c) }

// ExposeToModel reports whether the configuration in force shows the tool.
func (e *Engine) ExposeToModel(tool string) bool { return e.cur.Load().ExposeToModel(tool) }

// DeclaresToolAccess reports whether the configuration in force declares the
// tool.
func (e *Engine) DeclaresToolAccess(tool string) bool { return e.cur.Load().DeclaresToolAccess(tool) }

// Reload replaces the base configuration, keeping the session rules.
func (e *Engine) Reload(c *Policy) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	next, err := withSession(c, e.session)
	if err != nil {
		return err
	}
	e.base = c
	e.cur.Store(next)
	return nil
}

// AddSessionRule adds a rule to the session layer; adding a rule that is
// already there changes nothing. A malformed rule is an error and changes
// nothing.
func (e *Engine) AddSessionRule(eff Effect, rule string) error {
	if eff < EffectAllow || eff > EffectAsk {
		return fmt.Errorf("invalid rule list %d", eff)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	l := e.session.list(eff)
	text := strings.TrimSpace(rule)
	if slices.Contains(*l, text) {
		return nil
	}
	next := e.session.clone()
	nl := next.list(eff)
	*nl = append(*nl, text)
	return e.swap(next)
}

// RemoveSessionRule removes the session rule whose text is exactly rule,
// reporting whether it was there.
func (e *Engine) RemoveSessionRule(eff Effect, rule string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := e.session.clone()
	l := next.list(eff)
	i := slices.Index(*l, strings.TrimSpace(rule))
	if i < 0 {
		return false
	}
	*l = slices.Delete(*l, i, i+1)
	return e.swap(next) == nil
}

// RemoveSessionRulesContaining removes every session rule of the list whose
// text contains substr, returning how many were removed. Prefer
// RemoveSessionRule: removing "Bash" this way also removes "BashOutput".
func (e *Engine) RemoveSessionRulesContaining(eff Effect, substr string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := e.session.clone()
	l := next.list(eff)
	n := len(*l)
	*l = slices.DeleteFunc(*l, func(s string) bool { return strings.Contains(s, substr) })
	removed := n - len(*l)
	if removed == 0 || e.swap(next) != nil {
		return 0
	}
	return removed
}

// SessionRules returns a copy of the runtime session rules (empty lists when
// there are none).
func (e *Engine) SessionRules() SessionRules {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.session.clone()
}

func (s SessionRules) clone() SessionRules {
	c := func(x []string) []string { return append([]string{}, x...) }
	return SessionRules{Allow: c(s.Allow), Deny: c(s.Deny), Ask: c(s.Ask)}
}

func (e *Engine) swap(next SessionRules) error {
	c, err := withSession(e.base, next)
	if err != nil {
		return err
	}
	e.session = next
	e.cur.Store(c)
	return nil
}

// withSession returns a copy of c whose session rule set holds c's own
// session layers plus the runtime rules.
func withSession(c *Policy, s SessionRules) (*Policy, error) {
	var ls []Layer
	idx := []int{-1}
	for li, l := range c.layers {
		if l.Source == SourceSession {
			ls = append(ls, l)
			idx = append(idx, li)
		}
	}
	rt := Layer{Source: SourceSession}
	for _, e := range []Effect{EffectAllow, EffectDeny, EffectAsk} {
		for _, r := range *s.list(e) {
			spec := RuleSpec{Text: r}
			switch e {
			case EffectAllow:
				rt.Allow = append(rt.Allow, spec)
			case EffectDeny:
				rt.Deny = append(rt.Deny, spec)
			default:
				rt.Ask = append(rt.Ask, spec)
			}
		}
	}
	ls = append([]Layer{rt}, ls...)
	next := *c
	rs, diags := next.compileSession(ls, idx)
	if diags.HasErrors() {
		return nil, diags
	}
	next.session = rs
	return &next, nil
}
