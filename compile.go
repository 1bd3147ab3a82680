package toolgate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/toolgate/toolgate/internal/pathmatch"
	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/internal/starglob"
	"github.com/toolgate/toolgate/internal/urlmatch"
	"github.com/toolgate/toolgate/internal/wordindex"
	"github.com/toolgate/toolgate/rule"
)

type toolOverride struct {
	glob starglob.Glob
	fold starglob.Glob // the same glob, case-insensitive: for names that differ only in case
	spec ToolSpec
}

// crule is one compiled rule. Its one-byte fields come together, after
// text, so that they share one word (224 bytes a rule, not 240).
type crule struct {
	text   string
	effect Effect
	source Source
	fold   bool // deny and ask: case-insensitive throughout

	// tool matching
	isKind    bool
	kind      Kind // the kind of tool the rule names (for specifiers)
	noApprove bool // allow rule that approves nothing (Claude settings glob)

	file    string
	pos     Position
	ordinal int
	id      RuleID // where the rule is written; its readings share it

	name      string
	nameGlob  *starglob.Glob
	mcpServer string // server-scoped: mcp__srv or mcp__srv__glob
	mcpTool   *starglob.Glob

	// m matches the rule's specifier (match.go); anyMatcher when it has
	// none.
	m         matcher
	firstWord string   // shell: literal first word, for the index ("" if none)
	words     []string // shell: the literal leading words (words[0] == firstWord), read by the index when it needs them
}

func (r *crule) reason(kind ReasonKind, part string) Reason {
	if r.source == SourceSession && kind == KindRule {
		kind = KindSession
	}
	return Reason{Kind: kind, Rule: r.text, Effect: r.effect.String(), Source: r.source.String(),
		File: r.file, Line: r.pos.Line, Column: r.pos.Column, Part: part, RuleID: r.id}
}

// index holds one effect's rules, indexed by what they name.
type index struct {
	byName   map[string]*toolRules   // exact tool names (lowercased when folded)
	byKind   [numKinds][]*crule      // kind-name rules other than shell and path-pattern rules
	shell    wordindex.Index[*crule] // kind-name shell rules by their literal leading words
	byServer map[string][]*crule     // server-scoped MCP rules without a literal tool
	// byServerTool: server-scoped MCP rules of one literal tool, by server
	// and tool (lowercased when folded).
	byServerTool map[serverTool]*toolRules
	domains      map[string][]*crule // kind-name fetch rules domain:HOST by the host's literal end (Domain.IndexKey)
	urlHosts     map[string][]*crule // kind-name fetch rules with a URL pattern, by its literal host (URLPattern.IndexHost)
	paths        [numKinds]pathRules // kind-name path-pattern rules (pathindex.go)
	globs        []*crule            // tool-name globs
	all          []*crule
}

// ruleWords returns a shell rule's literal leading words for the
// wordindex, reading them from its pattern the first time they are needed.
func ruleWords(r *crule) []string {
	if r.words == nil {
		if m, ok := r.m.(shellMatcher); ok {
			if lw := m.p.LeadingWords(r.fold, wordindex.MaxWords); len(lw) > 0 && lw[0] == r.firstWord {
				r.words = lw
			}
		}
		if r.words == nil {
			r.words = []string{r.firstWord}
		}
	}
	return r.words
}

// serverTool keys an MCP server's literal tool.
type serverTool struct{ server, tool string }

// literalGlob returns the text a glob without a star matches; a nil glob
// has none.
func literalGlob(g *starglob.Glob) (string, bool) {
	if g == nil {
		return "", false
	}
	return g.Literal()
}

func newIndex() *index {
	return &index{byName: map[string]*toolRules{}, byServer: map[string][]*crule{}, byServerTool: map[serverTool]*toolRules{}}
}

// addTo adds r to the rules m holds under k.
func addTo[K comparable](m map[K]*toolRules, k K, r *crule) {
	tr := m[k]
	if tr == nil {
		tr = &toolRules{}
		m[k] = tr
	}
	tr.add(r)
}

func (ix *index) add(r *crule) {
	ix.all = append(ix.all, r)
	switch {
	case r.isKind && r.kind == KindShell:
		ix.shell.Add(r, r.firstWord, ruleWords)
	case r.isKind && r.pathPattern() != nil:
		ix.paths[r.kind].Add(r.pathPattern().String(), r)
	case r.isKind && r.kind == KindFetch && r.domainKey() != "":
		if ix.domains == nil {
			ix.domains = map[string][]*crule{}
		}
		k := r.domainKey()
		ix.domains[k] = append(ix.domains[k], r)
	case r.isKind && r.kind == KindFetch && r.urlHost() != "":
		if ix.urlHosts == nil {
			ix.urlHosts = map[string][]*crule{}
		}
		h := r.urlHost()
		ix.urlHosts[h] = append(ix.urlHosts[h], r)
	case r.isKind:
		ix.byKind[r.kind] = append(ix.byKind[r.kind], r)
	case r.mcpServer != "":
		if lit, ok := literalGlob(r.mcpTool); ok && r.mcpTool.Fold() == (r.effect != EffectAllow) {
			// Looked up the way eachRuleFor reads a call's server and
			// tool: lowercased for deny and ask, as the glob folds.
			addTo(ix.byServerTool, serverTool{r.mcpServer, lit}, r)
		} else {
			ix.byServer[r.mcpServer] = append(ix.byServer[r.mcpServer], r)
		}
		if r.name != "" {
			addTo(ix.byName, r.name, r)
		}
	case r.nameGlob != nil:
		ix.globs = append(ix.globs, r)
	default:
		addTo(ix.byName, r.name, r)
	}
}

// ruleSet is the three indexes of one group of layers.
type ruleSet struct {
	allow, deny, ask *index
}

func newRuleSet() *ruleSet { return &ruleSet{allow: newIndex(), deny: newIndex(), ask: newIndex()} }

func (rs *ruleSet) of(e Effect) *index {
	switch e {
	case EffectAllow:
		return rs.allow
	case EffectDeny:
		return rs.deny
	}
	return rs.ask
}

// Compile validates and compiles layers into a Policy. Every malformed rule
// or setting is reported, with its position, in the returned error, which is
// then a [Diagnostics]. Layers may come in any order; they are ordered by
// priority, and layers of equal priority keep their order.
func Compile(layers []Layer, opts *Options) (*Policy, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	c := &Policy{opts: o, defaultOutcome: Ask, defaultReadOnly: Invalid, enabled: true, mode: Mode{Name: ModeDefault}}
	var diags Diagnostics
	ls := append([]Layer(nil), layers...)
	for i := range ls {
		if ls[i].Source == SourceInvalid {
			diags.Errorf(Position{File: ls[i].File}, "source", "layer %d has no source", i+1)
		}
	}
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Source < ls[j].Source })
	c.layers = ls

	// Managed controls.
	c.disabledModes = map[ModeName]bool{}
	for _, l := range ls {
		if l.Source != SourceManaged {
			continue
		}
		if l.AllowManagedRulesOnly {
			c.managedOnly = true
		}
		for _, m := range l.DisableModes {
			c.disabledModes[m] = true
		}
	}

	// Scalars (ResolveSettings, layer.go): the engine's one reading of them.
	st := ResolveSettings(ls)
	c.settings = st
	c.defaultOutcome, c.defaultReadOnly = st.Default, st.DefaultReadOnly
	c.precedence, c.mode, c.enabled = st.Precedence, st.Mode, st.Enabled
	for _, l := range ls {
		if l.Mode != nil && c.disabledModes[l.Mode.Name] {
			diags.Errorf(Position{File: l.File}, "mode-disabled", "mode %s is disabled by the managed configuration", l.Mode.Name)
		}
	}
	for _, o := range []Outcome{c.defaultOutcome, c.defaultReadOnly} {
		if o == Modify {
			diags.Errorf(Position{}, "value", "default outcome must be allow, ask or deny")
		}
	}

	// Tool catalog overrides.
	c.tools, c.toolGlobs = toolCatalog(ls)

	c.known = make(map[string]knownTool, len(c.tools))
	c.foldNames = make(map[string][]string, len(c.tools))
	for name := range c.tools {
		l := strings.ToLower(name)
		c.known[name] = knownTool{lower: l, info: c.toolInfo(name)}
		c.foldNames[l] = append(c.foldNames[l], name)
	}
	for _, names := range c.foldNames {
		sort.Strings(names) // a fixed order of readings
	}

	// Protected paths and the workspace.
	var adds, removes []string
	root := ""
	for _, l := range ls {
		for _, p := range l.ProtectedPaths {
			adds = append(adds, p.Text)
			if root == "" {
				root = l.Root
			}
		}
		for _, p := range l.UnprotectedPaths {
			if l.Source == SourceManaged {
				removes = append(removes, p.Text)
			} else {
				diags.Warnf(p.Pos, "trust", "unprotected path %q ignored: only a managed layer may remove protected paths", p.Text)
			}
		}
		c.additionalDirs = append(c.additionalDirs, l.AdditionalDirectories...)
	}
	ucd := o.UserConfigDir
	prot, err := pathmatch.NewProtection(ucd, adds, removes, root)
	if err != nil {
		diags.Errorf(Position{}, "protected-path", "protected paths: %v", err)
	}
	c.protection = prot

	// Rules.
	c.shellPats = c.precompileShell(ls)
	defer func() { c.shellPats = nil }()
	c.static = newRuleSet()
	ordinal := 0
	for li, l := range ls {
		if l.Source == SourceSession {
			continue // session rules are compiled separately
		}
		for _, e := range []Effect{EffectDeny, EffectAsk, EffectAllow} {
			specs := l.rules(e)
			if c.managedOnly && l.Source != SourceManaged && e != EffectDeny {
				continue
			}
			var rbuf [4]*crule // the readings of one rule, taken before the next
			for i, s := range specs {
				rs, d := c.compileReadings(s, e, l, rbuf[:0]) // readings.go
				if d != nil {
					diags = append(diags, *d)
					continue
				}
				for _, r := range rs {
					r.ordinal = ordinal
					r.id = RuleID{Layer: li, List: e, Index: i}
					c.static.of(e).add(r)
				}
				ordinal++
			}
		}
	}
	var sessionLayers []Layer
	var sessionIndex []int
	for li, l := range ls {
		if l.Source == SourceSession {
			sessionLayers = append(sessionLayers, l)
			sessionIndex = append(sessionIndex, li)
		}
	}
	if len(sessionLayers) > 0 {
		rs, d := c.compileSession(sessionLayers, sessionIndex)
		diags = append(diags, d...)
		c.session = rs
	}

	// Rewrites and agents.
	for i := len(ls) - 1; i >= 0; i-- { // lower priority first: the highest has the last word
		for _, rw := range ls[i].Rewrites {
			cr, d := c.compileRewrite(rw, ls[i])
			diags = append(diags, d...)
			if cr != nil {
				c.rewrites = append(c.rewrites, cr)
			}
		}
	}
	c.agents = map[string]*agentEntry{}
	for li, l := range ls {
		for name, ap := range l.Agents {
			diags = append(diags, c.addAgent(name, ap, li, l)...)
		}
	}

	diags.Sort()
	if diags.HasErrors() {
		return nil, diags
	}
	c.revision = revisionOf(ls, o)
	return c, nil
}

// compileSession compiles the session layers into their own rule set;
// idx holds each layer's index in p.layers (-1 for the runtime rules).
func (p *Policy) compileSession(ls []Layer, idx []int) (*ruleSet, Diagnostics) {
	var diags Diagnostics
	rs := newRuleSet()
	ord := -1 << 30 // session rules come before every other layer
	for li, l := range ls {
		var rbuf [4]*crule // the readings of one rule, taken before the next
		for _, e := range []Effect{EffectDeny, EffectAsk, EffectAllow} {
			if p.managedOnly && e != EffectDeny {
				continue
			}
			for i, s := range l.rules(e) {
				crs, d := p.compileReadings(s, e, l, rbuf[:0]) // readings.go
				if d != nil {
					diags = append(diags, *d)
					continue
				}
				for _, r := range crs {
					r.ordinal = ord
					r.id = RuleID{Layer: idx[li], List: e, Index: i}
					rs.of(e).add(r)
				}
				ord++
			}
		}
	}
	return rs, diags
}

func (l *Layer) rules(e Effect) []RuleSpec {
	switch e {
	case EffectAllow:
		return l.Allow
	case EffectDeny:
		return l.Deny
	}
	return l.Ask
}

// revisionOf hashes a canonical encoding of the layers — every field of
// every layer, in priority order (encoding/json writes struct fields in
// declaration order and map keys sorted) — and the options that change
// decisions. A new Layer field is part of the revision without anyone
// remembering to add it. The rule lists, which hold nearly all of a large
// policy, are encoded rule by rule so that no encoding of the whole policy
// is held in memory at once.
func revisionOf(ls []Layer, opts Options) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	var err error
	encode := func(v any) {
		if err == nil {
			err = enc.Encode(v)
		}
	}
	encode(opts.UserConfigDir)
	for _, l := range ls {
		rest := l
		rest.Allow, rest.Deny, rest.Ask = nil, nil, nil
		encode(rest)
		for _, e := range []Effect{EffectAllow, EffectDeny, EffectAsk} {
			encode(e)
			var buf []byte
			for _, r := range l.rules(e) {
				buf = appendRule(buf[:0], r)
				h.Write(buf)
			}
		}
	}
	if err != nil {
		// Only an invalid json.RawMessage can fail to encode, and Compile
		// has rejected those; hash the error so the revision still differs.
		fmt.Fprintf(h, "\x00%v", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// appendRule appends every field of r to b, each length-prefixed so that
// no two rules append the same bytes (TestHashRuleCoversRuleSpec keeps the
// list complete), for the revision hash.
func appendRule(b []byte, r RuleSpec) []byte {
	b = binary.AppendUvarint(b, uint64(len(r.Text)))
	b = append(b, r.Text...)
	b = binary.AppendUvarint(b, uint64(len(r.Pos.File)))
	b = append(b, r.Pos.File...)
	b = binary.AppendVarint(b, int64(r.Pos.Line))
	return binary.AppendVarint(b, int64(r.Pos.Column))
}

// toolCatalog returns the built-in catalog as layers (highest priority
// first) extend it: entries for exact names, and the tool globs.
func toolCatalog(ls []Layer) (map[string]toolEntry, []toolOverride) {
	tools := make(map[string]toolEntry, len(builtinTools)+8)
	for k, v := range builtinTools {
		tools[k] = v
	}
	var globs []toolOverride
	for i := len(ls) - 1; i >= 0; i-- { // low priority first so higher ones win
		for _, t := range ls[i].Tools {
			if strings.Contains(t.Pattern, "*") {
				globs = append(globs, toolOverride{glob: starglob.Compile(t.Pattern, false), fold: starglob.Compile(t.Pattern, true), spec: t})
				continue
			}
			info, ok := tools[t.Pattern]
			if !ok {
				info = defaultToolEntry(t.Pattern)
			}
			tools[t.Pattern] = applyToolSpec(info, t)
		}
	}
	return tools, globs
}

func defaultToolEntry(name string) toolEntry {
	if strings.HasPrefix(name, "mcp__") {
		return toolEntry{Kind: KindMCP}
	}
	return toolEntry{Kind: KindGeneric}
}

func applyToolSpec(info toolEntry, t ToolSpec) toolEntry {
	if t.Kind != nil {
		info.Kind = *t.Kind
		if t.Field == nil {
			info.Field = ""
			if *t.Kind == KindShell {
				info.Field = "command"
			}
		}
	}
	if t.Field != nil {
		info.Field = *t.Field
	}
	if t.ReadOnly != nil {
		info.ReadOnly = *t.ReadOnly
	}
	if t.ExcludesDenied != nil {
		info.ExcludesDenied = *t.ExcludesDenied
	}
	return info
}

// knownTool is a catalog name's entry (tool globs applied) and its
// lowercased form, looked up once per call.
type knownTool struct {
	lower string
	info  toolEntry
}

// toolReading is one way of reading a call's tool name: the catalog name
// it stands for and that name's entry.
type toolReading struct {
	name string
	info toolEntry
}

// resolveUnknownTool returns the catalog entry for a call's tool name that
// is not itself a catalog name (setTool looks those up) and, when it differs
// only in case from catalog names (or matches a tool glob of the
// configuration only ignoring case), the entries of those names. An agent
// whose tool registry ignores case runs "BASH" as Bash, so deny and ask
// rules must see the call as that kind; allow rules see the exact name only
// (SPEC §1.1: allow matches tool names case-sensitively).
func (p *Policy) resolveUnknownTool(name, lower string) (toolEntry, []toolReading) {
	info := p.applyToolGlobs(name, defaultToolEntry(name))
	names := p.foldNames[lower]
	if len(names) == 0 && len(p.toolGlobs) == 0 {
		return info, nil
	}
	var out []toolReading
	add := func(r toolReading) {
		if r.info.Kind == info.Kind && r.info.Field == info.Field {
			return // read the same way as the exact name
		}
		for _, o := range out {
			if o.info == r.info {
				return
			}
		}
		out = append(out, r)
	}
	for _, n := range names {
		add(toolReading{n, p.toolInfo(n)})
	}
	if len(p.toolGlobs) > 0 {
		fi, hit := defaultToolEntry(lower), false
		for i := range p.toolGlobs {
			if p.toolGlobs[i].fold.Match(name) {
				fi, hit = applyToolSpec(fi, p.toolGlobs[i].spec), true
			}
		}
		if hit {
			add(toolReading{lower, fi})
		}
	}
	return info, out
}

// toolInfo returns the catalog entry for a tool name.
func (p *Policy) toolInfo(name string) toolEntry {
	info, ok := p.tools[name]
	if !ok {
		info = defaultToolEntry(name)
	}
	return p.applyToolGlobs(name, info)
}

// applyToolGlobs applies the configuration's tool-glob entries that match
// name to its catalog entry.
func (p *Policy) applyToolGlobs(name string, info toolEntry) toolEntry {
	for i := range p.toolGlobs {
		if p.toolGlobs[i].glob.Match(name) {
			info = applyToolSpec(info, p.toolGlobs[i].spec)
		}
	}
	return info
}

var paramKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// splitParam splits a "key:pattern" specifier. ok is false when the text is
// not a parameter rule.
func splitParam(spec string) (key, pat string, ok bool) {
	i := strings.IndexByte(spec, ':')
	if i <= 0 {
		return "", "", false
	}
	key, pat = spec[:i], spec[i+1:]
	if strings.HasPrefix(pat, "//") || !paramKeyRE.MatchString(key) {
		return "", "", false
	}
	return key, pat, true
}

// compiledPattern is a shell pattern compiled ahead of its rule.
type compiledPattern struct {
	p   *shell.Pattern
	err error
}

// precompileShell compiles, in batches, the specifiers of the layers' rules
// that name a shell tool (shell.CompilePatterns parses many patterns for
// about the cost of a few). compileRule takes a rule's pattern from the
// result; one it lacks (a rule read as shell only through a folded name)
// is compiled there. A pattern is immutable, so rules with the same
// specifier share it.
func (p *Policy) precompileShell(ls []Layer) map[string]compiledPattern {
	var specs []string
	n := 0
	for _, l := range ls {
		n += len(l.Allow) + len(l.Deny) + len(l.Ask)
	}
	out := make(map[string]compiledPattern, n/2)
	for _, l := range ls {
		if l.Source == SourceSession {
			continue
		}
		for _, e := range []Effect{EffectDeny, EffectAsk, EffectAllow} {
			for _, s := range l.rules(e) {
				pr, err := rule.Parse(s.Text)
				if err != nil || !pr.HasSpecifier() {
					continue
				}
				if _, dup := out[pr.Specifier]; dup {
					continue
				}
				if strings.EqualFold(pr.Tool, "Bash") || p.toolInfo(pr.Tool).Kind == KindShell {
					out[pr.Specifier] = compiledPattern{}
					specs = append(specs, pr.Specifier)
				}
			}
		}
	}
	pats, errs := shell.CompilePatterns(specs)
	for i, spec := range specs {
		out[spec] = compiledPattern{pats[i], errs[i]}
	}
	return out
}

func (p *Policy) compileRule(s RuleSpec, e Effect, l Layer) (*crule, *Diagnostic) {
	pr, err := rule.Parse(s.Text)
	return p.compileParsed(s, pr, err, e, l)
}

// compileParsed is compileRule given what rule.Parse returned for s.Text,
// so that a rule already parsed is not parsed again.
func (p *Policy) compileParsed(s RuleSpec, pr rule.Rule, err error, e Effect, l Layer) (*crule, *Diagnostic) {
	fail := func(off int, format string, args ...any) (*crule, *Diagnostic) {
		pos := s.Pos
		if pos.Line > 0 {
			pos = pos.Shift(rule.Column(s.Text, off))
		}
		if pos.File == "" {
			pos.File = l.File
		}
		return nil, &Diagnostic{Pos: pos, Severity: SeverityError, Code: "rule", Message: fmt.Sprintf("rule %q: %s", strings.TrimSpace(s.Text), fmt.Sprintf(format, args...))}
	}
	if err != nil {
		re := err.(*rule.Error)
		return fail(re.Offset, "%s", re.Msg)
	}
	fold := e != EffectAllow
	r := &crule{text: pr.Text, effect: e, source: l.Source, file: l.File, pos: s.Pos.Shift(rule.Column(s.Text, pr.Lead)), fold: fold}
	if r.pos.File == "" {
		r.pos.File = l.File
	}
	tool := pr.Tool

	// Tool matching.
	lookup := tool
	if fold {
		for n, k := range kindRuleNames {
			if strings.EqualFold(n, tool) {
				r.isKind, r.kind = true, k
			}
		}
	} else if k, ok := kindRuleNames[tool]; ok {
		r.isKind, r.kind = true, k
	}
	exact := l.ExactToolNames && !fold
	if exact {
		r.isKind = false
	}
	switch {
	case exact:
		// Legacy allow rules: literal names, a trailing * a prefix.
		info, ok := p.tools[tool]
		if !ok {
			info = defaultToolEntry(tool)
		}
		r.kind = info.Kind
		if strings.Contains(tool, "*") {
			g := starglob.Compile(tool, false)
			r.nameGlob = &g
		} else {
			r.name = tool
		}
	case r.isKind:
	case strings.HasPrefix(strings.ToLower(tool), "mcp__"):
		r.kind = KindMCP
		name := tool
		if fold {
			name = strings.ToLower(tool)
		}
		rest := name[len("mcp__"):]
		srv, tl, two := strings.Cut(rest, "__")
		if srv == "" || strings.Contains(srv, "*") {
			if tool == "mcp__*" || strings.Contains(srv, "*") {
				g := starglob.Compile(tool, fold)
				r.nameGlob = &g
				if l.ClaudeSettings && e == EffectAllow {
					r.noApprove = true
				}
				break
			}
			return fail(pr.Lead, "MCP rule %q names no server", tool)
		}
		r.mcpServer = srv
		if two {
			if tl == "" {
				return fail(pr.Lead, "MCP rule %q names no tool after the server", tool)
			}
			g := starglob.Compile(tl, fold)
			r.mcpTool = &g
			if !strings.Contains(tl, "*") {
				r.name = name
			}
		}
	case strings.Contains(tool, "*"):
		g := starglob.Compile(tool, fold)
		r.nameGlob = &g
		r.kind = KindGeneric
		if l.ClaudeSettings && e == EffectAllow {
			r.noApprove = true
		}
	default:
		info, ok := p.tools[lookup]
		if !ok && fold {
			for n, inf := range p.tools {
				if strings.EqualFold(n, tool) {
					info, ok = inf, true
					break
				}
			}
		}
		if !ok {
			info = defaultToolEntry(tool)
		}
		r.kind = info.Kind
		r.name = tool
		if fold {
			r.name = strings.ToLower(tool)
		}
	}

	// Specifier.
	r.m = anyMatcher{}
	if !pr.HasSpecifier() {
		return r, nil
	}
	spec := pr.Specifier
	off := pr.SpecOffset()
	info := toolEntry{Kind: r.kind}
	if !r.isKind && r.name != "" && r.mcpServer == "" {
		info = p.toolInfo(tool)
	}
	switch r.kind {
	case KindShell:
		field := info.Field
		if field == "" {
			field = "command"
		}
		if strings.HasPrefix(spec, field+":") || strings.HasPrefix(spec, "command:") || strings.HasPrefix(spec, "cmd:") {
			return fail(off, "a shell rule's specifier is a command pattern; %q looks like a parameter rule, which a compound command could dodge — write the command itself", spec[:strings.IndexByte(spec, ':')+1])
		}
		cp, ok := p.shellPats[spec]
		if !ok {
			cp.p, cp.err = shell.CompilePattern(spec)
		}
		p, err := cp.p, cp.err
		if err != nil {
			if pe, ok := err.(*shell.PatternError); ok {
				return fail(off+pe.Offset, "%s", pe.Msg)
			}
			return fail(off, "%v", err)
		}
		r.m = shellMatcher{p}
		r.firstWord = literalFirstWord(spec, fold)

	case KindRead, KindList, KindSearch, KindEdit:
		mode := pathmatch.ForAllow
		if fold {
			mode = pathmatch.ForDeny
		}
		p, err := pathmatch.Compile(spec, mode, l.Root)
		if err != nil {
			if pe, ok := err.(*pathmatch.PatternError); ok {
				return fail(off+pe.Offset, "%s", pe.Msg)
			}
			return fail(off, "%v", err)
		}
		r.m = pathMatcher{p}
	case KindFetch:
		switch {
		case strings.HasPrefix(spec, "domain:"):
			d, err := urlmatch.CompileDomain(spec[len("domain:"):])
			if err != nil {
				if pe, ok := err.(*urlmatch.PatternError); ok {
					return fail(off+len("domain:")+pe.Offset, "%s", pe.Msg)
				}
				return fail(off, "%v", err)
			}
			r.m = domainMatcher{d}
		case strings.Contains(spec, "://"):
			u, err := urlmatch.CompileURL(spec, fold)
			if err != nil {
				if pe, ok := err.(*urlmatch.PatternError); ok {
					return fail(off+pe.Offset, "%s", pe.Msg)
				}
				return fail(off, "%v", err)
			}
			r.m = urlMatcher{u}
		default:
			key, pat, ok := splitParam(spec)
			if !ok {
				return fail(off, "a WebFetch specifier must be domain:HOST, a URL pattern with ://, or key:pattern")
			}
			r.m = paramMatcher{key: key, glob: starglob.Compile(pat, fold)}
		}
	default:
		field := info.Field
		if r.isKind {
			field = kindPrimaryField(r.kind)
		}
		if key, pat, ok := splitParam(spec); ok {
			pm := paramMatcher{key: key, glob: starglob.Compile(pat, fold)}
			if field != "" && key != field {
				g := starglob.Compile(spec, fold)
				pm.dual = &g
			}
			r.m = pm
			break
		}
		if g := starglob.Compile(spec, fold); field != "" {
			r.m = primaryMatcher{g}
		} else {
			r.m = anyStringMatcher{g}
		}
	}
	return r, nil
}

func kindPrimaryField(k Kind) string {
	switch k {
	case KindFetch:
		return "url"
	case KindWebSearch:
		return "query"
	case KindAgent:
		return "subagent_type"
	case KindShell:
		return "command"
	}
	return ""
}

// literalFirstWord returns the command pattern's first word when it is a
// plain literal (letters, digits and a few safe characters), for indexing.
func literalFirstWord(spec string, fold bool) string {
	w := spec
	if i := strings.IndexAny(w, " \t"); i >= 0 {
		w = w[:i]
	}
	w = strings.TrimSuffix(w, ":*")
	if w == "" {
		return ""
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '+') {
			return ""
		}
	}
	if fold {
		return strings.ToLower(w)
	}
	return w
}
