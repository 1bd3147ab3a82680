package toolgate

import (
	"encoding/json"
	"fmt"
)

// Outcome is what a decision says should happen to a call.
//
// The zero value is invalid and is treated as [Deny] everywhere.
type Outcome uint8

const (
	// Invalid is the zero Outcome. It is never produced by the engine and is
	// treated as Deny wherever it is found.
	Invalid Outcome = iota
	// Allow runs the tool with its original input.
	Allow
	// Ask requires a person to approve the call.
	Ask
	// Deny does not run the tool; the reason goes back to the model.
	Deny
	// Modify runs the tool with a rewritten input carried in the decision.
	Modify
)

// String returns the outcome's name as used in files and on the wire.
func (o Outcome) String() string {
	switch o {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	case Modify:
		return "modify"
	}
	return "invalid"
}

func parseOutcome(s string) (Outcome, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	case "modify":
		return Modify, nil
	}
	return Invalid, fmt.Errorf("unknown outcome %q (want allow, ask, deny or modify)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it reads "allow",
// "ask", "deny" or "modify".
func (o *Outcome) UnmarshalText(b []byte) error { return unmarshalWith(o, b, parseOutcome) }

// unmarshalWith stores parse's reading of b in *v, or leaves *v alone and
// returns parse's error.
func unmarshalWith[T any](v *T, b []byte, parse func(string) (T, error)) error {
	x, err := parse(string(b))
	if err != nil {
		return err
	}
	*v = x
	return nil
}

// severity orders outcomes from most to least permissive for Stricter.
func (o Outcome) severity() int {
	switch o {
	case Allow:
		return 0
	case Modify:
		return 1
	case Ask:
		return 2
	}
	return 3 // Deny and Invalid
}

// Effective returns the outcome with Invalid mapped to Deny.
func (o Outcome) Effective() Outcome {
	if o == Invalid {
		return Deny
	}
	return o
}

// ReasonKind says what kind of thing produced a reason.
type ReasonKind string

// The reason kinds.
const (
	KindRule     ReasonKind = "rule"      // an allow, deny or ask rule, or a rewrite
	KindMode     ReasonKind = "mode"      // a mode decided or converted the outcome
	KindSafety   ReasonKind = "safety"    // a safety floor or the secret-file check
	KindDefault  ReasonKind = "default"   // nothing matched: the policy's default
	KindReadOnly ReasonKind = "read_only" // the read-only branch of the fallback
	KindSession  ReasonKind = "session"   // a session rule
	KindHook     ReasonKind = "hook"      // a host checker
	KindInvalid  ReasonKind = "invalid"   // the call itself is malformed
	KindError    ReasonKind = "error"     // an internal error (always deny)
)

// Reason explains one step of a decision.
type Reason struct {
	Kind    ReasonKind `json:"kind"`
	Rule    string     `json:"rule,omitempty"`   // the rule text exactly as written
	Effect  string     `json:"effect,omitempty"` // allow, deny, ask or rewrite
	Source  string     `json:"source,omitempty"` // the layer's source name
	File    string     `json:"file,omitempty"`   // absolute path of the file holding the rule
	Line    int        `json:"line,omitempty"`   // 1-based line of the rule text's first character
	Column  int        `json:"column,omitempty"` // 1-based column, in characters
	Part    string     `json:"part,omitempty"`   // the sub-command, path or URL that decided
	Message string     `json:"message,omitempty"`
	// RuleID identifies the rule in the compiled policy, for a reason of
	// an allow, deny or ask rule (zero otherwise). It is not encoded: on
	// the wire a rule is named by its text and position.
	RuleID RuleID `json:"-"`
}

// RuleID identifies one rule of a compiled policy by where it is written.
// All readings of a rule (docs/rules.md, "Claude Code compatibility") share it. The zero RuleID,
// whose List is 0, names no rule.
type RuleID struct {
	// Layer is the index of the rule's layer in [Policy.Layers], highest
	// priority first; -1 for a rule added at run time, whose Index is then
	// in the list of [Engine.SessionRules].
	Layer int
	// Agent names the sub-agent entry of the layer that holds the rule
	// (Layer.Agents), or is "" for the layer's own lists.
	Agent string
	// List is the rule's list: allow, deny or ask.
	List Effect
	// Index is the rule's index in that list.
	Index int
}

// IsZero reports whether the identity names no rule.
func (id RuleID) IsZero() bool { return id.List == 0 }

// String renders the identity for a person: "layer 0, deny 2",
// "layer 1, agent reviewer, ask 0", "session, allow 1" (a runtime session
// rule), or "no rule".
func (id RuleID) String() string {
	if id.IsZero() {
		return "no rule"
	}
	s := fmt.Sprintf("layer %d, ", id.Layer)
	if id.Layer < 0 {
		s = "session, "
	}
	if id.Agent != "" {
		s += "agent " + id.Agent + ", "
	}
	return fmt.Sprintf("%s%s %d", s, id.List, id.Index)
}

// String renders the reason for a person, one line.
func (r Reason) String() string {
	s := string(r.Kind)
	if r.Rule != "" {
		s += fmt.Sprintf(": %s rule %q", r.Effect, r.Rule)
		if r.Source != "" {
			s += " (" + r.Source
			if r.File != "" {
				s += fmt.Sprintf(" %s:%d:%d", r.File, r.Line, r.Column)
			}
			s += ")"
		}
	}
	if r.Part != "" {
		s += fmt.Sprintf(" on %q", r.Part)
	}
	if r.Message != "" {
		s += ": " + r.Message
	}
	return s
}

// Decision is the engine's answer for one call.
//
// The zero Decision has Outcome Invalid and is treated as a denial.
type Decision struct {
	Outcome Outcome `json:"decision"`
	// Input is the rewritten input for Modify, and for Ask when a rewrite
	// applied; nil otherwise.
	Input json.RawMessage `json:"input,omitempty"`
	// Reasons explain the decision; the deciding reason is first.
	Reasons []Reason `json:"reasons"`
	// Prompt says what will happen, for Ask.
	Prompt string `json:"prompt,omitempty"`
	// Suggestions are the narrowest rules that would allow the call ("always
	// allow"), for Ask.
	Suggestions []string `json:"suggestions,omitempty"`
}

// Reason returns the deciding reason (the first), or a zero Reason.
func (d Decision) Reason() Reason {
	if len(d.Reasons) == 0 {
		return Reason{}
	}
	return d.Reasons[0]
}

// Allowed reports whether the tool may run without asking anyone (Allow or
// Modify).
func (d Decision) Allowed() bool { return d.Outcome == Allow || d.Outcome == Modify }

// Denied reports whether the call must not run (Deny or an invalid outcome).
func (d Decision) Denied() bool { return d.Outcome.Effective() == Deny }

// String renders the outcome and its deciding reason.
func (d Decision) String() string {
	if len(d.Reasons) == 0 {
		return d.Outcome.Effective().String()
	}
	return d.Outcome.Effective().String() + " (" + d.Reasons[0].String() + ")"
}

// Stricter returns the stricter of two decisions — deny > ask > modify >
// allow, a on a tie — with the stricter side's reasons. It is the one way
// two decisions are combined: a sub-agent's with its parent's and a host
// check's with the policy's (both in package gate).
//
// A rewrite survives the combination: when the result allows or asks and
// does not carry an input itself, the first side that rewrote the input
// (Modify, or Ask with an input) lends it its input, and an Allow becomes
// that side's Modify — an ask or allow of one side never drops the other
// side's rewrite.
func Stricter(a, b Decision) Decision {
	r := a
	if b.Outcome.Effective().severity() > a.Outcome.Effective().severity() {
		r = b
	}
	if r.Denied() || r.Input != nil {
		return r
	}
	for _, x := range [2]Decision{a, b} {
		if x.Input != nil && (x.Outcome == Modify || x.Outcome == Ask) {
			r.Input = x.Input
			if r.Outcome == Allow {
				r.Outcome, r.Reasons = Modify, x.Reasons
			}
			break
		}
	}
	return r
}

// Denial returns a deny decision with a single reason.
func Denial(kind ReasonKind, message string) Decision {
	return Decision{Outcome: Deny, Reasons: []Reason{{Kind: kind, Message: message}}}
}
