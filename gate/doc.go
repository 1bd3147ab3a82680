// Package gate is the agent-loop side of toolgate: it stands between a
// model's proposed tool call and the tool, and resolves a toolgate decision
// into an action (SPEC §8, seed 000).
//
// Tools live in a [Registry] (name, description, JSON Schema for the input,
// and the function that runs them). A [Gate] wraps a [Handler] in the
// func(next) next shape ([Gate.Wrap]) or runs the registry's tools itself
// ([Gate.Handler]):
//
//   - allow: the tool runs with the original input;
//   - deny: the tool does not run; the call returns a [*PermissionError]
//     whose text tells the model why, in one wording;
//   - ask: the host's [Approver] is asked, with a deadline
//     ([Options.ApprovalTimeout]) and the call's cancellation. No approver,
//     a non-interactive [CallContext], a timeout, a cancel, an approver
//     error or a rejection each deny with their own reason and cause
//     ([ErrNoApprover], [ErrNonInteractive], [ErrApprovalTimeout],
//     [ErrApprovalCanceled], [ErrApproverFailed], [ErrRejected]). An
//     approval may add the decision's suggestions as session allow rules
//     ([Approval.AlwaysAllow], [SessionRules]);
//   - modify: the rewritten input is validated against the tool's JSON
//     Schema, the rewritten call is checked again, and the tool runs with it
//     only if neither the original nor the rewritten call is denied (an ask
//     on either side asks, showing the rewritten input).
//
// Unknown tools, and tools a sub-agent is not shown, give a
// [*NotFoundError], not a permission error.
//
// Fail closed: a panic in any checker, an invalid outcome, a rewrite that
// does not validate or does not settle, an approver that never answers — all
// end in deny. Host checks ([Options.Before], [Options.After]) can only make
// a decision stricter, and their rewrites go through the same validation and
// re-check.
//
// Delegation: [Gate.SubAgent] makes the gate of a sub-agent, whose calls are
// decided by its own policy and its parent's, the stricter winning,
// and whose tool list is filtered ([toolgate.Visibility]).
//
// Auditing: with [Options.Sink] every resolved decision becomes an
// audit.Event (input digest, redacted input copy, outcome after asking,
// reasons, mode, revision, evaluation time). A failing sink never turns a
// deny into an allow; [Options.BlockOnAuditError] chooses whether it blocks
// calls (default: report to [Options.OnAuditError] and continue).
//
// This package fixes three bugs of seed 000 (SPEC §12): an ask with no
// resolver no longer hangs or fails open (there is always a deadline, and
// the gate does not wait for an approver that ignores its context); a
// non-interactive context turns ask into deny; and a Modify is validated and
// re-checked before it runs.
package gate
