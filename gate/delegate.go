package gate

import "github.com/toolgate/toolgate"

// SubAgent describes a sub-agent for [Gate.SubAgent].
type SubAgent struct {
	// Name is the sub-agent's name. It is set as the Agent of every call
	// made through the sub-agent's gate, whatever the call says.
	Name string
	// Policy is the sub-agent's own policy. Calls are decided by it and by
	// the parent's checks; the stricter wins. Nil: the parent's checks
	// alone (an engine that reads agents: entries applies them through the
	// call's Agent).
	Policy toolgate.Checker
	// Visibility is what the sub-agent's own policy says about tools: it
	// widens the list with the tools it declares access to and narrows it
	// with the ones it hides. Nil: the parent's list.
	Visibility toolgate.Visibility
}

// SubAgent returns a gate for a sub-agent of g (SPEC §8). It shares g's
// registry, approver, session rules, host checks and audit sink. Its calls
// are checked against the parent's policy and the sub-agent's, the stricter
// winning, and the tools it shows and accepts are those the sub-agent
// declares access to or the parent shows, minus those the sub-agent hides.
// Sub-agent gates nest.
func (g *Gate) SubAgent(s SubAgent) *Gate {
	sub := *g
	sub.agent = s.Name
	if s.Policy != nil {
		sub.checker = delegation{parent: g.checker, child: s.Policy}
	}
	if v := s.Visibility; v != nil {
		parentSees := g.canSee
		sub.visible = func(tool string) bool {
			return (v.DeclaresToolAccess(tool) || parentSees(tool)) && v.ExposeToModel(tool)
		}
	}
	return &sub
}

// Agent returns the sub-agent name of a gate made by [Gate.SubAgent], or "".
func (g *Gate) Agent() string { return g.agent }

// delegation checks every call against a parent's checker and a
// sub-agent's: the stricter outcome wins (deny > ask > modify > allow),
// with the stricter side's reasons. A nil checker, a panic or a decision
// without an outcome is a deny.
type delegation struct {
	parent, child toolgate.Checker
}

// Decide implements [toolgate.Checker]. When the stricter decision is a
// modify, the rewritten input is checked by both sides again; anything but
// allow or modify then wins, keeping the rewritten input.
func (d delegation) Decide(c toolgate.Call) toolgate.Decision {
	out := toolgate.Stricter(safeDecide(d.parent, c), safeDecide(d.child, c))
	if out.Outcome == toolgate.Modify {
		c2 := c
		c2.Input = out.Input
		again := toolgate.Stricter(safeDecide(d.parent, c2), safeDecide(d.child, c2))
		if again.Outcome != toolgate.Allow && again.Outcome != toolgate.Modify {
			again.Input = out.Input
			return again
		}
	}
	return out
}

// safeDecide asks ch, turning a nil checker, a panic and a decision
// without an outcome into a deny.
func safeDecide(ch toolgate.Checker, c toolgate.Call) (d toolgate.Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = toolgate.Denial(toolgate.KindError, "checker panicked")
		}
	}()
	if ch == nil {
		return toolgate.Denial(toolgate.KindError, "no checker")
	}
	d = ch.Decide(c)
	if d.Outcome == toolgate.Invalid {
		d.Outcome = toolgate.Deny
		if len(d.Reasons) == 0 {
			d.Reasons = []toolgate.Reason{{Kind: toolgate.KindError, Message: "checker returned no outcome"}}
		}
	}
	return d
}
