package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/internal/suggest"
	"github.com/toolgate/toolgate/rule"
)

const lintUsage = `Usage:

	toolgate lint [--config [SOURCE=]FILE]... [--claude] [--cwd DIR] [--home DIR] [--json]

Lint reports every problem a policy can have without being malformed. Each
finding has a file:line:col, a severity and a stable code:

	shadowed-by-deny        warning  an allow or ask rule that a deny rule always beats
	shadowed-by-precedence  warning  an ask rule that a broader allow rule beats
	                                 (deny-allow-ask), or an allow rule that a broader
	                                 ask rule beats (deny-ask-allow)
	allow-approves-nothing  warning  an allow rule that can never allow anything: a tool
	                                 glob in a Claude settings file that does not follow
	                                 mcp__<server>__, or a bare specifier for a tool
	                                 without a primary field (an MCP tool)
	broad-allow-glob        warning  an allow rule whose tool glob is very broad (*, mcp__*, B*)
	unknown-tool            error    a rule naming a tool the catalog does not know that
	                                 looks like a misspelt known tool ("did you mean");
	                        warning  any other unknown tool (declare it under tools)
	param-on-shell-field    error    a deny or ask rule on a shell tool written like a
	                                 parameter rule (Bash(cmd:rm *)): it is a command
	                                 pattern and matches only a command named "cmd:rm"
	                                 (a warning for allow rules)
	path-never-matches      error    a deny or ask path rule that can never match (a URL or
	                                 domain: in a Read or Edit rule, a trailing :*); a
	                                 warning for allow
	duplicate-rule          warning  the same rule twice in one list
	claude-spacing          warning  spaces inside the parentheses or before :* that Claude
	                                 Code keeps: a padded prefix or exact shell allow rule
	                                 approves nothing; a deny or ask rule matches nothing in
	                                 Claude itself (toolgate also matches its trimmed reading)
	claude-escape           warning  a deny or ask rule whose reading with Claude's \( \)
	                                 escapes removed is no command a shell can parse
	                                 (toolgate matches it as written)
	allow-approves-nothing  warning  also: an allow rule whose command cannot be analysed,
	                                 assigns a variable that is not known to be safe
	                                 (FOO=1 make), or is a padded or escaped shell rule
	                                 Claude reads as no command; a prefix or wildcard
	                                 PowerShell allow rule (PowerShell is never parsed)
	allow-exact-only        warning  a prefix allow rule for an interpreter or shell running
	                                 a script, a module or inline code (Bash(python3:*)),
	                                 which only exact rules approve
	secret-needs-path-rule  warning  an allow rule naming a secret file in a command
	                                 (Bash(cat .env)): only a path rule approves the read
	claude-star-prefix      warning  a shell rule in a Claude settings file with a * before a
	                                 trailing :* (Bash(git -C * show:*)): Claude Code reads
	                                 that * literally, toolgate as a wildcard
	claude-file-tool        warning  Write(path), NotebookEdit(path), MultiEdit(path) or
	                                 Glob(path) in a Claude settings file: Claude Code never
	                                 matches them (only Edit and Read path rules); toolgate
	                                 reads them as Edit(path) / Read(path)
	claude-skipped          warning  a deny or ask rule Claude Code skips when it loads a
	                                 settings file (an mcp__ rule with parentheses); toolgate
	                                 enforces it
	control-character       error    a rule holding a control character (a JSON escape such
	                                 as \b where a backslash was meant); a warning for allow
	untrusted-allow         info     an allow rule of an untrusted project file, ignored
	                                 until the project is trusted (it is linted anyway)

Load warnings (unknown keys, ignored untrusted rules) are printed to standard
error as usual. The files' inline examples are checked as check does: a
failing example in a trusted file is a configuration error.

Exit status: 0 when there is no error-severity finding; 1 when there is; 2 on
a usage or configuration error (a failing inline example included).

Flags:
`

// finding is one lint result.
type finding struct {
	Pos      toolgate.Position `json:"pos"`
	Severity string            `json:"severity"`
	Code     string            `json:"code"`
	Message  string            `json:"message"`
}

func (f finding) String() string {
	p := f.Pos.String()
	if p == "" {
		p = "(no file)"
	}
	return fmt.Sprintf("%s: %s[%s]: %s", p, f.Severity, f.Code, f.Message)
}

func (c *cli) lint(args []string) int {
	fs := flag.NewFlagSet("lint", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var pf policyFlags
	pf.register(fs)
	asJSON := fs.Bool("json", false, "print the findings as JSON Lines")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), lintUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("lint: unexpected argument %q (name files with --config)", fs.Arg(0))
		return exitUsage
	}
	ld, code := c.load(&pf, true)
	if ld == nil {
		return code
	}
	fds := lintLayers(ld.cfg.Layers(), ld.cfg.Precedence())
	fds = append(fds, lintUntrusted(ld.set.Files)...)
	sortFindings(fds)
	writeFindings(c.stdout, fds, *asJSON)
	for _, f := range fds {
		if f.Severity == "error" {
			return exitFailure
		}
	}
	return exitOK
}

func writeFindings(w io.Writer, fds []finding, asJSON bool) {
	for _, f := range fds {
		if asJSON {
			b, _ := json.Marshal(f)
			fmt.Fprintf(w, "%s\n", b)
		} else {
			fmt.Fprintln(w, f)
		}
	}
}

// lintRule is one rule of the configuration, parsed.
type lintRule struct {
	rule.Rule
	spec   toolgate.RuleSpec
	effect toolgate.Effect
	layer  *toolgate.Layer
}

func (r *lintRule) fold() bool { return r.effect != toolgate.EffectAllow }

// The built-in tool catalog, by name, and the rule names that stand for a
// whole kind, from the engine.
var (
	kindRuleNames = func() map[string]string {
		m := map[string]string{}
		for n, k := range toolgate.KindRuleNames() {
			m[n] = k.String()
		}
		return m
	}()
	shellFields = func() []string {
		seen := map[string]bool{}
		var fs []string
		for _, info := range toolgate.BuiltinTools() {
			if info.Kind == toolgate.KindShell && !seen[info.Field] {
				seen[info.Field] = true
				fs = append(fs, info.Field)
			}
		}
		sort.Strings(fs)
		return fs
	}()
)

// linter holds the catalog as the configuration extends it.
type linter struct {
	kinds       map[string]string // tool name → kind
	lowerKnown  map[string]string // lower-case name → a known spelling
	shellFields []string
	out         []finding
}

func newLinter(layers []toolgate.Layer) *linter {
	l := &linter{kinds: map[string]string{}, lowerKnown: map[string]string{}, shellFields: append([]string(nil), shellFields...)}
	for n, info := range toolgate.BuiltinTools() {
		l.kinds[n] = info.Kind.String()
	}
	for i := len(layers) - 1; i >= 0; i-- { // lowest priority first
		for _, t := range layers[i].Tools {
			if strings.Contains(t.Pattern, "*") {
				continue
			}
			k, ok := l.kinds[t.Pattern]
			if !ok {
				k = "generic"
			}
			if t.Kind != nil {
				k = t.Kind.String()
			}
			l.kinds[t.Pattern] = k
			if k == "shell" && t.Field != nil {
				l.shellFields = append(l.shellFields, *t.Field)
			}
		}
	}
	for n := range l.kinds {
		l.lowerKnown[strings.ToLower(n)] = n
	}
	return l
}

func (l *linter) add(pos toolgate.Position, sev, code, format string, args ...any) {
	l.out = append(l.out, finding{Pos: pos, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// kindOf returns the kind of a rule's tool name: the kind it stands for (a
// kind name), its catalog kind, "mcp", or "generic".
func (l *linter) kindOf(name string) string {
	if k, ok := kindRuleNames[name]; ok {
		return k
	}
	if k, ok := l.kinds[name]; ok {
		return k
	}
	if strings.HasPrefix(name, "mcp__") {
		return "mcp"
	}
	return "generic"
}

// lintLayers lints the rules of every layer but the built-in default.
func lintLayers(layers []toolgate.Layer, prec toolgate.Precedence) []finding {
	l := newLinter(layers)
	var rules []*lintRule
	for i := range layers {
		ly := &layers[i]
		if ly.Source == toolgate.SourceBuiltin {
			continue
		}
		for _, e := range []toolgate.Effect{toolgate.EffectDeny, toolgate.EffectAsk, toolgate.EffectAllow} {
			for _, s := range layerRules(*ly, e) {
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
	sortFindings(l.out)
	return l.out
}

// sortFindings orders findings by position.
func sortFindings(fds []finding) {
	sort.SliceStable(fds, func(i, j int) bool {
		a, b := fds[i].Pos, fds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// lintUntrusted lints the allow rules that untrusted project and local
// files hold and the loader ignored: they are read again as if trusted,
// each is reported as ignored, and each gets the checks of any allow rule,
// so that the file is ready when the project is trusted.
func lintUntrusted(files []*config.File) []finding {
	var out []finding
	for _, f := range files {
		if f.Trusted {
			continue
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			continue
		}
		full, _ := config.Parse(f.Path, data, f.Source, true)
		layers := full.Layers
		l := newLinter(layers)
		for i := range layers {
			for _, s := range layers[i].Allow {
				r, err := rule.Parse(s.Text)
				if err != nil {
					continue
				}
				l.add(s.Pos, "info", "untrusted-allow", "allow rule %s is ignored: %s is not trusted (toolgate trust makes it count); linted anyway", r.Text, f.Path)
				l.lintOne(&lintRule{Rule: r, spec: s, effect: toolgate.EffectAllow, layer: &layers[i]})
			}
		}
		out = append(out, l.out...)
	}
	return out
}

// lintOne checks what can be seen from one rule alone.
func (l *linter) lintOne(r *lintRule) {
	tool, spec, pos := r.Tool, r.Specifier, r.spec.Pos
	allow := r.effect == toolgate.EffectAllow
	sev := "error"
	if allow {
		sev = "warning"
	}
	if strings.Contains(tool, "*") {
		if allow {
			lit := tool[:strings.IndexByte(tool, '*')]
			switch {
			case r.layer.ClaudeSettings && !literalMCPServer(lit):
				l.add(pos, "warning", "allow-approves-nothing", "allow rule %s approves nothing: in a Claude Code settings file a tool glob must follow a literal mcp__<server>__ prefix", r.Text)
			case tool == "*" || tool == "mcp__*" || len(lit) < 2:
				l.add(pos, "warning", "broad-allow-glob", "allow rule %s matches a very broad set of tools", r.Text)
			}
		}
		return
	}
	kind := l.kindOf(tool)
	known := kind != "generic" && kind != "mcp" || strings.HasPrefix(tool, "mcp__")
	if _, ok := l.kinds[tool]; ok {
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
			l.add(pos, "error", "unknown-tool", "rule %s names tool %q, which the catalog does not know; did you mean %s?", r.Text, tool, s)
		} else {
			l.add(pos, "warning", "unknown-tool", "rule %s names tool %q, which the catalog does not know (declare it under tools to say how its input is read)", r.Text, tool)
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
	case "shell":
		if t := strings.TrimSpace(spec); r.layer.ClaudeSettings && strings.HasSuffix(t, ":*") && strings.Contains(strings.ReplaceAll(t[:len(t)-2], `\*`, ""), "*") {
			// Claude Code 2.1: "mixes * with the trailing :* prefix syntax,
			// so it is matched as a literal prefix (the * is not expanded)".
			l.add(pos, "warning", "claude-star-prefix", "%s rule %s mixes * with a trailing :*: Claude Code reads that * literally (so there the rule matches almost nothing), toolgate as a wildcard; write %s(%s *) so both agree", r.effect, r.Text, tool, strings.TrimSpace(t[:len(t)-2]))
		}
		if key, ok := paramKey(spec); ok {
			for _, f := range l.shellFields {
				if key == f {
					l.add(pos, sev, "param-on-shell-field", "rule %s is a command pattern, not a parameter rule: it matches only a command whose first word is %q; write the command itself, e.g. %s(%s)", r.Text, key+":"+strings.Fields(spec[len(key)+1:] + " x")[0], tool, strings.TrimSpace(spec[len(key)+1:]))
					break
				}
			}
		}
	case "read", "list", "search", "edit":
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
				l.add(pos, "warning", "claude-file-tool", "rule %s: Claude Code matches only %s(path) rules in its file checks, so in Claude Code itself this rule never matches; %s — write %s(%s)", r.Text, k, how, k, r.Raw)
			}
		}
	case "mcp":
		if r.layer.ClaudeSettings {
			if allow {
				l.add(pos, "warning", "allow-approves-nothing", "allow rule %s approves nothing: Claude Code skips an mcp__ rule with parentheses when it loads a settings file, and so does toolgate; name the tool alone (%s)", r.Text, tool)
			} else {
				l.add(pos, "warning", "claude-skipped", "%s rule %s is skipped by Claude Code, which does not read an mcp__ rule with parentheses in a settings file; toolgate enforces it (as a parameter rule)", r.effect, r.Text)
			}
			break
		}
		if allow {
			if _, ok := paramKey(spec); !ok {
				l.add(pos, "warning", "allow-approves-nothing", "allow rule %s approves nothing: an MCP tool has no primary field, so only key:pattern specifiers can allow", r.Text)
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

// paramKey returns the key of a key:pattern specifier.
func paramKey(spec string) (string, bool) {
	i := strings.IndexByte(spec, ':')
	if i <= 0 || strings.HasPrefix(spec[i+1:], "//") {
		return "", false
	}
	key := spec[:i]
	for j, c := range key {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 0 && (c >= '0' && c <= '9' || c == '.')
		if !ok {
			return "", false
		}
	}
	return key, true
}

// suggest returns the known tool name closest to name, if it is close.
func (l *linter) suggest(name string) string {
	cands := make([]string, 0, len(l.kinds)+len(kindRuleNames))
	for n := range l.kinds {
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
			l.add(r.spec.Pos, "warning", "duplicate-rule", "%s rule %s repeats %s (%s)", r.effect, r.Text, f.Text, posOrLayer(f))
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
func (l *linter) shadows(rules []*lintRule, prec toolgate.Precedence) {
	for _, r := range rules {
		if r.effect == toolgate.EffectDeny {
			continue
		}
		var by *lintRule
		for _, d := range rules {
			if d.effect == toolgate.EffectDeny && l.covers(d, r) {
				by = d
				break
			}
		}
		if by != nil {
			l.add(r.spec.Pos, "warning", "shadowed-by-deny", "%s rule %s never applies: deny rule %s (%s) matches every call it matches", r.effect, r.Text, by.Text, posOrLayer(by))
			continue
		}
		earlier := toolgate.EffectAllow // deny-allow-ask: allow beats ask
		if prec == toolgate.DenyAskAllow {
			earlier = toolgate.EffectAsk
		}
		if r.effect == earlier {
			continue
		}
		for _, d := range rules {
			if d.effect == toolgate.EffectAllow && approvesNothing(d) {
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
			l.add(r.spec.Pos, "warning", "shadowed-by-precedence", "%s rule %s never applies: under %s the %s rule %s (%s) is checked first and matches every call it matches", r.effect, r.Text, prec, by.effect, by.Text, posOrLayer(by))
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
		ds = d.Trimmed(k == "read" || k == "list" || k == "search" || k == "edit")
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
	case strings.HasSuffix(ds, "*") && l.kindOf(d.Tool) == "shell":
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
		return starMatch(dt, rt, d.fold())
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
	rk := l.kindOf(rt)
	if dk == "read" {
		return rk == "read" || rk == "list" || rk == "search"
	}
	return rk == dk
}

// starMatch matches a tool glob where * is any run of characters.
func starMatch(pat, s string, fold bool) bool {
	if fold {
		pat, s = strings.ToLower(pat), strings.ToLower(s)
	}
	parts := strings.Split(pat, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(s, p)
		}
		j := strings.Index(s, p)
		if j < 0 {
			return false
		}
		s = s[j+len(p):]
	}
	return true
}

// lintReadings reports what the engine makes of a rule beyond its text
// (toolgate.RuleReadings): the Claude Code shapes, and allow rules that
// cannot approve the command they name.
func (l *linter) lintReadings(r *lintRule) {
	pos, allow := r.spec.Pos, r.effect == toolgate.EffectAllow
	for _, n := range toolgate.RuleReadings(r.Text, r.effect) {
		switch n.Code {
		case "padded":
			switch {
			case allow && n.ApprovesNothing:
				l.add(pos, "warning", "claude-spacing", "allow rule %s approves nothing: Claude Code keeps the spaces inside the parentheses and before :*, so no command matches it; write %s", r.Text, n.Reading)
			case allow:
				l.add(pos, "warning", "claude-spacing", "allow rule %s has spaces inside the parentheses that Claude Code keeps; it is read as written; write %s", r.Text, n.Reading)
			default:
				l.add(pos, "warning", "claude-spacing", "%s rule %s has spaces inside the parentheses that Claude Code keeps, so in Claude Code itself it matches nothing; toolgate also matches its trimmed reading; write %s", r.effect, r.Text, n.Reading)
			}
		case "no-command":
			if allow {
				l.add(pos, "warning", "allow-approves-nothing", "allow rule %s approves nothing: with Claude Code's escapes removed it reads as a command no shell can parse; as written it would be %s", r.Text, n.Reading)
			} else {
				l.add(pos, "warning", "claude-escape", "%s rule %s: with Claude Code's escapes removed it reads as a command no shell can parse, so Claude Code never matches it; toolgate matches it as written (%s)", r.effect, r.Text, n.Reading)
			}
		case "powershell-allow":
			l.add(pos, "warning", "allow-approves-nothing", "allow rule %s approves nothing: PowerShell commands are never parsed, so only an exact PowerShell rule approves a command", r.Text)
		case "unanalysable":
			l.add(pos, "warning", "allow-approves-nothing", "allow rule %s approves nothing: the command it names cannot be analysed (%s)", r.Text, n.Reading)
		case "assign-unsafe":
			l.add(pos, "warning", "allow-approves-nothing", "allow rule %s approves nothing: it assigns %s, which is not a known-safe variable, and a command making such an assignment is never allowed by a rule", r.Text, n.Reading)
		case "exact-only":
			l.add(pos, "warning", "allow-exact-only", "allow rule %s cannot approve what it names: an interpreter or shell running a script, a module or inline code is approved only by an exact rule naming it", r.Text)
		case "secret-needs-path-rule", "secret-non-path":
			l.add(pos, "warning", "secret-needs-path-rule", "allow rule %s names the secret file %s: reading it needs an allow rule whose path pattern names it, e.g. Read(./%s)", r.Text, n.Reading, strings.TrimPrefix(n.Reading, "./"))
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
func approvesNothing(r *lintRule) bool {
	for _, n := range toolgate.RuleReadings(r.Text, r.effect) {
		if n.ApprovesNothing {
			return true
		}
	}
	return false
}
