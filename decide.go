package toolgate

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/internal/starglob"
	"github.com/toolgate/toolgate/internal/urlmatch"
	"github.com/toolgate/toolgate/internal/wordindex"
)

// callCtx is everything known about one call while it is decided.
type callCtx struct {
	c     *Policy
	call  Call
	tool  string
	lower string
	info  toolEntry
	cwd   string
	home  string
	doc   *jsonin.Doc // &docv, or a document of its own
	docv  jsonin.Doc  // the call's input, parsed in place
	// lastStr is the string input value most recently matched (and
	// lastText its text): many rules of one tool read the same value, which
	// is then decoded once.
	lastStr  jsonin.Value
	lastText string
	input    jsonin.Value
	mode     Mode
	// canon is the catalog name the call is read as: the tool name, or the
	// catalog name it differs from only in case (folded).
	canon string
	// folded marks a call whose tool name is not a catalog name but differs
	// only in case from one: it is read as that kind for deny and ask rules
	// and the safety checks, and as a generic tool for allow — no kind-name
	// rule approves it and it is never read-only (SPEC §1.1).
	folded bool
	// alts are further case-folded readings of a different kind, each
	// decided too; the strictest decision wins.
	alts   []toolReading
	mcp    []mcpSplit // every server/tool reading of an MCP name, for deny and ask
	mcpBuf [2]mcpSplit
	// mcpAllow is the one reading allow rules may use: the named server, or
	// the only split of an exactly spelled mcp__ name; empty otherwise.
	mcpAllow []mcpSplit

	dir      string // a shell call's working directory (its field, else cwd)
	dirField string // the working-directory field that named dir, if any

	an      *shell.Analysis // the shell command's analysis, once made
	anText  string
	url     urlTarget   // a fetch call's URL, once read
	itemBuf [2]pathItem // backing for the usual one or two paths
	partBuf [4]verdict  // backing for the verdicts of up to four parts

	// sc is memory kept from one decision to the next by a pooled call
	// context (nil in a context of its own: then everything is allocated).
	sc *callScratch
}

// callScratch is what a shell or fetch call's reading needs, kept by a
// pooled call context so that a decision allocates none of it: the
// analysis (its commands, paths and word lists), the per-command path
// lists, index keys and parts built from it, and a URL's reading lists. Nothing a Decision holds points into it —
// reasons, prompts and suggestions hold strings, which are never reused.
type callScratch struct {
	an    shell.Analysis
	lists shellLists
	// urls backs a fetch call's URL readings (urlmatch.ParseLazyInto).
	urls [3]string
}

// shellLists are the per-command lists of a shell call's reading.
type shellLists struct {
	cps   []cmdPaths
	names []wordindex.Key
	items []pathItem
	parts []part
}

// maxScratch bounds the lists a call context keeps: those of an unusually
// large call are let go.
const maxScratch = 256

// grow returns s emptied, with room for n elements: s's own memory when it
// has the room, else new memory, which is kept for the next call unless it
// is larger than maxScratch. Every element a reading uses it writes whole;
// what an earlier call left past that is never read, and a pooled context
// holding it is dropped by the pool at the next collections.
func grow[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		out := make([]T, 0, n)
		if n <= maxScratch {
			*s = out
		}
		return out
	}
	return (*s)[:0]
}

type mcpSplit struct{ server, tool string }

// verdict is the outcome of one part of a call.
type verdict struct {
	outcome Outcome
	reasons []Reason
	// rule, for a verdict of a rule (ruleVerdict), is the rule whose
	// reason, naming rulePart, the verdict gives: it is built only for the
	// verdict that decides the call (combine), not for every part.
	rule     *crule
	rulePart string
	suggest  []string
}

// reasonList returns the verdict's reasons.
func (v *verdict) reasonList() []Reason {
	if v.rule != nil {
		return []Reason{v.rule.reason(KindRule, v.rulePart)}
	}
	return v.reasons
}

// ctxPool holds call contexts between decisions.
var ctxPool = sync.Pool{New: func() any { return &callCtx{sc: new(callScratch)} }}

// Decide returns the decision for one call. It never panics: an internal
// failure is a denial with reason kind "error".
func (p *Policy) Decide(call Call) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Denial(KindError, fmt.Sprintf("internal error while deciding: %v", r))
		}
	}()
	// The call context is pooled: nothing the decision holds points into
	// it (reasons, suggestions and rewritten inputs are allocated apart).
	// prepare resets it before any use, so it is put back as it is (the
	// pool drops what it holds at the next garbage collection).
	cc := ctxPool.Get().(*callCtx)
	defer ctxPool.Put(cc)
	if inv := p.prepare(cc, &call); inv != nil {
		return *inv
	}
	d = p.decideReadings(cc)
	if call.Agent != "" {
		d = p.applyAgent(cc, d)
	}
	return p.finish(cc, d)
}

// decideReadings decides the call as its tool is read and, when its name
// folds to catalog names of several kinds, as each of them: deny sees every
// form, so the strictest decision wins.
func (p *Policy) decideReadings(cc *callCtx) Decision {
	d := p.decideRewritten(cc)
	for _, alt := range cc.alts {
		if d.Outcome == Deny {
			break
		}
		ac := *cc
		ac.info, ac.canon, ac.alts, ac.an, ac.sc = alt.info, alt.name, nil, nil, nil
		if d2 := p.decideRewritten(&ac); d2.Outcome.Effective().severity() > d.Outcome.Effective().severity() {
			d = d2
		}
	}
	return d
}

// finish applies the last step of evaluation: where nobody can be asked,
// ask becomes deny.
func (p *Policy) finish(cc *callCtx, d Decision) Decision {
	if d.Outcome != Ask {
		return d
	}
	var msg string
	switch {
	case cc.mode.Name == ModeDontAsk:
		msg = "dontAsk mode: a call that would be asked about is denied"
	case cc.call.NonInteractive:
		msg = "nobody can be asked in a non-interactive context, so the call is denied"
	default:
		return d
	}
	d.Outcome = Deny
	d.Prompt, d.Suggestions = "", nil
	d.Reasons = append([]Reason{{Kind: KindMode, Message: msg}}, d.Reasons...)
	return d
}

// prepare validates the call and reads what every step needs.
func (p *Policy) prepare(cc *callCtx, call *Call) *Decision {
	if !validToolName(call.Tool) {
		d := invalidf("tool name %q is invalid: want 1–128 characters from [A-Za-z0-9_.:/-]", truncate(call.Tool, 80))
		return &d
	}
	if len(call.Input) > MaxInputSize {
		d := invalidf("input is %d bytes, over the %d-byte limit", len(call.Input), MaxInputSize)
		return &d
	}
	raw := call.Input
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	// The document is parsed into the call context itself (a small input
	// then costs no allocation); it must not be copied after.
	sc := cc.sc
	*cc = callCtx{} // cleared in place (a literal with a field would be built apart and copied)
	cc.sc = sc
	if err := cc.docv.Parse(raw); err != nil {
		d := invalidf("input is not valid: %v", err)
		return &d
	}
	doc := &cc.docv
	root := doc.Root()
	if root.Kind() == jsonin.Null {
		doc, _ = jsonin.Parse([]byte("{}"))
		root = doc.Root()
	}
	if root.Kind() != jsonin.Object {
		d := invalidf("input must be a JSON object, not %s", root.Kind())
		return &d
	}
	cwd := call.Cwd
	if cwd == "" || !path.IsAbs(cwd) {
		d := invalidf("working directory %q is not an absolute path", cwd)
		return &d
	}
	if strings.ContainsRune(cwd, 0) || strings.ContainsRune(call.Home, 0) {
		d := invalidf("working or home directory holds a NUL")
		return &d
	}
	home := call.Home
	if home != "" && !path.IsAbs(home) {
		d := invalidf("home directory %q is not an absolute path", home)
		return &d
	}
	cc.c, cc.call, cc.tool = p, *call, call.Tool
	cc.cwd, cc.home, cc.doc, cc.input, cc.mode = path.Clean(cwd), home, doc, root, p.mode
	cc.setTool()
	if home != "" {
		cc.home = path.Clean(home)
	}
	if call.Mode != nil {
		cc.mode = *call.Mode
	}
	if p.disabledModes[cc.mode.Name] {
		d := invalidf("mode %s is disabled by the managed configuration", cc.mode.Name)
		return &d
	}
	if cc.info.Kind == KindMCP || hasPrefixFold(call.Tool, "mcp__") || call.Server != "" {
		cc.splitMCP()
	}
	return nil
}

// setTool reads the call's tool name (cc.tool) against the catalog: its
// lowercased form, and its entry or the entries of the catalog names it
// differs from only in case.
func (cc *callCtx) setTool() {
	if kt, ok := cc.c.known[cc.tool]; ok {
		cc.lower, cc.info, cc.canon = kt.lower, kt.info, cc.tool
		return
	}
	cc.lower = starglob.Lower(cc.tool)
	info, alts := cc.c.resolveUnknownTool(cc.tool, cc.lower)
	cc.info, cc.canon = info, cc.tool
	if len(alts) > 0 {
		cc.info, cc.canon, cc.folded = alts[0].info, alts[0].name, true
		cc.alts = alts[1:]
	}
}

// mayBeReadOnly reports whether the call may count as read-only at all:
// the request did not mark it otherwise and its kind is not only a
// case-folded reading.
func (cc *callCtx) mayBeReadOnly() bool { return !cc.call.NotReadOnly && !cc.folded }

// hasPrefixFold reports whether s starts with the ASCII prefix p, ignoring
// case.
func hasPrefixFold(s, p string) bool { return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) }

// splitMCP finds the server/tool readings of an MCP tool name. Deny and ask
// rules see every split of the name (its "mcp__" prefix in any case) and the
// named server; allow rules see the named server, or else the split of an
// exactly spelled name that can be split only one way (SPEC §3).
func (cc *callCtx) splitMCP() {
	srv := cc.call.Server
	rest, ok := cc.tool, false
	if hasPrefixFold(cc.tool, "mcp__") {
		rest, ok = cc.tool[len("mcp__"):], true
	}
	exact := ok && strings.HasPrefix(cc.tool, "mcp__")
	if !ok {
		if srv != "" {
			cc.mcp = []mcpSplit{{srv, cc.tool}}
			cc.mcpAllow = cc.mcp
		}
		return
	}
	cc.mcp = cc.mcpBuf[:0]
	for i := 1; i+2 < len(rest); i++ {
		if rest[i] == '_' && rest[i+1] == '_' {
			cc.mcp = append(cc.mcp, mcpSplit{rest[:i], rest[i+2:]})
		}
	}
	if len(cc.mcp) == 0 && rest != "" && !strings.Contains(rest, "__") {
		cc.mcp = []mcpSplit{{rest, ""}}
	}
	if srv == "" {
		if exact && len(cc.mcp) == 1 {
			cc.mcpAllow = cc.mcp
		}
		return
	}
	t := rest
	if r, ok := cutPrefixFold(rest, srv+"__"); ok {
		t = r
	}
	named := mcpSplit{srv, t}
	cc.mcpAllow = []mcpSplit{named}
	// Deny and ask: the named server with this tool, and with the tool of
	// every split, besides the splits themselves.
	n := len(cc.mcp)
	cc.mcp = append(cc.mcp, named)
	for _, sp := range cc.mcp[:n] {
		if sp.tool != "" && sp.tool != t {
			cc.mcp = append(cc.mcp, mcpSplit{srv, sp.tool})
		}
	}
}

// cutPrefixFold is strings.CutPrefix ignoring ASCII case.
func cutPrefixFold(s, p string) (string, bool) {
	if hasPrefixFold(s, p) {
		return s[len(p):], true
	}
	return s, false
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// eachDomainRule calls fn for the domain:HOST rules that could match a host
// the call's URL is read as: those keyed by one of its label suffixes, all
// of them when the URL gave no host.
func (cc *callCtx) eachDomainRule(ix *index, fn func(r *crule)) {
	hosts := cc.url.t.Hosts
	if len(hosts) == 0 || cc.url.err != nil {
		for _, rs := range ix.domains {
			for _, r := range rs {
				fn(r)
			}
		}
		return
	}
	for _, h := range hosts {
		urlmatch.HostSuffixes(h, func(s string) {
			for _, r := range ix.domains[s] {
				fn(r)
			}
		})
	}
}

// eachURLHostRule calls fn for the URL-pattern fetch rules keyed by a host
// of the call's URL; all of them when the URL did not parse, since its
// readings' hosts are then not known to be among its Hosts.
func (cc *callCtx) eachURLHostRule(ix *index, fn func(r *crule)) {
	if cc.url.err != nil || len(cc.url.t.Hosts) == 0 {
		for _, rs := range ix.urlHosts {
			for _, r := range rs {
				fn(r)
			}
		}
		return
	}
	for _, h := range cc.url.t.Hosts {
		for _, r := range ix.urlHosts[h] {
			fn(r)
		}
	}
}

// eachRule calls fn for every rule of effect e that names this call's tool.
// firstWords narrows kind-name shell rules to those whose command pattern
// starts with one of them; nil means all of them.
func (cc *callCtx) eachRule(e Effect, firstWords []wordindex.Key, anyFirst bool, fn func(r *crule)) {
	cc.eachRuleFor(e, firstWords, anyFirst, nil, fn)
}

// eachRuleFor is eachRule for one path of a read or edit call: kind-name
// path rules are looked up by the path's components.
func (cc *callCtx) eachRuleFor(e Effect, firstWords []wordindex.Key, anyFirst bool, it *pathItem, fn func(r *crule)) {
	for _, rs := range [2]*ruleSet{cc.c.session, cc.c.static} {
		if rs == nil {
			continue
		}
		ix := rs.of(e)
		name := cc.tool
		if e != EffectAllow {
			name = cc.lower
		}
		if tr := ix.byName[name]; tr != nil {
			tr.visit(cc.input, fn)
		}
		k := cc.info.Kind
		switch {
		case e == EffectAllow && cc.folded:
			// Read as a generic tool for allow: no kind-name rule.
		case k == KindShell:
			if anyFirst {
				ix.shell.All(fn)
			} else {
				ix.shell.Visit(firstWords, e != EffectAllow, fn)
			}
		case isReadKind(k) || k == KindEdit:
		default:
			for _, r := range ix.byKind[k] {
				fn(r)
			}
			if k == KindFetch && len(ix.domains) > 0 {
				cc.eachDomainRule(ix, fn)
			}
			if k == KindFetch && len(ix.urlHosts) > 0 {
				cc.eachURLHostRule(ix, fn)
			}
		}
		if len(ix.byServer) > 0 || len(ix.byServerTool) > 0 {
			splits := cc.mcpAllow
			if e != EffectAllow {
				splits = cc.mcp
			}
			for _, sp := range splits {
				srv, t := sp.server, sp.tool
				if e != EffectAllow {
					srv = starglob.Lower(srv)
				}
				for _, r := range ix.byServer[srv] {
					if r.mcpTool == nil || r.mcpTool.Match(t) {
						fn(r)
					}
				}
				if len(ix.byServerTool) > 0 {
					// The literal tools' key is folded as their globs
					// fold (compile.go, index.add).
					if e != EffectAllow {
						t = starglob.Lower(t)
					}
					if tr := ix.byServerTool[serverTool{srv, t}]; tr != nil {
						tr.visit(cc.input, fn)
					}
				}
			}
		}
		for _, r := range ix.globs {
			if r.nameGlob.Match(cc.tool) && !r.noApprove {
				fn(r)
			}
		}
	}
	if k := cc.info.Kind; (isReadKind(k) || k == KindEdit) && !(e == EffectAllow && cc.folded) {
		if isReadKind(k) {
			k = KindRead
		}
		cc.eachPathRule(e, k, it, fn)
	}
}

// kindRules calls fn for every kind-name rule of effect e for kind k
// ("Read" or "Edit" rules that also apply to other tools).
func (cc *callCtx) kindRules(e Effect, k Kind, it *pathItem, fn func(r *crule)) {
	cc.eachPathRule(e, k, it, fn)
}

// best tracks the first matching rule by priority.
type best struct {
	r    *crule
	part string
}

func (b *best) offer(r *crule, part string) {
	if b.r == nil || r.ordinal < b.r.ordinal {
		b.r, b.part = r, part
	}
}

func (b *best) beats(r *crule) bool { return b.r != nil && b.r.ordinal <= r.ordinal }

// ---- the order of evaluation ----

// decideCore runs steps 2–7 of the order of evaluation (SPEC §6.3) for a
// valid call, the same for every kind of tool: the call's reader (read.go)
// turns it into parts, and each step is written here once over them.
func (p *Policy) decideCore(cc *callCtx) Decision {
	var buf [2]part // backing for the usual one or two parts
	rd, inv := cc.read(buf[:0])
	if inv != nil {
		return *inv
	}
	// Step 2: deny rules, on every part; the first by priority decides.
	if p.enabled {
		var deny best
		for i := range rd.parts {
			cc.offer(EffectDeny, &rd, &rd.parts[i], &deny)
		}
		if deny.r != nil {
			return denyDecision(deny)
		}
	}
	// Step 3: the safety floors.
	floors := cc.floors(&rd)
	// Steps 5 and 6, part by part: ask and allow rules, else the fallback.
	verdicts := cc.partBuf[:0]
	for i := range rd.parts {
		p := &rd.parts[i]
		if p.denyOnly {
			continue
		}
		var ask, allow best
		cc.offer(EffectAsk, &rd, p, &ask)
		if p.delegated {
			// Only an ask rule may judge it; no allow rule or fallback.
			if ask.r != nil {
				v, _ := cc.ruleVerdict(ask, allow)
				verdicts = append(verdicts, v)
			}
			continue
		}
		cc.offer(EffectAllow, &rd, p, &allow)
		if v, ok := cc.ruleVerdict(ask, allow); ok {
			verdicts = append(verdicts, v)
			continue
		}
		verdicts = append(verdicts, cc.partFallback(&rd, p))
	}
	if len(verdicts) == 0 {
		// A call with no part to judge (a shell string of no command).
		verdicts = append(verdicts, cc.fallback(cc.anText, rd.wholeReadOnly, false, false, nil))
	}
	// Steps 4 and 7 (conclude), with the floors of step 3.
	return cc.conclude(floors, rd.readOnly, verdicts)
}

// combine merges the verdicts of a call's parts: the strictest wins.
func combine(vs []verdict) verdict {
	var out verdict
	win := -1 // the first of the strictest verdicts
	var sugg []string
	for i := range vs {
		v := &vs[i]
		if v.outcome == Ask && len(v.suggest) > 0 {
			if sugg == nil {
				// Full: a second part's suggestions are appended to a copy.
				sugg = v.suggest[:len(v.suggest):len(v.suggest)]
			} else {
				sugg = append(sugg, v.suggest...)
			}
		}
		if win < 0 || v.outcome.Effective().severity() > vs[win].outcome.Effective().severity() {
			win = i
		}
	}
	if win >= 0 {
		out.outcome, out.reasons = vs[win].outcome, vs[win].reasonList()
	}
	if out.outcome == Ask {
		out.suggest = dedupe(sugg)
	}
	return out
}

func dedupe(s []string) []string {
	if len(s) < 2 {
		return s
	}
	seen := map[string]bool{}
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// conclude turns the call's floors and part verdicts into a decision
// (steps 3, 4, 6 and 7).
func (cc *callCtx) conclude(floors []Reason, readOnly bool, parts []verdict) Decision {
	c := cc.c
	if !c.enabled {
		if len(floors) > 0 {
			return Decision{Outcome: Ask, Reasons: floors, Prompt: cc.prompt()}
		}
		return Decision{Outcome: Allow, Reasons: []Reason{{Kind: KindMode, Message: "the policy is disabled (enabled: false)"}}}
	}
	if cc.mode.Name == ModePlan && !cc.mode.BypassAvailable && !readOnly && cc.info.Kind != KindPlanExit {
		rs := []Reason{{Kind: KindMode, Message: "plan mode: only read-only calls may run while planning"}}
		return Decision{Outcome: Deny, Reasons: append(rs, floors...)}
	}
	v := combine(parts)
	d := Decision{Outcome: v.outcome, Reasons: v.reasons}
	if len(floors) > 0 && d.Outcome != Deny {
		d.Outcome = Ask
		d.Reasons = append(append([]Reason(nil), floors...), v.reasons...)
		d.Suggestions = nil
	} else if d.Outcome == Ask {
		d.Suggestions = v.suggest
		if cc.mode.Name == ModeAuto && c.opts.Classifier != nil && len(v.reasons) > 0 && (v.reasons[0].Kind == KindDefault || v.reasons[0].Kind == KindReadOnly) {
			if o, err := safeClassify(c.opts.Classifier, cc.call, d); err == nil && (o == Allow || o == Deny) {
				d.Outcome = o
				d.Suggestions = nil
				d.Reasons = append([]Reason{{Kind: KindMode, Message: "auto mode: the classifier answered " + o.String()}}, d.Reasons...)
			}
		}
	}
	if d.Outcome == Ask {
		d.Prompt = cc.prompt()
	}
	return d
}

func safeClassify(f func(Call, Decision) (Outcome, error), c Call, d Decision) (o Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			o, err = Invalid, fmt.Errorf("classifier panicked: %v", r)
		}
	}()
	return f(c, d)
}

// denyDecision builds the decision for a matching deny rule.
func denyDecision(b best) Decision {
	return Decision{Outcome: Deny, Reasons: []Reason{b.r.reason(KindRule, b.part)}}
}

// fallback is step 6 for one part. ro says whether the part is read-only
// and touches only the workspace; secret says it reads a secret file.
func (cc *callCtx) fallback(part string, ro, secret, acceptEdits bool, suggest []string) verdict {
	c := cc.c
	switch cc.mode.Name {
	case ModeBypassPermissions:
		return verdict{outcome: Allow, reasons: []Reason{{Kind: KindMode, Part: part, Message: "bypassPermissions mode allows what no rule decided"}}}
	case ModeAcceptEdits:
		if acceptEdits {
			return verdict{outcome: Allow, reasons: []Reason{{Kind: KindMode, Part: part, Message: "acceptEdits mode allows edits inside the workspace"}}}
		}
	case ModeStrict:
		return verdict{outcome: Deny, reasons: []Reason{{Kind: KindMode, Part: part, Message: "strict mode denies what no rule allowed"}}}
	}
	if secret {
		// SPEC §6.3 step 6 and §7: a secret read is not covered by
		// default_read_only, and not silently by the default either — it
		// needs an allow rule naming it or a person. So it is asked about,
		// unless the default it would otherwise get (default, or for a read
		// inside the workspace also default_read_only) is stricter: deny.
		o := Ask
		if c.defaultOutcome == Deny || ro && c.defaultReadOnly == Deny {
			o = Deny
		}
		return verdict{outcome: o, suggest: suggest, reasons: []Reason{{Kind: KindSafety, Part: part, Message: "reads a secret file: it needs an allow rule whose path names it, or a person"}}}
	}
	if ro {
		return verdict{outcome: c.defaultReadOnly, suggest: suggest, reasons: []Reason{{Kind: KindReadOnly, Part: part, Message: readOnlyMessage(c.defaultReadOnly)}}}
	}
	return verdict{outcome: c.defaultOutcome, suggest: suggest, reasons: []Reason{{Kind: KindDefault, Part: part, Message: defaultMessage(c.defaultOutcome)}}}
}

// defaultMessage is the message of a part no rule matched that takes the
// default o: "no rule matched: the default is " + o.String(), constant for
// the outcomes a default can have.
func defaultMessage(o Outcome) string {
	switch o {
	case Allow:
		return "no rule matched: the default is allow"
	case Ask:
		return "no rule matched: the default is ask"
	case Deny:
		return "no rule matched: the default is deny"
	}
	return "no rule matched: the default is " + o.String()
}

// readOnlyMessage is defaultMessage for default_read_only.
func readOnlyMessage(o Outcome) string {
	switch o {
	case Allow:
		return "read-only and inside the workspace: default_read_only is allow"
	case Ask:
		return "read-only and inside the workspace: default_read_only is ask"
	case Deny:
		return "read-only and inside the workspace: default_read_only is deny"
	}
	return "read-only and inside the workspace: default_read_only is " + o.String()
}

// ruleVerdict applies step 5 to one part given its best ask and allow
// matches.
func (cc *callCtx) ruleVerdict(ask, allow best) (verdict, bool) {
	askV := func() verdict { return verdict{outcome: Ask, rule: ask.r, rulePart: ask.part} }
	allowV := func() verdict { return verdict{outcome: Allow, rule: allow.r, rulePart: allow.part} }
	if cc.c.precedence == DenyAskAllow {
		if ask.r != nil {
			return askV(), true
		}
		if allow.r != nil {
			return allowV(), true
		}
	} else {
		if allow.r != nil {
			return allowV(), true
		}
		if ask.r != nil {
			return askV(), true
		}
	}
	return verdict{}, false
}
