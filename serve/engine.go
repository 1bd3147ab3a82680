package serve

// This file holds the package's use of the engine and the configuration
// loader (the root package and package config), so that a change of their
// API stays local to it; remote_visibility.go asks the engine in force one
// more question (ExposeToModel) for POST /v1/visibility.

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/wire"
)

// Call and Decision are the engine's types, used unchanged by the service.
type (
	// Call is one tool call to decide.
	Call = toolgate.Call
	// Decision is the engine's answer for one call.
	Decision = toolgate.Decision
)

// Outcome names as they appear in responses and metrics.
const (
	outcomeAllow  = "allow"
	outcomeDeny   = "deny"
	outcomeAsk    = "ask"
	outcomeModify = "modify"
)

// outcomeOf is the effective outcome of d as a string (invalid is deny).
func outcomeOf(d Decision) string { return d.Outcome.Effective().String() }

// reasonKind is the kind of d's deciding reason ("" when it has none).
func reasonKind(d Decision) string { return string(d.Reason().Kind) }

// denial is a deny with one reason of kind; the kinds are the engine's.
func denial(kind, msg string) Decision {
	return toolgate.Denial(toolgate.ReasonKind(kind), msg)
}

// Reason kinds used by the service for its own denials.
const (
	kindInvalid = string(toolgate.KindInvalid)
	kindError   = string(toolgate.KindError)
)

// allowByApproval is the decision for an ask that a person approved.
func allowByApproval(d Decision, id, approver string) Decision {
	r := toolgate.Reason{Kind: "approval", Message: fmt.Sprintf("approved by %s (approval %s)", approver, id)}
	out := Decision{Outcome: toolgate.Allow, Reasons: append([]toolgate.Reason{r}, d.Reasons...)}
	if d.Input != nil {
		// The engine rewrote the call: what was approved runs rewritten.
		out.Outcome = toolgate.Modify
		out.Input = d.Input
	}
	return out
}

// denyWith turns d into a deny whose first reason is kind/msg, keeping d's
// reasons after it.
func denyWith(d Decision, kind, msg string) Decision {
	r := toolgate.Reason{Kind: toolgate.ReasonKind(kind), Message: msg}
	return Decision{Outcome: toolgate.Deny, Reasons: append([]toolgate.Reason{r}, d.Reasons...)}
}

// isAsk reports whether d asks a person.
func isAsk(d Decision) bool { return d.Outcome == toolgate.Ask }

// response is one decision as toolgate check prints it (SPEC §10), plus
// the policy revision and, for an ask the service recorded, its approval.
type response struct {
	Decision    string            `json:"decision"`
	Input       json.RawMessage   `json:"input,omitempty"`
	Reason      toolgate.Reason   `json:"reason"`
	Reasons     []toolgate.Reason `json:"reasons"`
	Prompt      string            `json:"prompt,omitempty"`
	Suggestions []string          `json:"suggestions,omitempty"`
	Revision    string            `json:"revision"`
	Approval    *approvalRef      `json:"approval,omitempty"`
}

// approvalRef points an ask at its durable approval record.
type approvalRef struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Expires string `json:"expires"`
	URL     string `json:"url,omitempty"`
}

// newResponse builds the response of d under revision rev.
func newResponse(d Decision, rev string, ap *approvalRef) response {
	r := response{
		Decision:    outcomeOf(d),
		Reason:      d.Reason(),
		Reasons:     d.Reasons,
		Prompt:      d.Prompt,
		Suggestions: d.Suggestions,
		Revision:    rev,
		Approval:    ap,
	}
	if d.Outcome == toolgate.Modify || d.Outcome == toolgate.Ask {
		r.Input = d.Input
	}
	if r.Reasons == nil {
		r.Reasons = []toolgate.Reason{}
	}
	return r
}

// marshalResponse appends the JSON of r to buf, as json.Marshal encodes
// it (appendResponse). An unencodable decision is answered with a deny,
// never left out.
func marshalResponse(buf []byte, r response) []byte {
	out, err := appendResponse(buf, &r)
	if err != nil {
		deny := newResponse(denial(kindError, "cannot encode the decision: "+err.Error()), r.Revision, nil)
		out, _ = appendResponse(buf, &deny) // a deny has no input: it always encodes
	}
	return out
}

// callDefaults fill what a request leaves out.
type callDefaults struct {
	cwd, home string
}

// parseCall reads one request object (SPEC §1, §10) with package wire,
// the reader toolgate check uses too. The call refers into data, which must
// not change while it is used.
func parseCall(data []byte, def callDefaults) (Call, *wire.RequestError) {
	return wire.ParseRequest(data, wire.Defaults{Cwd: def.cwd, Home: def.home})
}

// callFromValue is parseCall of an already parsed value.
func callFromValue(root jsonin.Value, def callDefaults) (Call, *wire.RequestError) {
	return wire.RequestFromValue(root, wire.Defaults{Cwd: def.cwd, Home: def.home})
}

// callDigest identifies a call for an approval: a SHA-256 of the tool, the
// canonical form of the input (keys sorted, no insignificant space) and the
// working directory. Two calls with the same digest do the same thing.
// An input that is not a JSON object has no digest (and is never approved).
func callDigest(c Call) (string, error) {
	var in any = map[string]any{}
	if len(c.Input) > 0 && string(c.Input) != "null" {
		if _, err := jsonin.Parse(c.Input); err != nil {
			return "", err
		}
		dec := json.NewDecoder(bytes.NewReader(c.Input))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			return "", err
		}
		if _, ok := in.(map[string]any); !ok {
			return "", errors.New("input is not an object")
		}
	}
	canon, err := json.Marshal(in) // maps marshal with sorted keys
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(c.Tool), canon, []byte(c.Cwd)} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// PolicySource says where the policy comes from.
type PolicySource struct {
	// Configs are "[SOURCE=]FILE" arguments as toolgate check's --config
	// takes them, FILE absolute. None means the built-in default policy.
	Configs []string
	// Engine are the engine's capabilities. The zero value gives the engine
	// no file system access, right for a service deciding for agents on
	// other machines.
	Engine *toolgate.Options
}

// policy is one loaded, compiled policy.
type policy struct {
	cfg      *toolgate.Policy
	revision string
	files    []string // the files read, absolute
	warnings []string
	info     PolicyInfo
}

// LayerInfo describes one layer of the policy in force.
type LayerInfo struct {
	Source string `json:"source"`
	File   string `json:"file,omitempty"`
	Allow  int    `json:"allow"`
	Deny   int    `json:"deny"`
	Ask    int    `json:"ask"`
}

// PolicyInfo is what GET /v1/policy shows.
type PolicyInfo struct {
	Revision string      `json:"revision"`
	Files    []string    `json:"files"`
	Layers   []LayerInfo `json:"layers"`
	Settings struct {
		Default         string `json:"default"`
		DefaultReadOnly string `json:"default_read_only"`
		Precedence      string `json:"precedence"`
		Mode            string `json:"mode"`
		Enabled         bool   `json:"enabled"`
	} `json:"settings"`
	Warnings []string `json:"warnings"`
	Loaded   string   `json:"loaded"`
}

// loadPolicy loads and compiles the policy. Every diagnostic of a failure
// is in the error.
func loadPolicy(src PolicySource) (*policy, error) {
	p := &policy{}
	if len(src.Configs) == 0 {
		cfg, err := toolgate.Compile(config.Builtin(), src.Engine)
		if err != nil {
			return nil, err
		}
		p.cfg = cfg
	} else {
		cfg, set, err := config.Build(&config.Options{
			FS: rootFS(), Cwd: "/", Explicit: src.Configs, Builtin: true, Engine: src.Engine,
		})
		if err != nil {
			var ds toolgate.Diagnostics
			if errors.As(err, &ds) {
				return nil, diagError(ds)
			}
			return nil, err
		}
		p.cfg = cfg
		for _, f := range set.Files {
			p.files = append(p.files, f.Path)
		}
		for _, d := range set.Diags {
			p.warnings = append(p.warnings, d.String())
		}
	}
	p.revision = p.cfg.Revision()
	p.info = policyInfo(p)
	return p, nil
}

// rootFS is the real file system, for the policy files.
func rootFS() fs.FS { return os.DirFS("/") }

// diagError is every diagnostic of a failed load, one per line.
type diagError toolgate.Diagnostics

func (e diagError) Error() string {
	s := ""
	for i, d := range e {
		if i > 0 {
			s += "\n"
		}
		s += d.String()
	}
	return s
}

// policyInfo describes p.
func policyInfo(p *policy) PolicyInfo {
	var info PolicyInfo
	info.Revision = p.revision
	info.Files = append([]string{}, p.files...)
	info.Warnings = append([]string{}, p.warnings...)
	for _, l := range p.cfg.Layers() {
		info.Layers = append(info.Layers, LayerInfo{Source: l.Source.String(), File: l.File,
			Allow: len(l.Allow), Deny: len(l.Deny), Ask: len(l.Ask)})
	}
	s := p.cfg.Settings()
	info.Settings.Default = s.Default.String()
	info.Settings.DefaultReadOnly = s.DefaultReadOnly.String()
	info.Settings.Precedence = s.Precedence.String()
	info.Settings.Mode = string(s.Mode.Name)
	info.Settings.Enabled = s.Enabled
	return info
}

// SessionRule is a rule added at run time, for one session or (Session "")
// for every call.
type SessionRule struct {
	Session string `json:"session"`
	Effect  string `json:"effect"` // allow, deny or ask
	Rule    string `json:"rule"`
}

// checkSessionRule reports whether r is a well-formed session rule.
func checkSessionRule(r SessionRule) error {
	var eff toolgate.Effect
	err := eff.UnmarshalText([]byte(r.Effect))
	if err != nil || (eff != toolgate.EffectAllow && eff != toolgate.EffectDeny && eff != toolgate.EffectAsk) {
		return fmt.Errorf("effect must be allow, deny or ask, not %q", r.Effect)
	}
	scratch, err := toolgate.Compile(nil, nil)
	if err != nil {
		return err
	}
	return toolgate.NewEngine(scratch).AddSessionRule(eff, r.Rule)
}

// deciders are the engines of one policy and one set of session rules: one
// for calls of sessions without rules of their own, and one per session
// that has some, built when first needed and kept while it is among the
// maxSessionEngines most recently used. A deciders value never changes its
// rules; a change builds a new one.
type deciders struct {
	pol       *policy
	global    []SessionRule
	bySession map[string][]SessionRule
	base      *toolgate.Engine
	sessions  engineCache
}

// maxSessionEngines bounds the per-session engines kept built. A session
// whose engine was dropped gets it rebuilt from its stored rules on its
// next call: eviction costs time, never a rule.
const maxSessionEngines = 1024

// engineCache keeps the most recently used per-session engines, at most
// max of them (maxSessionEngines when max is 0).
type engineCache struct {
	mu  sync.Mutex
	max int
	ll  list.List                // of *cachedEngine, most recently used first
	by  map[string]*list.Element // session → its element of ll
}

type cachedEngine struct {
	session string
	e       *toolgate.Engine
}

// get returns the session's engine, if kept, and marks it used.
func (c *engineCache) get(session string) (*toolgate.Engine, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.by[session]
	if !ok {
		return nil, false
	}
	c.ll.MoveToFront(el)
	return el.Value.(*cachedEngine).e, true
}

// put keeps e as the session's engine and returns the engine kept: one
// another caller put first wins, so that every call of a session uses one
// engine. The least recently used engine past the bound is dropped.
func (c *engineCache) put(session string, e *toolgate.Engine) *toolgate.Engine {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.by[session]; ok {
		c.ll.MoveToFront(el)
		return el.Value.(*cachedEngine).e
	}
	if c.by == nil {
		c.by = map[string]*list.Element{}
	}
	c.by[session] = c.ll.PushFront(&cachedEngine{session, e})
	max := c.max
	if max <= 0 {
		max = maxSessionEngines
	}
	for c.ll.Len() > max {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.by, old.Value.(*cachedEngine).session)
	}
	return e
}

// len is the number of engines kept.
func (c *engineCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// newDeciders builds the engines of p with rules. A rule that fails to
// compile is an error (rules are checked before they are stored, so this
// means the stored rules do not suit the policy's grammar any more).
func newDeciders(p *policy, rules []SessionRule) (*deciders, error) {
	d := &deciders{pol: p, bySession: map[string][]SessionRule{}}
	for _, r := range rules {
		if r.Session == "" {
			d.global = append(d.global, r)
		} else {
			d.bySession[r.Session] = append(d.bySession[r.Session], r)
		}
	}
	var err error
	d.base, err = buildEngine(p, d.global, nil)
	return d, err
}

// buildEngine is an engine of p with the given session rules added.
func buildEngine(p *policy, lists ...[]SessionRule) (*toolgate.Engine, error) {
	e := toolgate.NewEngine(p.cfg)
	for _, list := range lists {
		for _, r := range list {
			var eff toolgate.Effect
			err := eff.UnmarshalText([]byte(r.Effect))
			if err != nil {
				return nil, err
			}
			if err := e.AddSessionRule(eff, r.Rule); err != nil {
				return nil, fmt.Errorf("session rule %s %q: %v", r.Effect, r.Rule, err)
			}
		}
	}
	return e, nil
}

// decide decides c with the session rules of its session. It never panics.
func (d *deciders) decide(c Call) (dec Decision) {
	defer func() {
		if r := recover(); r != nil {
			dec = denial(kindError, fmt.Sprintf("internal error: %v", r))
		}
	}()
	e := d.base
	if rules, ok := d.bySession[c.Session]; ok && c.Session != "" {
		if kept, ok := d.sessions.get(c.Session); ok {
			e = kept
		} else {
			built, err := buildEngine(d.pol, d.global, rules)
			if err != nil {
				return denial(kindError, "the session's rules do not compile: "+err.Error())
			}
			e = d.sessions.put(c.Session, built)
		}
	}
	if e == nil {
		return denial(kindError, "no policy is loaded")
	}
	return e.Decide(c)
}

// requestJSON encodes c as a request object (the reverse of parseCall).
// A mode travels by name.
func requestJSON(c Call) ([]byte, error) {
	req := map[string]any{"tool": c.Tool}
	if len(c.Input) > 0 {
		req["input"] = c.Input
	}
	for k, v := range map[string]string{"cwd": c.Cwd, "home": c.Home, "agent": c.Agent, "session": c.Session, "server": c.Server} {
		if v != "" {
			req[k] = v
		}
	}
	if c.NotReadOnly {
		req["read_only"] = false
	}
	if c.Mode != nil {
		req["mode"] = string(c.Mode.Name)
	}
	return json.Marshal(req)
}

// decisionOf turns a response back into a decision.
func decisionOf(r response) (Decision, error) {
	var o toolgate.Outcome
	err := o.UnmarshalText([]byte(r.Decision))
	if err != nil {
		return Decision{}, fmt.Errorf("unknown decision %q", r.Decision)
	}
	d := Decision{Outcome: o, Input: r.Input, Reasons: r.Reasons, Prompt: r.Prompt, Suggestions: r.Suggestions}
	if o == toolgate.Modify && len(d.Input) == 0 {
		return Decision{}, errors.New("a modify without its input")
	}
	return d, nil
}
