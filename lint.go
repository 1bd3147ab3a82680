package toolgate

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/toolgate/toolgate/internal/starglob"
	"github.com/toolgate/toolgate/internal/suggest"
	"github.com/toolgate/toolgate/rule"
)

// Lint (SPEC §10, "toolgate lint"): what a policy's rules can get wrong
// without being malformed, read with the engine's own catalog, kinds,
// parameter syntax, globs and rule readings.

// lintRule is one rule of the configuration, parsed.
type lintRule struct {
	rule.Rule
	spec   RuleSpec
	effect Effect
	layer  *Layer
}

func (r *lintRule) fold() bool { return r.effect != EffectAllow }

// linter holds the catalog as the layers extend it: the engine's own
// reading of tool names and rules.
type linter struct {
	c           *Policy           // a configuration holding only the layers' catalog
	lowerKnown  map[string]string // lower-case name → a known spelling
	shellFields []string          // the command fields of shell tools
	out         Diagnostics
}

func newLinter(layers []Layer) *linter {
	c := &Policy{}
	c.tools, c.toolGlobs = toolCatalog(layers)
	l := &linter{c: c, lowerKnown: map[string]string{}}
	seen := map[string]bool{}
	for n, info := range c.tools {
		l.lowerKnown[strings.ToLower(n)] = n
		if info.Kind == KindShell && info.Field != "" && !seen[info.Field] {
			seen[info.Field] = true
			l.shellFields = append(l.shellFields, info.Field)
		}
	}
	sort.Strings(l.shellFields)
	return l
}

func (l *linter) add(pos Position, sev Severity, code, format string, args ...any) {
	l.out = append(l.out, Diagnostic{Pos: pos, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// kindOf returns the kind a rule's tool name gives it, as the engine reads
// allow rules: the kind a kind name stands for, its catalog kind, mcp or
// generic.
func (l *linter) kindOf(name string) Kind { return l.c.ruleKind(name, false) }

// Lint reports the problems the rules of layers can have without being
// malformed — rules that never apply (shadowed by a deny rule or by the
// precedence), allow rules that approve nothing, unknown tools, Claude Code
// shapes that Claude reads differently, duplicates — each with its
// position, a severity and a stable code (the codes `toolgate lint`
// documents). It reads the rules as the engine does, with the catalog the
// layers' tools sections extend; the built-in layer is not linted. Rules
// that do not parse are left to [Compile], which reports them. Layers are
// given highest priority first, as [Policy.Layers] returns them.
func Lint(layers []Layer) Diagnostics {
	prec := ResolveSettings(layers).Precedence
	l := newLinter(layers)
	var rules []*lintRule
	for i := range layers {
		ly := &layers[i]
		if ly.Source == SourceBuiltin {
			continue
		}
		for _, e := range []Effect{EffectDeny, EffectAsk, EffectAllow} {
			for _, s := range ly.rules(e) {
				r, err := rule.Parse(s.Text)
				if err != nil {
					continue // a load error, reported by the loader
				}
				rules = append(rules, &lintRule{Rule: r, spec: s, effect: e, layer: ly})
			}
		}
	}
	for _, r := range rules {
		l.lintOne(r)
	}
	l.duplicates(rules)
	l.shadows(rules, prec)
	l.out.Sort()
	return l.out
}

// lintOne checks what can be seen from one rule alone.
func (l *linter) lintOne(r *lintRule) {
	tool, spec, pos := r.Tool, r.Specifier, r.spec.Pos
	allow := r.effect == EffectAllow
	sev := SeverityError
	if allow {
		sev = SeverityWarning
	}
	if strings.Contains(tool, "*") {
		if allow {
			lit := tool[:strings.IndexByte(tool, '*')]
			switch {
			case r.layer.ClaudeSettings && !literalMCPServer(lit):
				l.add(pos, SeverityWarning, "allow-approves-nothing", "allow rule %s approves nothing: in a Claude Code settings file a tool glob must follow a literal mcp__<server>__ prefix", r.Text)
			case tool == "*" || tool == "mcp__*" || len(lit) < 2:
				l.add(pos, SeverityWarning, "broad-allow-glob", "allow rule %s matches a very broad set of tools", r.Text)
			}
		}
		return
	}
	kind := l.kindOf(tool)
	known := kind != KindGeneric && kind != KindMCP || strings.HasPrefix(tool, "mcp__")
	if _, ok := l.c.tools[tool]; ok {
		known = true
	}
	if !known && r.fold() {
		if k, ok := l.lowerKnown[strings.ToLower(tool)]; ok {
			known, kind = true, l.kindOf(k)
		}
		if k, ok := kindRuleNames[lowerToKindName(tool)]; ok {
			known, kind = true, k
		}
	}
	if !known {
		if s := l.suggest(tool); s != "" {
			l.add(pos, SeverityError, "unknown-tool", "rule %s names tool %q, which the catalog does not know; did you mean %s?", r.Text, tool, s)
		} else {
			l.add(pos, SeverityWarning, "unknown-tool", "rule %s names tool %q, which the catalog does not know (declare it under tools to say how its input is read)", r.Text, tool)
		}
	}
	if i := strings.IndexFunc(r.Text, unicode.IsControl); i >= 0 {
		// JSON decodes "\b", "\t", "\f" … to control characters, so
		// "Bash(\builtin cd:*)" holds a backspace and names no command.
		l.add(pos, sev, "control-character", "rule %q holds the control character %U, which no tool name, command or path holds; a JSON escape such as \\b or \\t where a backslash was meant? (write \\\\ in JSON)", r.Text, []rune(r.Text[i:])[0])
	}
	if spec == "" {
		return
	}
	l.lintReadings(r)
	switch kind {
	case KindShell:
		if t := strings.TrimSpace(spec); r.layer.ClaudeSettings && strings.HasSuffix(t, ":*") && strings.Contains(strings.ReplaceAll(t[:len(t)-2], `\*`, ""), "*") {
			// Claude Code 2.1: "mixes * with the trailing :* prefix syntax,
			// so it is matched as a literal prefix (the * is not expanded)".
			l.add(pos, SeverityWarning, "claude-star-prefix", "%s rule %s mixes * with a trailing :*: Claude Code reads that * literally (so there the rule matches almost nothing), toolgate as a wildcard; write %s(%s *) so both agree", r.effect, r.Text, tool, strings.TrimSpace(t[:len(t)-2]))
		}
		if key, _, ok := splitParam(spec); ok {
			for _, f := range l.shellFields {
				if key == f {
					l.add(pos, sev, "param-on-shell-field", "rule %s is a command pattern, not a parameter rule: it matches only a command whose first word is %q; write the command itself, e.g. %s(%s)", r.Text, key+":"+strings.Fields(spec[len(key)+1:] + " x")[0], tool, strings.TrimSpace(spec[len(key)+1:]))
					break
				}
			}
		}
	case KindRead, KindList, KindSearch, KindEdit:
		if strings.Contains(spec, "://") || strings.HasPrefix(strings.ToLower(spec), "domain:") {
			l.add(pos, sev, "path-never-matches", "rule %s is a path rule; %q is a URL or domain and names no file (use WebFetch for URLs)", r.Text, spec)
		}
		if strings.HasSuffix(strings.TrimSpace(spec), ":*") {
			// Claude Code rejects it too: "The \":*\" syntax is only for
			// Bash prefix rules".
			l.add(pos, sev, "path-never-matches", "rule %s is a path rule, where \":*\" is literal text that no file name ends with; the :* prefix syntax is only for shell rules (write %s(%s**) for a directory)", r.Text, tool, strings.TrimSuffix(strings.TrimSpace(spec), ":*"))
		}
		if r.layer.ClaudeSettings {
			switch tool {
			case "Write", "NotebookEdit", "MultiEdit", "Glob":
				// Claude Code 2.1 matches only Edit(path) and Read(path)
				// rules in its file checks.
				k := "Edit"
				if tool == "Glob" {
					k = "Read"
				}
				how := fmt.Sprintf("toolgate applies it to %s calls only", tool)
				if tool == "Write" {
					how = "toolgate reads Write as Edit, which covers every edit tool"
				}
				l.add(pos, SeverityWarning, "claude-file-tool", "rule %s: Claude Code matches only %s(path) rules in its file checks, so in Claude Code itself this rule never matches; %s — write %s(%s)", r.Text, k, how, k, r.Raw)
			}
		}
	case KindMCP:
		if r.layer.ClaudeSettings {
			if allow {
				l.add(pos, SeverityWarning, "allow-approves-nothing", "allow rule %s approves nothing: Claude Code skips an mcp__ rule with parentheses when it loads a settings file, and so does toolgate; name the tool alone (%s)", r.Text, tool)
			} else {
				l.add(pos, SeverityWarning, "claude-skipped", "%s rule %s is skipped by Claude Code, which does not read an mcp__ rule with parentheses in a settings file; toolgate enforces it (as a parameter rule)", r.effect, r.Text)
			}
			break
		}
		if allow {
			if _, _, ok := splitParam(spec); !ok {
				l.add(pos, SeverityWarning, "allow-approves-nothing", "allow rule %s approves nothing: an MCP tool has no primary field, so only key:pattern specifiers can allow", r.Text)
			}
		}
	}
}

// lowerToKindName maps a case-folded kind name ("bash") to its spelling.
func lowerToKindName(s string) string {
	for k := range kindRuleNames {
		if strings.EqualFold(k, s) {
			return k
		}
	}
	return ""
}

// suggest returns the known tool name closest to name, if it is close.
func (l *linter) suggest(name string) string {
	cands := make([]string, 0, len(l.c.tools)+len(kindRuleNames))
	for n := range l.c.tools {
		cands = append(cands, n)
	}
	for n := range kindRuleNames {
		cands = append(cands, n)
	}
	return suggest.Closest(name, cands)
}

// canonical is a rule's text for comparison: "Tool(*)" as "Tool",
// case-folded for deny and ask rules.
func (r *lintRule) canonical() string {
	s := r.Rule.String()
	if r.fold() {
		s = strings.ToLower(s)
	}
	return s
}

// duplicates reports a rule written twice in the same list.
func (l *linter) duplicates(rules []*lintRule) {
	first := map[string]*lintRule{}
	for _, r := range rules {
		key := r.effect.String() + "\x00" + r.canonical()
		if f, ok := first[key]; ok {
			l.add(r.spec.Pos, SeverityWarning, "duplicate-rule", "%s rule %s repeats %s (%s)", r.effect, r.Text, f.Text, posOrLayer(f))
			continue
		}
		first[key] = r
	}
}

func posOrLayer(r *lintRule) string {
	if p := r.spec.Pos.String(); p != "" {
		return p
	}
	return r.layer.Source.String() + " layer"
}

// shadows reports allow and ask rules that a deny rule, or a broader rule
// earlier in the precedence, always beats.
func (l *linter) shadows(rules []*lintRule, prec Precedence) {
	for _, r := range rules {
		if r.effect == EffectDeny {
			continue
		}
		var by *lintRule
		for _, d := range rules {
			if d.effect == EffectDeny && l.covers(d, r) {
				by = d
				break
			}
		}
		if by != nil {
			l.add(r.spec.Pos, SeverityWarning, "shadowed-by-deny", "%s rule %s never applies: deny rule %s (%s) matches every call it matches", r.effect, r.Text, by.Text, posOrLayer(by))
			continue
		}
		earlier := EffectAllow // deny-allow-ask: allow beats ask
		if prec == DenyAskAllow {
			earlier = EffectAsk
		}
		if r.effect == earlier {
			continue
		}
		for _, d := range rules {
			if d.effect == EffectAllow && l.approvesNothing(d) {
				continue // it beats nothing
			}
			if d.effect == earlier && l.covers(d, r) && d.canonical() != r.canonical() {
				by = d
				break
			}
			if d.effect == earlier && d.canonical() == r.canonical() {
				by = d
				break
			}
		}
		if by != nil {
			l.add(r.spec.Pos, SeverityWarning, "shadowed-by-precedence", "%s rule %s never applies: under %s the %s rule %s (%s) is checked first and matches every call it matches", r.effect, r.Text, prec, by.effect, by.Text, posOrLayer(by))
		}
	}
}

// covers reports whether rule d matches every call that rule r matches, as
// far as can be seen from their texts: d names r's tool (or its kind, or a
// glob over it) and d's specifier is absent, equal to r's, or a prefix
// pattern (ending in *, :* or " *") that r's specifier starts with.
func (l *linter) covers(d, r *lintRule) bool {
	if !l.toolCovers(d, r) {
		return false
	}
	if d.Specifier == "" {
		return true
	}
	if r.Specifier == "" {
		return false
	}
	ds, rs := d.Specifier, r.Specifier
	if d.fold() {
		// A deny or ask rule also matches its trimmed reading.
		k := l.kindOf(d.Tool)
		ds = d.Trimmed(isReadKind(k) || k == KindEdit)
	}
	if d.fold() {
		ds, rs = strings.ToLower(ds), strings.ToLower(rs)
	}
	if ds == rs {
		return true
	}
	if strings.ContainsAny(strings.TrimRight(ds, "*"), "*?[") {
		return false
	}
	switch {
	case strings.HasSuffix(ds, ":*") || strings.HasSuffix(ds, " *"):
		p := ds[:len(ds)-2]
		if !strings.HasPrefix(rs, p) {
			return false
		}
		rest := rs[len(p):]
		return rest == "" || rest[0] == ' ' || rest[0] == ':'
	case strings.HasSuffix(ds, "/**"):
		p := ds[:len(ds)-2]
		return strings.HasPrefix(rs, p)
	case strings.HasSuffix(ds, "*") && l.kindOf(d.Tool) == KindShell:
		return strings.HasPrefix(rs, strings.TrimRight(ds, "*"))
	}
	return false
}

// toolCovers reports whether d's tool pattern covers every tool r names.
func (l *linter) toolCovers(d, r *lintRule) bool {
	dt, rt := d.Tool, r.Tool
	eq := dt == rt || d.fold() && strings.EqualFold(dt, rt)
	if eq {
		return true
	}
	if strings.Contains(dt, "*") {
		if strings.Contains(rt, "*") {
			return false
		}
		g := starglob.Compile(dt, d.fold())
		return g.Match(rt)
	}
	if strings.Contains(rt, "*") {
		return false
	}
	dk, isKind := kindRuleNames[dt]
	if !isKind && d.fold() {
		dk, isKind = kindRuleNames[lowerToKindName(dt)]
	}
	if !isKind {
		// mcp__srv covers mcp__srv__tool.
		return strings.HasPrefix(dt, "mcp__") && strings.Count(dt, "__") == 1 && strings.HasPrefix(rt, dt+"__")
	}
	if _, rIsKind := kindRuleNames[rt]; rIsKind && dk != kindRuleNames[rt] {
		return false
	}
	return kindFamily(dk, l.kindOf(rt))
}

// lintReadings reports what the engine makes of a rule beyond its text
// (ruleReadings): the Claude Code shapes, and allow rules that
// cannot approve the command they name.
func (l *linter) lintReadings(r *lintRule) {
	pos, allow := r.spec.Pos, r.effect == EffectAllow
	for _, n := range l.c.ruleReadings(r.Text, r.effect) {
		switch n.Code {
		case "padded":
			switch {
			case allow && n.ApprovesNothing:
				l.add(pos, SeverityWarning, "claude-spacing", "allow rule %s approves nothing: Claude Code keeps the spaces inside the parentheses and before :*, so no command matches it; write %s", r.Text, n.Reading)
			case allow:
				l.add(pos, SeverityWarning, "claude-spacing", "allow rule %s has spaces inside the parentheses that Claude Code keeps; it is read as written; write %s", r.Text, n.Reading)
			default:
				l.add(pos, SeverityWarning, "claude-spacing", "%s rule %s has spaces inside the parentheses that Claude Code keeps, so in Claude Code itself it matches nothing; toolgate also matches its trimmed reading; write %s", r.effect, r.Text, n.Reading)
			}
		case "no-command":
			if allow {
				l.add(pos, SeverityWarning, "allow-approves-nothing", "allow rule %s approves nothing: with Claude Code's escapes removed it reads as a command no shell can parse; as written it would be %s", r.Text, n.Reading)
			} else {
				l.add(pos, SeverityWarning, "claude-escape", "%s rule %s: with Claude Code's escapes removed it reads as a command no shell can parse, so Claude Code never matches it; toolgate matches it as written (%s)", r.effect, r.Text, n.Reading)
			}
		case "powershell-allow":
			l.add(pos, SeverityWarning, "allow-approves-nothing", "allow rule %s approves nothing: PowerShell commands are never parsed, so only an exact PowerShell rule approves a command", r.Text)
		case "unanalysable":
			l.add(pos, SeverityWarning, "allow-approves-nothing", "allow rule %s approves nothing: the command it names cannot be analysed (%s)", r.Text, n.Reading)
		case "assign-unsafe":
			l.add(pos, SeverityWarning, "allow-approves-nothing", "allow rule %s approves nothing: it assigns %s, which is not a known-safe variable, and a command making such an assignment is never allowed by a rule", r.Text, n.Reading)
		case "exact-only":
			l.add(pos, SeverityWarning, "allow-exact-only", "allow rule %s cannot approve what it names: an interpreter or shell running a script, a module or inline code is approved only by an exact rule naming it", r.Text)
		case "secret-needs-path-rule", "secret-non-path":
			l.add(pos, SeverityWarning, "secret-needs-path-rule", "allow rule %s names the secret file %s: reading it needs an allow rule whose path pattern names it, e.g. Read(./%s)", r.Text, n.Reading, strings.TrimPrefix(n.Reading, "./"))
		}
	}
}

// literalMCPServer reports whether a tool glob's literal prefix names an MCP
// server in full: "mcp__<server>__" followed by anything (Claude Code 2.1
// accepts an allow glob only there: "mcp__github__*", "mcp__github__get_*").
func literalMCPServer(lit string) bool {
	rest, ok := strings.CutPrefix(lit, "mcp__")
	if !ok {
		return false
	}
	i := strings.Index(rest, "__")
	return i > 0
}

// approvesNothing reports whether the engine reads an allow rule as one that
// can never approve a call.
func (l *linter) approvesNothing(r *lintRule) bool {
	for _, n := range l.c.ruleReadings(r.Text, r.effect) {
		if n.ApprovesNothing {
			return true
		}
	}
	return false
}
