package gate

import (
	"context"
	"encoding/json"

	"github.com/toolgate/toolgate"
)

// ApprovalRequest is what a person is asked.
type ApprovalRequest struct {
	// Tool is the tool's name.
	Tool string
	// Input is the input the tool will run with if approved (the rewritten
	// input when a rewrite applied).
	Input json.RawMessage
	// Prompt says what will happen.
	Prompt string
	// Suggestions are rules that would allow calls like this one from now on
	// ("always allow").
	Suggestions []string
	// Decision is the decision that asked.
	Decision toolgate.Decision
	// Call is the call as the model proposed it. Do not modify it.
	Call *ToolCall
}

// Approval is a person's answer.
type Approval struct {
	// Allow approves this call.
	Allow bool
	// AlwaysAllow, with Allow, also adds the request's Suggestions as session
	// allow rules (through [Options.SessionRules]).
	AlwaysAllow bool
	// Message, optional, is passed to the model with a rejection ("use the
	// staging database instead").
	Message string
}

// Approver asks a person about a call. The gate calls Approve with a context
// that ends at the approval deadline or when the call is canceled; an
// Approver should return then, but the gate does not wait for it: once the
// context is done the call is denied, whatever Approve later returns.
// Approve may be called concurrently for different calls.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (Approval, error)
}

// ApproverFunc adapts a function to [Approver].
type ApproverFunc func(ctx context.Context, req ApprovalRequest) (Approval, error)

// Approve calls f(ctx, req).
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) (Approval, error) {
	return f(ctx, req)
}

// SessionRules adds session rules; the engine implements it. The gate uses it
// when an approval says "always allow".
type SessionRules interface {
	AddSessionRule(e toolgate.Effect, rule string) error
}

// VisibilityFuncs adapts two functions to [toolgate.Visibility]. A nil Expose exposes
// everything; a nil Declares declares nothing.
type VisibilityFuncs struct {
	Expose   func(tool string) bool
	Declares func(tool string) bool
}

// ExposeToModel calls v.Expose.
func (v VisibilityFuncs) ExposeToModel(tool string) bool {
	return v.Expose == nil || v.Expose(tool)
}

// DeclaresToolAccess calls v.Declares.
func (v VisibilityFuncs) DeclaresToolAccess(tool string) bool {
	return v.Declares != nil && v.Declares(tool)
}
