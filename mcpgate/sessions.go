package mcpgate

// Listings per downstream session, for a Checker that answers per session
// ([SessionToolVisibility]): a decision service whose session rules make a
// tool visible, or hide it, for one session. The SDK's server keeps one
// set of tools for all its sessions, so every tool that names and pins
// allow is registered, and each session's tools/list and tools/call are
// filtered here with what the Checker last showed that session.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxSessionViews bounds the sessions whose listing is remembered; a
// session forgotten is asked about again on its next call.
const maxSessionViews = 4096

// sessionView is what the Checker last showed one downstream session.
type sessionView struct {
	shown  map[string]bool // rule name → shown
	failed bool            // the Checker could not answer: nothing is shown
}

// sessionOf is the downstream session id of a request ("" for a session
// without one, such as stdio's).
func sessionOf(req mcp.Request) string {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		return ss.ID()
	}
	return ""
}

// listFor filters one page of the SDK's tools/list for a session: a tool
// is listed when the Checker shows it to the session. When the Checker
// cannot answer, nothing is listed.
func (p *Proxy) listFor(ctx context.Context, session string, res *mcp.ListToolsResult) *mcp.ListToolsResult {
	p.mu.Lock()
	rules := make([]string, 0, len(res.Tools))
	ruleOf := make(map[string]string, len(res.Tools))
	for _, t := range res.Tools {
		if e := p.exposed[t.Name]; e != nil {
			rules = append(rules, e.rule)
			ruleOf[t.Name] = e.rule
		}
	}
	p.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, p.opts.CallTimeout)
	defer cancel()
	shown, err := p.policy.sessionShown(cctx, session, rules)
	p.noteView(session, shown, err)
	if err != nil {
		p.cannotShow(session, err)
	}
	out := *res
	out.Tools = []*mcp.Tool{}
	for _, t := range res.Tools {
		if r, ok := ruleOf[t.Name]; ok && shown[r] {
			out.Tools = append(out.Tools, t)
		}
	}
	return &out
}

// cannotShow logs that the Checker could not say what a session is shown.
func (p *Proxy) cannotShow(session string, err error) {
	if session == "" {
		session = p.policy.session
	}
	p.opts.Logger.Warn(fmt.Sprintf("the policy cannot say which tools to show session %q (%v); no tool is listed for it until it can", session, err))
}

// noteView records an answer for a session's listing (one page of it).
func (p *Proxy) noteView(session string, shown map[string]bool, err error) {
	p.viewsMu.Lock()
	defer p.viewsMu.Unlock()
	v := p.views[session]
	if v == nil {
		for k := range p.views {
			if len(p.views) < maxSessionViews {
				break
			}
			delete(p.views, k)
		}
		v = &sessionView{shown: map[string]bool{}}
		p.views[session] = v
	}
	if err != nil {
		v.failed = true
		clear(v.shown)
		return
	}
	if v.failed {
		v.failed = false
		clear(v.shown)
	}
	for r, s := range shown {
		v.shown[r] = s
	}
}

// shownToSession reports whether the session may see (and so call) the
// tool: from its last listing, or, for a tool that listing did not
// cover, from the Checker, asked for that one tool. An error hides it.
func (p *Proxy) shownToSession(ctx context.Context, session, rule string) bool {
	p.viewsMu.Lock()
	v := p.views[session]
	shown, known := false, false
	if v != nil && !v.failed {
		shown, known = v.shown[rule]
	}
	p.viewsMu.Unlock()
	if known {
		return shown
	}
	cctx, cancel := context.WithTimeout(ctx, p.opts.CallTimeout)
	defer cancel()
	m, err := p.policy.sessionShown(cctx, session, []string{rule})
	if err != nil {
		p.cannotShow(session, err)
		return false
	}
	p.noteView(session, m, nil)
	return m[rule]
}

// RecheckSessions asks a Checker that answers per session
// ([SessionToolVisibility]) again what every session that has listed its
// tools is shown, and tells the sessions their tool list changed when
// that changed: a session rule added or removed on a decision service
// reaches the session's listing this way (Refilter does it too). With any
// other Checker, or an Engine, it does nothing.
func (p *Proxy) RecheckSessions(ctx context.Context) { p.recheckSessions(ctx) }

// recheckSessions asks the Checker again about every session whose
// listing is remembered (after the policy changed, or the Checker failed)
// and, when what any of them is shown changed, tells every session its
// tool list changed. Views of sessions that ended are dropped.
func (p *Proxy) recheckSessions(ctx context.Context) {
	if !p.policy.perSession() {
		return
	}
	live := map[string]bool{}
	for ss := range p.server.Sessions() {
		live[ss.ID()] = true
	}
	p.mu.Lock()
	rules := make([]string, 0, len(p.exposed))
	for _, e := range p.exposed {
		rules = append(rules, e.rule)
	}
	p.mu.Unlock()
	slices.Sort(rules)
	p.viewsMu.Lock()
	var sessions []string
	for s := range p.views {
		if live[s] {
			sessions = append(sessions, s)
		} else {
			delete(p.views, s)
		}
	}
	p.viewsMu.Unlock()
	changed := false
	for _, s := range sessions {
		cctx, cancel := context.WithTimeout(ctx, p.opts.CallTimeout)
		shown, err := p.policy.sessionShown(cctx, s, rules)
		cancel()
		p.viewsMu.Lock()
		if v := p.views[s]; v != nil {
			switch {
			case err != nil:
				changed = changed || !v.failed
				v.failed = true
				clear(v.shown)
			default:
				changed = changed || v.failed || !sameShown(v.shown, shown)
				v.failed, v.shown = false, shown
			}
		}
		p.viewsMu.Unlock()
		if err != nil {
			p.cannotShow(s, err)
		}
	}
	if changed {
		p.notifyToolsChanged()
	}
}

// sameShown reports whether two answers show the same tools.
func sameShown(old, now map[string]bool) bool {
	for r, s := range now {
		if old[r] != s {
			return false
		}
	}
	for r, s := range old {
		if s && !now[r] {
			return false
		}
	}
	return true
}

// notifyToolsChanged has the SDK send notifications/tools/list_changed to
// every session, by registering one exposed tool again as it is (the SDK
// has no other way to send it). The server's refresh lock is held, so the
// definition registered is the one in force.
func (p *Proxy) notifyToolsChanged() {
	for _, u := range p.ups {
		u.refreshMu.Lock()
		var first *toolEntry
		p.mu.Lock()
		for _, e := range p.exposed {
			if e.up == u && (first == nil || strings.Compare(e.name, first.name) < 0) {
				first = e
			}
		}
		p.mu.Unlock()
		if first != nil {
			p.register(first)
		}
		u.refreshMu.Unlock()
		if first != nil {
			return
		}
	}
}
