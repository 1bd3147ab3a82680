package toolgate

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/pathmatch"
	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/internal/urlmatch"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// callCtx is everything known about one call while it is decided.
type callCtx struct {
	c     *Config
	call  Call
	tool  string
	lower string
	info  ToolInfo
	cwd   string
	home  string
	doc   *jsonin.Doc
	input jsonin.Value
	mode  Mode
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
	alts []toolReading
	mcp  []mcpSplit // every server/tool reading of an MCP name, for deny and ask
	// mcpAllow is the one reading allow rules may use: the named server, or
	// the only split of an exactly spelled mcp__ name; empty otherwise.
	mcpAllow []mcpSplit

	dir      string // a shell call's working directory (its field, else cwd)
	dirField string // the working-directory field that named dir, if any

	an      *shell.Analysis // the shell command's analysis, once made
	anText  string
	itemBuf [2]pathItem // backing for the usual one or two paths
	partBuf [2]verdict
}

type mcpSplit struct{ server, tool string }

// verdict is the outcome of one part of a call.
type verdict struct {
	outcome Outcome
	reasons []Reason
	suggest []string
}

// Decide returns the decision for one call. It never panics: an internal
// failure is a denial with reason kind "error".
func (c *Config) Decide(call Call) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Denial(KindError, fmt.Sprintf("internal error while deciding: %v", r))
		}
	}()
	var ctx callCtx
	cc := &ctx
	if inv := c.prepare(cc, &call); inv != nil {
		return *inv
	}
	d = c.decideReadings(cc)
	if call.Agent != "" {
		d = c.applyAgent(cc, d)
	}
	return c.finish(cc, d)
}

// decideReadings decides the call as its tool is read and, when its name
// folds to catalog names of several kinds, as each of them: deny sees every
// form, so the strictest decision wins.
func (c *Config) decideReadings(cc *callCtx) Decision {
	d := c.decideRewritten(cc)
	for _, alt := range cc.alts {
		if d.Outcome == Deny {
			break
		}
		ac := *cc
		ac.info, ac.canon, ac.alts, ac.an = alt.info, alt.name, nil, nil
		if d2 := c.decideRewritten(&ac); d2.Outcome.Effective().severity() > d.Outcome.Effective().severity() {
			d = d2
		}
	}
	return d
}

// finish applies the last step of evaluation: where nobody can be asked,
// ask becomes deny.
func (c *Config) finish(cc *callCtx, d Decision) Decision {
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
func (c *Config) prepare(cc *callCtx, call *Call) *Decision {
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
	doc, err := jsonin.Parse(raw)
	if err != nil {
		d := invalidf("input is not valid: %v", err)
		return &d
	}
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
	*cc = callCtx{c: c, call: *call, tool: call.Tool,
		cwd: path.Clean(cwd), home: home, doc: doc, input: root, mode: c.mode}
	cc.setTool()
	if home != "" {
		cc.home = path.Clean(home)
	}
	if call.Mode != nil {
		cc.mode = *call.Mode
	}
	if c.disabledModes[cc.mode.Name] {
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
	cc.lower = lowerASCIIFast(cc.tool)
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

// eachRule calls fn for every rule of effect e that names this call's tool.
// firstWords narrows kind-name shell rules to those whose command pattern
// starts with one of them; nil means all of them.
func (cc *callCtx) eachRule(e Effect, firstWords []string, anyFirst bool, fn func(r *crule)) {
	cc.eachRuleFor(e, firstWords, anyFirst, nil, fn)
}

// eachRuleFor is eachRule for one path of a read or edit call: kind-name
// path rules are looked up by the path's components.
func (cc *callCtx) eachRuleFor(e Effect, firstWords []string, anyFirst bool, it *pathItem, fn func(r *crule)) {
	for _, rs := range [2]*ruleSet{cc.c.session, cc.c.static} {
		if rs == nil {
			continue
		}
		ix := rs.of(e)
		name := cc.tool
		if e != EffectAllow {
			name = cc.lower
		}
		for _, r := range ix.byName[name] {
			fn(r)
		}
		k := cc.info.Kind
		switch {
		case e == EffectAllow && cc.folded:
			// Read as a generic tool for allow: no kind-name rule.
		case k == KindShell:
			if anyFirst {
				for _, rules := range ix.shellBy {
					for _, r := range rules {
						fn(r)
					}
				}
			} else {
				for _, w := range firstWords {
					if e != EffectAllow {
						w = lowerASCIIFast(w)
					}
					for _, r := range ix.shellBy[w] {
						fn(r)
					}
				}
			}
			for _, r := range ix.shellAny {
				fn(r)
			}
		case isReadKind(k) || k == KindEdit:
		default:
			for _, r := range ix.byKind[k] {
				fn(r)
			}
		}
		if len(ix.byServer) > 0 {
			splits := cc.mcpAllow
			if e != EffectAllow {
				splits = cc.mcp
			}
			for _, sp := range splits {
				srv, t := sp.server, sp.tool
				if e != EffectAllow {
					srv = lowerASCIIFast(srv)
				}
				for _, r := range ix.byServer[srv] {
					if r.mcpTool == nil || r.mcpTool.match(t) {
						fn(r)
					}
				}
			}
		}
		for _, r := range ix.globs {
			if r.nameGlob.match(cc.tool) && !r.noApprove {
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

// decideCore runs steps 2–7 of the order of evaluation for a valid call.
func (c *Config) decideCore(cc *callCtx) Decision {
	switch cc.info.Kind {
	case KindShell:
		return cc.decideShell()
	case KindRead, KindList, KindSearch, KindEdit:
		return cc.decidePaths()
	case KindFetch:
		return cc.decideFetch()
	}
	return cc.decideGeneric()
}

// combine merges the verdicts of a call's parts: the strictest wins.
func combine(vs []verdict) verdict {
	var out verdict
	first := true
	var sugg []string
	for _, v := range vs {
		if v.outcome == Ask {
			sugg = append(sugg, v.suggest...)
		}
		if first || v.outcome.Effective().severity() > out.outcome.Effective().severity() {
			out.outcome, out.reasons = v.outcome, v.reasons
			first = false
		}
	}
	if out.outcome == Ask {
		out.suggest = dedupe(sugg)
	}
	return out
}

func dedupe(s []string) []string {
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
		return verdict{outcome: c.defaultReadOnly, suggest: suggest, reasons: []Reason{{Kind: KindReadOnly, Part: part, Message: "read-only and inside the workspace: default_read_only is " + c.defaultReadOnly.String()}}}
	}
	return verdict{outcome: c.defaultOutcome, suggest: suggest, reasons: []Reason{{Kind: KindDefault, Part: part, Message: "no rule matched: the default is " + c.defaultOutcome.String()}}}
}

// ruleVerdict applies step 5 to one part given its best ask and allow
// matches.
func (cc *callCtx) ruleVerdict(ask, allow best) (verdict, bool) {
	askV := func() verdict { return verdict{outcome: Ask, reasons: []Reason{ask.r.reason(KindRule, ask.part)}} }
	allowV := func() verdict {
		return verdict{outcome: Allow, reasons: []Reason{allow.r.reason(KindRule, allow.part)}}
	}
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

// inWorkspace reports whether every reading of a path lies in the workspace.
func (cc *callCtx) inWorkspace(it *pathItem) bool {
	if !it.placed || it.unresolved {
		return false
	}
	for _, f := range it.forms() {
		ok := pathmatch.Inside(f, cc.cwd)
		for _, d := range cc.c.additionalDirs {
			if ok {
				break
			}
			ok = pathmatch.Inside(f, d)
		}
		if !ok {
			return false
		}
	}
	return true
}

// isSecret reports whether any reading of a path is a secret file.
func (cc *callCtx) isSecret(it *pathItem) bool {
	_, ok := cc.secretPart(it)
	return ok
}

// secretPart reports whether any reading of a path is a secret file, and
// which: the link or its target.
func (cc *callCtx) secretPart(it *pathItem) (string, bool) {
	if it.unresolved {
		return it.display(), true // the link's target is unknown and could be one
	}
	if !it.placed {
		return it.text, pathmatch.IsSecret("/" + path.Base(it.text))
	}
	for _, f := range it.forms() {
		if pathmatch.IsSecret(f) {
			return f, true
		}
	}
	return "", false
}

// protectedPart is protected that also names the reading that is
// protected: the link or its target.
func (cc *callCtx) protectedPart(it *pathItem) (entry, part string, ok bool) {
	if cc.c.protection == nil {
		return "", it.display(), true // fail closed
	}
	if it.unresolved {
		return "a symlink whose target cannot be read", it.display(), true
	}
	if !it.placed {
		e, ok := cc.c.protection.Check("/"+path.Base(it.text), "/", cc.home)
		return e, it.text, ok
	}
	for _, f := range it.forms() {
		if e, ok := cc.c.protection.Check(f, cc.cwd, cc.home); ok {
			return e, f, true
		}
	}
	return "", "", false
}

// matchPath matches a path rule against one path: deny and ask rules any
// reading, allow rules every reading.
func (cc *callCtx) matchPath(r *crule, it *pathItem) bool {
	_, ok := cc.matchPathPart(r, it)
	return ok
}

// matchPathPart is matchPath that also returns the reason's part: for deny
// and ask, the reading that matched — the link or its target (SPEC §2) —;
// for allow, which needs every reading, the path itself.
func (cc *callCtx) matchPathPart(r *crule, it *pathItem) (string, bool) {
	if !r.fold && it.unresolved {
		return "", false // the target is unknown: allow needs every reading
	}
	switch r.spec {
	case specNone:
		return it.display(), true
	case specPath:
	default:
		return "", false
	}
	if r.fold {
		if !it.placed {
			// After a dynamic cd the directory is unknown: try the name
			// alone, and the path as if the directory were the working
			// directory or any directory below it.
			return it.text, r.pathPat.MatchName(path.Base(it.text)) ||
				(!path.IsAbs(it.text) && !strings.HasPrefix(it.text, "~") &&
					(r.pathPat.Match(path.Join(cc.cwd, it.text), cc.cwd, cc.home) ||
						r.pathPat.Match(path.Join(cc.cwd, "…", it.text), cc.cwd, cc.home)))
		}
		for _, f := range it.forms() {
			if it.glob {
				if r.pathPat.MayMatchGlob(f, cc.cwd, cc.home) {
					return f, true
				}
			} else if r.pathPat.Match(f, cc.cwd, cc.home) {
				return f, true
			}
		}
		return "", false
	}
	if !it.placed || it.unresolved {
		return "", false
	}
	for _, f := range it.forms() {
		if !r.pathPat.Match(f, cc.cwd, cc.home) {
			return "", false
		}
	}
	return it.display(), true
}

// namesSecret reports whether an allow rule may approve reading a secret: a
// path pattern whose last segment holds a literal character.
func namesSecret(r *crule) bool { return r.spec == specPath && r.pathPat.NamesLiteral() }

// ---- read, list, search and edit calls ----

func (cc *callCtx) decidePaths() Decision {
	items, inv := cc.readPaths()
	if inv != nil {
		return *inv
	}
	k := cc.info.Kind
	edit := k == KindEdit
	// Step 2: deny rules, on every path. A Read deny rule also blocks edits.
	var deny best
	for i := range items {
		it := &items[i]
		f := func(r *crule) {
			if deny.beats(r) {
				return
			}
			if part, ok := cc.matchPathPart(r, it); ok {
				deny.offer(r, part)
			}
		}
		if cc.c.enabled {
			cc.eachRuleFor(EffectDeny, nil, false, it, f)
			if edit {
				cc.kindRules(EffectDeny, KindRead, it, f)
			}
		}
	}
	if deny.r != nil {
		return denyDecision(deny)
	}
	// Step 3: floors.
	var floors []Reason
	for i := range items {
		it := &items[i]
		if edit {
			if e, part, ok := cc.protectedPart(it); ok {
				floors = append(floors, Reason{Kind: KindSafety, Part: part, Message: "writes a protected path (" + e + ")"})
			}
		}
		if k == KindSearch && !cc.info.ExcludesDenied && cc.c.enabled && !cc.knownFile(it) {
			// Only a directory holds files below it; a searched file is a
			// plain content read (read deny rules and the secret check).
			if r, part := cc.searchHitsDenied(it); r != nil {
				floors = append(floors, Reason{Kind: KindSafety, Part: part, Message: fmt.Sprintf("content search of a directory where read deny rule %q could match", r.text)})
			}
		}
	}
	parts := cc.partBuf[:0]
	for i := range items {
		it := &items[i]
		var ask, allow best
		askFn := func(r *crule) {
			if ask.beats(r) {
				return
			}
			if part, ok := cc.matchPathPart(r, it); ok {
				ask.offer(r, part)
			}
		}
		cc.eachRuleFor(EffectAsk, nil, false, it, askFn)
		if edit {
			cc.kindRules(EffectAsk, KindRead, it, askFn)
		}
		secretPart, secret := "", false
		if !edit {
			secretPart, secret = cc.secretPart(it)
		}
		cc.eachRuleFor(EffectAllow, nil, false, it, func(r *crule) {
			if !allow.beats(r) && cc.matchPath(r, it) && (!secret || namesSecret(r)) {
				allow.offer(r, it.display())
			}
		})
		if v, ok := cc.ruleVerdict(ask, allow); ok {
			parts = append(parts, v)
			continue
		}
		inside := cc.inWorkspace(it)
		part := it.display()
		if secret {
			part = secretPart
		}
		parts = append(parts, cc.fallback(part, !edit && cc.mayBeReadOnly() && inside, secret, edit && inside && !cc.folded, []string{suggestPath(k, it)}))
	}
	return cc.conclude(floors, !edit && cc.mayBeReadOnly(), parts)
}

func (it *pathItem) display() string {
	if it.placed {
		return it.abs
	}
	return it.text
}

// The kinds of path a content search can name.
const (
	pathUnknown = iota
	pathFile
	pathDir
)

// pathKind says, through Options.IsDir, whether every reading of the path
// is a file or every one a directory. Without IsDir, for a path that cannot
// be placed or resolved, a glob, an error or readings that differ, the kind
// is unknown.
func (cc *callCtx) pathKind(it *pathItem) int {
	isDir := cc.c.opts.IsDir
	if isDir == nil || !it.placed || it.unresolved || it.glob {
		return pathUnknown
	}
	kind := pathUnknown
	for _, f := range it.forms() {
		d, err := isDir(f)
		k := pathFile
		if d {
			k = pathDir
		}
		if err != nil || kind != pathUnknown && k != kind {
			return pathUnknown
		}
		kind = k
	}
	return kind
}

// knownFile reports whether the path is known to be a file.
func (cc *callCtx) knownFile(it *pathItem) bool { return cc.pathKind(it) == pathFile }

// searchHitsDenied returns a read deny rule that could match something
// below the searched directory, and the reading of the directory (the link
// or its target) below which it could.
func (cc *callCtx) searchHitsDenied(it *pathItem) (*crule, string) {
	var hit *crule
	var part string
	f := func(r *crule) {
		if hit != nil || r.spec != specPath {
			return
		}
		if !it.placed {
			hit, part = r, it.text
			return
		}
		for _, form := range it.forms() {
			if r.pathPat.MayMatchBelow(form, cc.cwd, cc.home) {
				hit, part = r, form
				return
			}
		}
	}
	cc.kindRules(EffectDeny, KindRead, nil, f)
	return hit, part
}

// ---- fetch calls ----

func (cc *callCtx) decideFetch() Decision {
	v := cc.input.Lookup(cc.info.Field)
	if cc.info.Field == "" {
		v = cc.input.Get("url")
	}
	raw, ok := v.Str()
	if !ok {
		return invalidf("fetch call needs a string %q", "url")
	}
	if v.HasControl() {
		return invalidf("url holds a control character")
	}
	t, perr := urlmatch.ParseLazy(raw)
	match := func(r *crule) bool { return cc.matchFetch(r, &t, perr) }
	var deny, ask, allow best
	if cc.c.enabled {
		cc.eachRule(EffectDeny, nil, false, func(r *crule) {
			if !deny.beats(r) && match(r) {
				deny.offer(r, raw)
			}
		})
	}
	if deny.r != nil {
		return denyDecision(deny)
	}
	cc.eachRule(EffectAsk, nil, false, func(r *crule) {
		if !ask.beats(r) && match(r) {
			ask.offer(r, raw)
		}
	})
	cc.eachRule(EffectAllow, nil, false, func(r *crule) {
		if !allow.beats(r) && match(r) {
			allow.offer(r, raw)
		}
	})
	var parts []verdict
	if v, ok := cc.ruleVerdict(ask, allow); ok {
		parts = []verdict{v}
	} else {
		var sugg []string
		if perr == nil && len(t.Hosts) > 0 {
			sugg = []string{"WebFetch(domain:" + t.Hosts[0] + ")"}
		}
		fv := cc.fallback(raw, false, false, false, sugg)
		if perr != nil && fv.outcome == Allow {
			fv = verdict{outcome: Ask, reasons: []Reason{{Kind: KindDefault, Part: raw, Message: "URL cannot be read fully (" + perr.Error() + "): it can only be asked about"}}}
		}
		if perr != nil {
			fv.reasons = append(fv.reasons, Reason{Kind: KindInvalid, Part: raw, Message: perr.Error()})
		}
		parts = []verdict{fv}
	}
	return cc.conclude(nil, cc.mayBeReadOnly(), parts)
}

// ---- everything else: web searches, agents, MCP and generic tools ----

func (cc *callCtx) decideGeneric() Decision {
	var deny, ask, allow best
	if cc.c.enabled {
		cc.eachRule(EffectDeny, nil, false, func(r *crule) {
			if !deny.beats(r) && cc.matchParams(r) {
				deny.offer(r, "")
			}
		})
	}
	if deny.r != nil {
		return denyDecision(deny)
	}
	cc.eachRule(EffectAsk, nil, false, func(r *crule) {
		if !ask.beats(r) && cc.matchParams(r) {
			ask.offer(r, "")
		}
	})
	cc.eachRule(EffectAllow, nil, false, func(r *crule) {
		if !allow.beats(r) && cc.matchParams(r) {
			allow.offer(r, "")
		}
	})
	ro := cc.info.ReadOnly && cc.mayBeReadOnly()
	var parts []verdict
	if v, ok := cc.ruleVerdict(ask, allow); ok {
		parts = []verdict{v}
	} else {
		covered := ro && cc.info.Kind != KindWebSearch && cc.info.Kind != KindFetch
		parts = []verdict{cc.fallback("", covered, false, false, []string{cc.tool})}
	}
	return cc.conclude(nil, ro, parts)
}

// matchParams matches a rule whose specifier reads the input's parameters
// or primary field.
func (cc *callCtx) matchParams(r *crule) bool {
	switch r.spec {
	case specNone:
		return true
	case specParam:
		ok := matchValue(cc.input.Lookup(r.paramKey), &r.glob, r.fold)
		if !ok && r.fold && r.dualGlob != nil {
			ok = matchValue(cc.primary(r), r.dualGlob, true)
		}
		if !r.fold && r.dualGlob != nil {
			return matchValue(cc.primary(r), r.dualGlob, false)
		}
		return ok
	case specPrimary:
		return matchValue(cc.primary(r), &r.glob, r.fold)
	case specAnyString:
		if !r.fold {
			return false
		}
		found := false
		cc.input.Strings(func(s string) bool {
			found = r.glob.match(s)
			return !found
		})
		return found
	}
	return false
}

// primary returns the call's primary field value for a rule.
func (cc *callCtx) primary(r *crule) jsonin.Value {
	f := cc.info.Field
	if f == "" {
		f = kindPrimaryField(cc.info.Kind)
	}
	if f == "" {
		return jsonin.Value{}
	}
	return cc.input.Lookup(f)
}

// matchValue matches a glob against a JSON value: deny/ask any element or
// string inside, allow every element and never an object.
func matchValue(v jsonin.Value, g *starGlob, fold bool) bool {
	if !v.Exists() {
		return false
	}
	switch v.Kind() {
	case jsonin.String:
		s, _ := v.Str()
		return g.match(s)
	case jsonin.Array:
		if v.Len() == 0 {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			m := matchValue(v.Index(i), g, fold)
			if fold && m {
				return true
			}
			if !fold && !m {
				return false
			}
		}
		return !fold
	case jsonin.Object:
		if !fold {
			return false
		}
		found := false
		v.Strings(func(s string) bool {
			found = g.match(s)
			return !found
		})
		return found
	}
	return g.match(v.Text())
}

// ---- shell calls ----

func (cc *callCtx) decideShell() Decision {
	cmdText, inv := cc.shellCommand()
	if inv != nil {
		return *inv
	}
	an := analyze(cc, cmdText)
	enabled := cc.c.enabled

	type cmdPaths struct {
		args, reads, writes, redirects, searches []pathItem
		first                                    []string // literal command names of every form; nil: some are dynamic
	}
	cps := make([]cmdPaths, len(an.Commands))
	total, nforms := 0, 0
	for _, cmd := range an.Commands {
		total += len(cmd.ArgPaths) + len(cmd.Reads) + len(cmd.Writes) + len(cmd.Redirects) + len(cmd.Searches)
		nforms += len(cmd.Forms)
	}
	names := make([]string, 0, nforms)    // backing for every command's literal names
	backing := make([]pathItem, 0, total) // one allocation for every path of the call
	for i, cmd := range an.Commands {
		cp := &cps[i]
		conv := func(refs []shell.PathRef) []pathItem {
			if len(refs) == 0 {
				return nil
			}
			start := len(backing)
			for _, r := range refs {
				backing = append(backing, cc.shellPathItem(cmd, r))
			}
			return backing[start:len(backing):len(backing)]
		}
		cp.args, cp.reads, cp.writes = conv(cmd.ArgPaths), conv(cmd.Reads), conv(cmd.Writes)
		cp.redirects, cp.searches = conv(cmd.Redirects), conv(cmd.Searches)
		if len(cp.searches) > 0 {
			// A recursive search of a file reads that file: it faces the
			// secret check as a read. Only a directory can hold denied
			// files below it; a path of unknown kind is both.
			var dirs []pathItem
			for j := range cp.searches {
				it := cp.searches[j]
				switch cc.pathKind(&it) {
				case pathFile:
					cp.reads = append(cp.reads, it)
				case pathDir:
					dirs = append(dirs, it)
				default:
					cp.reads = append(cp.reads, it)
					dirs = append(dirs, it)
				}
			}
			cp.searches = dirs
		}
		cp.first, names = firstWords(cmd, names)
		if cmd.StdinStatic && len(cmd.Words) > 0 && cmd.Words[0].Static && cmd.Words[0].Value == "apply_patch" {
			ps, err := pathmatch.PatchPaths(cmd.Stdin)
			if err != nil {
				return invalidf("malformed apply_patch body: %v", err)
			}
			for _, p := range ps {
				// An edit of each header path, as by the apply_patch tool: it
				// needs an edit allow rule like a redirection target.
				it := cc.newPathItem(p, cmd.Dir, false)
				cp.writes = append(cp.writes, it)
				cp.redirects = append(cp.redirects, it)
			}
		}
	}

	// Step 2: deny rules on every command, in every form, and read and edit
	// deny rules on every path the commands name.
	matchCmd := func(e Effect, cmd *shell.Command, cp *cmdPaths) best {
		var b best
		fw := cp.first
		anyFirst := fw == nil
		cc.eachRule(e, fw, anyFirst, func(r *crule) {
			if b.beats(r) {
				return
			}
			if cc.matchShellRule(r, cmd, true) {
				b.offer(r, cmd.Text)
			}
		})
		pathRules := func(k Kind, items []pathItem) {
			for i := range items {
				it := &items[i]
				cc.kindRules(e, k, it, func(r *crule) {
					if r.spec == specPath && !b.beats(r) && cc.matchPath(r, it) {
						b.offer(r, cmd.Text)
					}
				})
			}
		}
		for _, items := range [][]pathItem{cp.args, cp.reads, cp.writes, cp.redirects} {
			pathRules(KindRead, items)
		}
		if len(cp.writes) > 0 || cmd.MayWrite {
			pathRules(KindEdit, cp.writes)
			pathRules(KindEdit, cp.args)
		}
		return b
	}
	var deny best
	if enabled {
		for i, cmd := range an.Commands {
			if b := matchCmd(EffectDeny, cmd, &cps[i]); b.r != nil {
				deny.offer(b.r, b.part)
			}
		}
	}
	if deny.r != nil {
		return denyDecision(deny)
	}

	// Step 3: floors.
	var floors []Reason
	if enabled {
		for _, is := range an.Unanalysable {
			floors = append(floors, Reason{Kind: KindSafety, Part: is.Part, Message: "cannot be analysed: " + is.Message})
		}
	}
	for i, cmd := range an.Commands {
		cp := &cps[i]
		if enabled && cmd.Unanalysable != "" {
			floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: "cannot be analysed: " + cmd.Unanalysable})
		}
		if cmd.CriticalRemoval != "" {
			floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: "critical removal of " + cmd.CriticalRemoval})
		}
		prot := append(append([]pathItem(nil), cp.writes...), cp.redirects...)
		if !cmd.ReadOnly && (len(cp.writes) > 0 || cmd.MayWrite) {
			prot = append(prot, cp.args...)
		}
		for j := range prot {
			if e, form, ok := cc.protectedPart(&prot[j]); ok {
				floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: "writes a protected path (" + e + "): " + form})
				break
			}
		}
		if enabled {
			for j := range cp.searches {
				if r, dir := cc.searchHitsDenied(&cp.searches[j]); r != nil {
					floors = append(floors, Reason{Kind: KindSafety, Part: cmd.Text, Message: fmt.Sprintf("content search of %s, where read deny rule %q could match", dir, r.text)})
					break
				}
			}
		}
	}

	// Steps 5 and 6, per command.
	canAllow := len(an.Unanalysable) == 0 && len(an.UnsafeAssign) == 0
	nonWrapper := 0
	for _, cmd := range an.Commands {
		if !cmd.Wrapper {
			nonWrapper++
		}
	}
	parts := make([]verdict, 0, len(an.Commands))
	for i, cmd := range an.Commands {
		if cmd.Wrapper && nonWrapper > 0 {
			continue
		}
		cp := &cps[i]
		ask := matchCmd(EffectAsk, cmd, cp)
		var allow best
		secretRead := false
		for j := range cp.reads {
			if cc.isSecret(&cp.reads[j]) {
				secretRead = true
			}
		}
		if canAllow && cmd.Unanalysable == "" {
			cc.eachRule(EffectAllow, cp.first, false, func(r *crule) {
				if allow.beats(r) || !cc.matchShellRule(r, cmd, false) {
					return
				}
				allow.offer(r, cmd.Text)
			})
			if allow.r != nil && !cc.shellTargetsAllowed(cp.redirects, cp.reads) {
				allow = best{}
			}
		}
		if v, ok := cc.ruleVerdict(ask, allow); ok {
			parts = append(parts, v)
			continue
		}
		ro := cmd.ReadOnly && cc.mayBeReadOnly() && len(an.UnsafeAssign) == 0 && cmd.Dir != ""
		if ro && cmd.Dir != cc.cwd {
			// A command naming no path touches the directory it runs in
			// (a working-directory field, a cd): it must be in the workspace.
			d := cc.newPathItem(cmd.Dir, cmd.Dir, false)
			ro = cc.inWorkspace(&d)
		}
		if ro {
			for _, items := range [][]pathItem{cp.args, cp.reads, cp.searches} {
				for j := range items {
					if !cc.inWorkspace(&items[j]) {
						ro = false
					}
				}
			}
		}
		ae := cmd.AcceptEdits && !cc.folded && len(an.UnsafeAssign) == 0 && cmd.Dir != "" && len(cp.writes) > 0
		if ae {
			// Every file it writes and every file it reads (cp's sources)
			// must lie inside the workspace.
			for _, items := range [][]pathItem{cp.writes, cp.reads} {
				for j := range items {
					if !cc.inWorkspace(&items[j]) {
						ae = false
					}
				}
			}
		}
		var sugg []string
		if s := suggestShell(cmd); s != "" {
			sugg = []string{s}
		}
		v := cc.fallback(cmd.Text, ro, secretRead, ae, sugg)
		if len(cp.redirects) > 0 && v.outcome == Allow && v.reasons[0].Kind == KindReadOnly {
			// A read-only command with an output redirection: the target is
			// judged like an edit call.
			v = cc.fallback(cmd.Text, false, false, cc.allInWorkspace(cp.redirects), sugg)
		}
		parts = append(parts, v)
	}
	if len(parts) == 0 {
		parts = append(parts, cc.fallback(cmdText, an.ReadOnly, false, false, nil))
	}
	return cc.conclude(floors, an.ReadOnly && cc.mayBeReadOnly(), parts)
}

func (cc *callCtx) allInWorkspace(items []pathItem) bool {
	for i := range items {
		if !cc.inWorkspace(&items[i]) {
			return false
		}
	}
	return true
}

// shellTargetsAllowed checks what a command allowed by a shell rule must
// also satisfy: each output redirection target needs an edit allow rule,
// and a secret read needs a read allow rule naming it.
func (cc *callCtx) shellTargetsAllowed(redirects, reads []pathItem) bool {
	for i := range redirects {
		it := &redirects[i]
		if !it.placed || it.unresolved {
			// A target that cannot be placed (after a dynamic cd) or whose
			// links cannot be read: no allow rule, not even a bare Edit,
			// names it.
			return false
		}
		ok := false
		cc.kindRules(EffectAllow, KindEdit, it, func(r *crule) {
			if !ok && cc.matchPath(r, it) {
				ok = true
			}
		})
		if !ok {
			return false
		}
	}
	for i := range reads {
		it := &reads[i]
		if !cc.isSecret(it) {
			continue
		}
		ok := false
		cc.kindRules(EffectAllow, KindRead, it, func(r *crule) {
			if !ok && namesSecret(r) && cc.matchPath(r, it) {
				ok = true
			}
		})
		if !ok {
			return false
		}
	}
	return true
}

func (cc *callCtx) shellPathItem(cmd *shell.Command, r shell.PathRef) pathItem {
	if r.Path == "" {
		return pathItem{text: r.Text, glob: r.Glob}
	}
	it := cc.newPathItem(r.Path, cmd.Dir, r.Glob)
	it.text = r.Text
	return it
}

// firstWords appends the literal command names of every form to buf and
// returns them, or nil when one of them is not static (then every rule must
// be tried), with the grown buf.
func firstWords(cmd *shell.Command, buf []string) ([]string, []string) {
	start := len(buf)
	for _, f := range cmd.Forms {
		if len(f) == 0 {
			continue
		}
		if !f[0].Static {
			return nil, buf[:start]
		}
		buf = append(buf, f[0].Value)
	}
	return buf[start:len(buf):len(buf)], buf
}

// matchShellRule matches a rule against one simple command: deny and ask
// rules any form, allow rules the allow reading.
func (cc *callCtx) matchShellRule(r *crule, cmd *shell.Command, denyLike bool) bool {
	switch r.spec {
	case specNone:
		if denyLike {
			return true
		}
		return !cmd.ExactOnly
	case specShell:
	default:
		return false
	}
	if denyLike {
		for _, f := range cmd.Forms {
			if r.shellPat.Match(f, true) {
				return true
			}
		}
		return false
	}
	if cmd.ExactOnly && r.shellPat.HasWildcard() {
		return false
	}
	return r.shellPat.MatchAllow(cmd)
}

// matchFetch matches a rule against a fetch call's URL: deny and ask rules
// any reading, allow rules every reading of a URL that parsed.
func (cc *callCtx) matchFetch(r *crule, t *urlmatch.Target, perr error) bool {
	if !r.fold && perr != nil {
		return false
	}
	switch r.spec {
	case specNone:
		return true
	case specDomain:
		if len(t.Hosts) == 0 {
			return false
		}
		for _, h := range t.Hosts {
			if r.domain.Match(h) {
				if r.fold {
					return true
				}
			} else if !r.fold {
				return false
			}
		}
		return !r.fold
	case specURL:
		if len(t.URLs) == 0 {
			return false
		}
		for _, u := range t.URLs {
			if r.urlPat.Match(u) {
				if r.fold {
					return true
				}
			} else if !r.fold {
				return false
			}
		}
		if r.fold {
			if len(t.AltURLs) == 0 {
				t.AltURLs = urlmatch.AltURLsOf(t.URLs)
			}
			for _, u := range t.AltURLs {
				if r.urlPat.Match(u) {
					return true
				}
			}
			return false
		}
		return true
	}
	return cc.matchParams(r)
}

// analyze parses a shell command for a call, once: rewrites and
// MatchingRules weigh many rules against the same command.
func analyze(cc *callCtx, s string) *shell.Analysis {
	if cc.an != nil && cc.anText == s {
		return cc.an
	}
	dir := cc.dir
	if dir == "" {
		dir = cc.cwd
	}
	cc.an = shell.Analyze(s, shell.Options{Cwd: dir, Home: cc.home, Glob: cc.c.opts.Glob})
	cc.anText = s
	return cc.an
}
