package gate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate"
)

// Causes of denials that happen while asking a person. A [*PermissionError]
// for such a denial wraps one of them: errors.Is(err, ErrApprovalTimeout).
var (
	// ErrNonInteractive: the call asked for approval in a non-interactive
	// context, where nobody can answer.
	ErrNonInteractive = errors.New("nobody can be asked in a non-interactive context")
	// ErrNoApprover: the call asked for approval and the gate has no approver.
	ErrNoApprover = errors.New("no approver is configured")
	// ErrApprovalTimeout: the approver did not answer in time.
	ErrApprovalTimeout = errors.New("approval timed out")
	// ErrApprovalCanceled: the call's context ended while waiting for the
	// approver.
	ErrApprovalCanceled = errors.New("approval canceled")
	// ErrRejected: the approver said no.
	ErrRejected = errors.New("rejected by the approver")
	// ErrApproverFailed: the approver returned an error or panicked.
	ErrApproverFailed = errors.New("approver failed")
	// ErrAudit: the audit sink failed and the gate is configured to block
	// calls it cannot record.
	ErrAudit = errors.New("audit record failed")
)

// PermissionError is returned for a call the gate does not permit. The tool
// was not run. Its text tells the model why, in one consistent wording:
//
//	permission denied for tool "Bash": <message> [on "<part>"] [(deny rule "Bash(rm *)" from project /p/policy.yaml:3:5)]
type PermissionError struct {
	// Tool is the tool that was not run.
	Tool string
	// Decision is the final decision; its first reason decided.
	Decision toolgate.Decision
	// Err, if set, is the cause of a denial that happened while asking or
	// recording (one of the Err* variables, possibly wrapped).
	Err error
}

// Error renders the deciding reason for the model.
func (e *PermissionError) Error() string {
	r := e.Decision.Reason()
	var b strings.Builder
	fmt.Fprintf(&b, "permission denied for tool %q: ", e.Tool)
	msg := r.Message
	if msg == "" {
		msg = defaultMessage(r.Kind)
	}
	b.WriteString(msg)
	if r.Part != "" {
		fmt.Fprintf(&b, " on %q", r.Part)
	}
	if r.Rule != "" {
		effect := r.Effect
		if effect == "" {
			effect = "matching"
		}
		fmt.Fprintf(&b, " (%s rule %q", effect, r.Rule)
		if r.Source != "" {
			b.WriteString(" from " + r.Source)
		}
		if r.File != "" {
			fmt.Fprintf(&b, " %s:%d:%d", r.File, r.Line, r.Column)
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Unwrap returns the cause, if any.
func (e *PermissionError) Unwrap() error { return e.Err }

func defaultMessage(k toolgate.ReasonKind) string {
	switch k {
	case toolgate.KindRule:
		return "a rule denies this call"
	case toolgate.KindMode:
		return "the session mode denies this call"
	case toolgate.KindSafety:
		return "a safety check denies this call"
	case toolgate.KindDefault:
		return "no rule allows this call"
	case toolgate.KindSession:
		return "a session rule denies this call"
	case toolgate.KindHook:
		return "a host check denies this call"
	case toolgate.KindInvalid:
		return "the call is invalid"
	}
	return "the call could not be checked"
}

// NotFoundError is returned for a call of a tool that is not registered, or
// that the calling agent is not shown. It is not a permission error: the
// model named something that does not exist for it.
type NotFoundError struct {
	Tool string
}

// Error says which tool was not found.
func (e *NotFoundError) Error() string { return fmt.Sprintf("tool %q not found", e.Tool) }
