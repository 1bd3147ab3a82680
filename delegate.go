package toolgate

// Visibility answers which tools a model is shown. [Config] and [Engine]
// implement it.
//
// For a top-level agent only ExposeToModel counts: a tool is listed when it
// returns true. For a sub-agent (SPEC §8), a tool is listed when the
// sub-agent's own Visibility declares access to it (DeclaresToolAccess) or
// the parent lists it, and the sub-agent's own ExposeToModel does not hide
// it ([Delegation.ExposeToModel]; package gate's SubAgent).
type Visibility interface {
	ExposeToModel(tool string) bool
	DeclaresToolAccess(tool string) bool
}

// Delegation combines a parent's checker with a sub-agent's: every call is
// checked against both and the stricter outcome wins (deny > ask > modify >
// allow), with the stricter side's reasons.
type Delegation struct {
	Parent, Child Checker
}

// Delegate returns the combination of a parent's and a sub-agent's checkers.
func Delegate(parent, child Checker) *Delegation { return &Delegation{Parent: parent, Child: child} }

// Decide checks the call against both checkers; the stricter wins. A Modify
// from either side is checked again by both before it can stand.
func (d *Delegation) Decide(c Call) Decision {
	p := safeDecide(d.Parent, c)
	ch := safeDecide(d.Child, c)
	out := Stricter(p, ch)
	if out.Outcome == Modify {
		c2 := c
		c2.Input = out.Input
		again := Stricter(safeDecide(d.Parent, c2), safeDecide(d.Child, c2))
		if again.Outcome != Allow && again.Outcome != Modify {
			again.Input = out.Input
			return again
		}
	}
	return out
}

// ExposeToModel reports whether the sub-agent is shown the tool: its own
// policy declares access or the parent exposes it, and its own policy does
// not hide it.
func (d *Delegation) ExposeToModel(tool string) bool {
	cv, cok := d.Child.(Visibility)
	pv, pok := d.Parent.(Visibility)
	if cok && !cv.ExposeToModel(tool) {
		return false
	}
	if cok && cv.DeclaresToolAccess(tool) {
		return true
	}
	if pok {
		return pv.ExposeToModel(tool)
	}
	return true
}

// DeclaresToolAccess reports whether either side declares access.
func (d *Delegation) DeclaresToolAccess(tool string) bool {
	for _, c := range []Checker{d.Child, d.Parent} {
		if v, ok := c.(Visibility); ok && v.DeclaresToolAccess(tool) {
			return true
		}
	}
	return false
}

// safeDecide runs a checker, turning a panic or an invalid outcome into a
// denial.
func safeDecide(ch Checker, c Call) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Denial(KindError, "checker panicked")
		}
	}()
	if ch == nil {
		return Denial(KindError, "no checker")
	}
	d = ch.Decide(c)
	if d.Outcome == Invalid {
		d.Outcome = Deny
		if len(d.Reasons) == 0 {
			d.Reasons = []Reason{{Kind: KindError, Message: "checker returned no outcome"}}
		}
	}
	return d
}
