package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/mcpgate"
	"github.com/toolgate/toolgate/serve"
)

// The decision service ("toolgate serve") as the checker of "toolgate mcp
// --server": its decisions, its visibility answers and its approvals.

// mcpRemoteTimeout bounds one decision request (waiting for an approval
// has its own bound, --wait).
const mcpRemoteTimeout = 15 * time.Second

// mcpFollowEvery is how often the gateway asks the service for its policy
// revision, to filter the tools again when it changed.
const mcpFollowEvery = 15 * time.Second

// mcpRemote is a decision service as an mcpgate checker. Every failure to
// get a decision from it is a deny naming why.
type mcpRemote struct {
	client *serve.Client
	wait   time.Duration // how long an ask waits for a person's answer
	rev    atomic.Pointer[string]
	// listed is the revision of the last visibility answer, nil when the
	// last visibility request failed.
	listed atomic.Pointer[string]
}

var (
	_ mcpgate.Checker        = (*mcpRemote)(nil)
	_ mcpgate.ToolVisibility = (*mcpRemote)(nil)
	_ mcpgate.ApprovalWaiter = (*mcpRemote)(nil)
	// Listings per session: a session rule shows or hides a tool for its
	// session only.
	_ mcpgate.SessionToolVisibility = (*mcpRemote)(nil)
)

func (r *mcpRemote) noteRevision(rev string) {
	if rev != "" {
		r.rev.Store(&rev)
	}
}

// Decide asks the service, without waiting for an approval.
func (r *mcpRemote) Decide(c toolgate.Call) toolgate.Decision {
	ctx, cancel := context.WithTimeout(context.Background(), mcpRemoteTimeout)
	defer cancel()
	d, rem, err := r.client.DecideContext(ctx, c)
	if err != nil {
		return toolgate.Denial(toolgate.KindError, "the toolgate server cannot decide: "+err.Error())
	}
	r.noteRevision(rem.Revision)
	return d
}

// AwaitApproval asks the service again and waits up to --wait for a
// person to answer the approval it records for the ask.
func (r *mcpRemote) AwaitApproval(ctx context.Context, c toolgate.Call) (toolgate.Decision, string) {
	d, rem, err := r.client.DecideWait(ctx, c, r.wait)
	if err != nil {
		return toolgate.Denial(toolgate.KindError, "the toolgate server cannot decide: "+err.Error()), ""
	}
	r.noteRevision(rem.Revision)
	if d.Outcome != toolgate.Ask || rem.Approval == nil || rem.Approval.ID == "" {
		return d, ""
	}
	return d, approvalPending(rem.Approval)
}

// approvalPending tells a person how to let the asked call through.
func approvalPending(a *serve.ApprovalRef) string {
	cmd := fmt.Sprintf("\"toolgate approvals approve %s\"", a.ID)
	if a.URL != "" {
		return fmt.Sprintf("approval pending: %s — approve it at %s (or with %s), then retry the call", a.ID, a.URL, cmd)
	}
	return fmt.Sprintf("approval pending: %s — approve it with %s (or on the service's approvals page), then retry the call", a.ID, cmd)
}

// ExposedTools asks the service which tools its policy shows.
func (r *mcpRemote) ExposedTools(ctx context.Context, tools []string) (map[string]bool, error) {
	return r.SessionExposedTools(ctx, "", tools)
}

// SessionExposedTools asks the service which tools its policy and the
// session's own rules show the session ("": its policy alone).
func (r *mcpRemote) SessionExposedTools(ctx context.Context, session string, tools []string) (map[string]bool, error) {
	ans, err := r.client.SessionExposedTools(ctx, session, tools)
	if err != nil {
		r.listed.Store(nil)
		return nil, fmt.Errorf("the toolgate server: %v", err)
	}
	r.noteRevision(ans.Revision)
	r.listed.Store(&ans.Revision)
	return ans.Tools, nil
}

// Revision is the policy revision the service last answered with.
func (r *mcpRemote) Revision() string {
	if p := r.rev.Load(); p != nil {
		return *p
	}
	return ""
}

// follow calls refilter (the proxy's Refilter) whenever the service's
// policy revision is not the one the listing was filtered with (a reload
// on the service, or a visibility request that failed), until ctx ends.
func (r *mcpRemote) follow(ctx context.Context, refilter func(context.Context), every time.Duration, logger *slog.Logger) {
	tick(ctx, every, func() {
		pctx, cancel := context.WithTimeout(ctx, mcpRemoteTimeout)
		info, err := r.client.Policy(pctx)
		cancel()
		if err != nil {
			return // calls are denied meanwhile, each saying why
		}
		if l := r.listed.Load(); l == nil || *l != info.Revision {
			logger.Info(fmt.Sprintf("the toolgate server's policy is revision %s: filtering the tools again", info.Revision))
			refilter(ctx)
		}
	})
}

// tick calls fn every d until ctx ends.
func tick(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
