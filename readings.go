package toolgate

import (
	"fmt"
	"path"
	"strings"

	"github.com/toolgate/toolgate/internal/pathmatch"
	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/rule"
)

// Readings of one rule (SPEC §1.1, §3, §4.1; docs/rules.md, "Claude Code
// compatibility").
//
// Most rules have one reading: their text. A few shapes that real Claude
// Code settings files hold have more, and each reading is compiled as a
// rule of its own that carries the original text and position:
//
//   - Spaces kept: Claude Code 2.1 keeps the spaces inside a rule's
//     parentheses (`Bash(dd :*)` is the prefix "dd " and matches nothing;
//     `Bash( npm test)` is the exact text " npm test"). An allow rule is read
//     that way, so a padded prefix or exact shell rule approves nothing; a
//     deny or ask rule is also read trimmed (`dd:*`, `**/*token*`), so a
//     mistyped deny does not fail open.
//   - Escapes: the specifier is read with Claude's escapes removed (package
//     rule); a deny or ask rule is also read as written, which is how
//     toolgate read it before.
//   - Aliases: a rule naming a Claude Code alias (`Task`, `KillShell`) also
//     names the tool it stands for; a deny or ask rule naming the tool also
//     names its aliases.
//   - Skill and SlashCommand: the name is matched without a leading "/" and
//     without arguments, and `name:*` or `name *` is a prefix of the name.
//   - PowerShell: its commands are never parsed (they are not bash). A deny
//     or ask rule matches a command holding its text anywhere; an allow rule
//     approves only a command equal to its text, so a prefix or wildcard
//     allow rule approves nothing.

// compileReadings compiles every reading of rule s. An allow rule that can
// approve nothing yields no compiled rule and no error. The rules may be
// appended to buf (whose memory the caller reuses once it has taken them).
func (p *Policy) compileReadings(s RuleSpec, e Effect, l Layer, buf []*crule) ([]*crule, *Diagnostic) {
	one := func(r *crule) []*crule {
		if r == nil {
			return nil
		}
		return append(buf[:0], r)
	}
	pr, perr := rule.Parse(s.Text)
	if perr != nil {
		r, d := p.compileParsed(s, pr, perr, e, l)
		return one(r), d
	}
	plan := p.planReadings(pr, e)
	if l.ClaudeSettings && e == EffectAllow && pr.HasSpecifier() && p.ruleKind(pr.Tool, false) == KindMCP {
		// Claude Code skips an mcp__ rule with parentheses when it loads a
		// settings file ("MCP rules do not support patterns in
		// parentheses"): as an allow rule there it approves nothing. A deny
		// or ask rule is kept (deny widens).
		return nil, nil
	}
	pos := s.Pos.Shift(rule.Column(s.Text, pr.Lead))
	if pos.File == "" {
		pos.File = l.File
	}
	if t := pr.Trimmed(false); strings.HasSuffix(t, ":*") && strings.TrimSpace(strings.TrimSuffix(t, ":*")) == "" && p.ruleKind(pr.Tool, e != EffectAllow) == KindShell {
		// "Bash(:*)" would match no command at all; Claude Code rejects it
		// ("Prefix cannot be empty before :*").
		dp := s.Pos
		if dp.Line > 0 {
			dp = dp.Shift(rule.Column(s.Text, pr.SpecOffset()))
		}
		if dp.File == "" {
			dp.File = l.File
		}
		return nil, &Diagnostic{Pos: dp, Severity: SeverityError, Code: "rule", Message: fmt.Sprintf("rule %q: empty command prefix before \":*\", which matches no command (Claude Code rejects it too); write %s alone to cover every command", pr.Text, pr.Tool)}
	}
	seen := map[string]bool{}
	alt := func(texts []string) []*crule {
		var rs []*crule
		for _, text := range texts {
			if seen[text] {
				continue
			}
			seen[text] = true
			r, d := p.compileRule(RuleSpec{Text: text, Pos: s.Pos}, e, l)
			if d != nil {
				continue // a reading that does not compile adds nothing
			}
			r.text, r.pos = pr.Text, pos
			rs = append(rs, r)
		}
		return rs
	}
	out := buf[:0]
	if plan.primary {
		seen[s.Text] = true
		r, d := p.compileParsed(s, pr, nil, e, l)
		if d != nil {
			// Claude's reading does not compile. When the rule as written
			// (or trimmed) does, a deny or ask rule uses that reading; an
			// allow rule approves nothing, since Claude's reading is no
			// command a shell could run.
			fb := alt(plan.fallbacks)
			if len(fb) == 0 {
				return nil, d
			}
			if e == EffectAllow {
				return nil, nil
			}
			out = fb
		} else {
			out = append(out, r)
		}
	}
	if plan.approvesNothing {
		return nil, nil
	}
	out = append(out, alt(plan.extra)...)
	if len(out) == 0 {
		// No reading compiled: never a rule that silently matches nothing.
		r, d := p.compileParsed(s, pr, nil, e, l)
		return one(r), d
	}
	return out, nil
}

// readingPlan is what compileReadings compiles for one rule.
type readingPlan struct {
	primary         bool     // compile the rule's own text
	extra           []string // further readings (rule texts)
	fallbacks       []string // readings to use when the primary does not compile
	approvesNothing bool     // an allow rule that approves nothing
}

// readingNote says why a rule has more than one reading, or approves
// nothing, for lint.
type readingNote struct {
	// Code is one of: "padded" (spaces Claude Code keeps; Reading is the
	// trimmed rule), "escaped-as-written" (Reading is the rule as written,
	// without Claude's unescaping), "no-command" (Claude's reading is no
	// command a shell can parse; Reading is the reading used for deny),
	// "alias" (Reading names the tool the alias stands for), "skill",
	// "powershell-allow", "exact-only", "unanalysable", "assign-unsafe"
	// and "secret-non-path" (see ruleReadingsBuiltin).
	Code string
	// Reading is the extra reading's rule text, when there is one.
	Reading string
	// ApprovesNothing marks an allow rule that can never approve a call.
	ApprovesNothing bool
}

// ruleReadingsBuiltin reports how the engine reads a rule beyond its text: the
// extra readings a deny or ask rule also matches, and whether an allow rule
// approves nothing (a padded prefix or exact shell rule, a prefix or
// wildcard PowerShell rule). It uses the built-in catalog; the engine's own
// reading also honours a configuration's tools section.
//
// For a shell allow rule it also says what the engine's own command model
// says about the command the rule names (probed as the rule's literal text,
// followed by one argument when the rule is a prefix): that such a command
// is approved only by an exact rule (an interpreter running a script, a
// module or inline code: "exact-only"), that it cannot be analysed
// ("unanalysable"), that it assigns a variable that is not known to be safe
// ("assign-unsafe"), or that it reads a secret file, which only a path rule
// can approve ("secret-non-path").
func ruleReadingsBuiltin(text string, e Effect) []readingNote {
	c := &Policy{tools: builtinTools}
	return c.ruleReadings(text, e)
}

// ruleReadings is ruleReadingsBuiltin with c's catalog.
func (p *Policy) ruleReadings(text string, e Effect) []readingNote {
	pr, err := rule.Parse(text)
	if err != nil {
		return nil
	}
	plan := p.planReadings(pr, e)
	notes := plan.notes
	noCommand := false
	if plan.primary {
		if _, d := p.compileRule(RuleSpec{Text: text}, e, Layer{Root: "/"}); d != nil {
			for _, fb := range plan.fallbacks {
				if _, d := p.compileRule(RuleSpec{Text: fb}, e, Layer{Root: "/"}); d == nil {
					fr, _ := rule.Parse(fb)
					notes = append(notes, readingNote{Code: "no-command", Reading: fr.Tool + "(" + fr.Specifier + ")", ApprovesNothing: e == EffectAllow})
					noCommand = true
					break
				}
			}
		}
	}
	if e == EffectAllow && !plan.approvesNothing && !noCommand && pr.HasSpecifier() && p.ruleKind(pr.Tool, false) == KindShell {
		notes = append(notes, probeShellAllow(pr.Specifier)...)
	}
	return notes
}

// probeShellAllow analyses the command a shell allow rule names.
func probeShellAllow(spec string) []readingNote {
	s := strings.TrimSpace(spec)
	wild := false
	if base, ok := cutPrefixStar(s); ok {
		s, wild = strings.TrimSpace(base), true
	} else if strings.HasSuffix(s, "*") {
		s, wild = strings.TrimSuffix(s, "*"), true
	}
	if s == "" || strings.Contains(s, "*") {
		return nil
	}
	probe := s
	if wild {
		probe += " x"
	}
	const dir = "/probe"
	an := shell.Analyze(probe, shell.Options{Cwd: dir})
	var notes []readingNote
	for _, is := range an.Unanalysable {
		notes = append(notes, readingNote{Code: "unanalysable", Reading: is.Message, ApprovesNothing: true})
	}
	if len(an.UnsafeAssign) > 0 {
		notes = append(notes, readingNote{Code: "assign-unsafe", Reading: strings.Join(an.UnsafeAssign, ", "), ApprovesNothing: true})
	}
	for _, cmd := range an.Commands {
		if cmd.Unanalysable != "" {
			notes = append(notes, readingNote{Code: "unanalysable", Reading: cmd.Unanalysable, ApprovesNothing: true})
		}
		if wild && cmd.ExactOnly {
			notes = append(notes, readingNote{Code: "exact-only", Reading: cmd.Text})
		}
		for _, r := range cmd.Reads {
			if p := path.Join(dir, r.Text); !strings.HasPrefix(r.Text, "/") && pathmatch.IsSecret(p) || pathmatch.IsSecret(r.Text) {
				notes = append(notes, readingNote{Code: "secret-non-path", Reading: r.Text})
			}
		}
	}
	return notes
}

// planReadings decides the readings of a parsed rule.
func (p *Policy) planReadings(pr rule.Rule, e Effect) (plan readingPlanNotes) {
	fold := e != EffectAllow
	plan.primary = true
	tool := pr.Tool
	mk := func(t, spec string) string {
		if spec == "" {
			return t
		}
		return t + "(" + rule.Escape(spec) + ")"
	}
	note := func(code, reading string) {
		plan.notes = append(plan.notes, readingNote{Code: code, Reading: reading})
	}
	// Aliases: the tool an alias stands for; for deny and ask also every
	// other alias of that tool.
	canon, isAlias := aliasOf(tool, fold)
	if isAlias {
		t := mk(canon, pr.Specifier)
		plan.extra = append(plan.extra, t)
		note("alias", t)
	} else {
		canon = tool
	}
	if fold {
		for _, a := range aliasesFor(canon) {
			if !strings.EqualFold(a, tool) {
				plan.extra = append(plan.extra, mk(a, pr.Specifier))
			}
		}
	}
	if !pr.HasSpecifier() {
		return plan
	}
	spec := pr.Specifier
	same := func(a, b string) bool { return a == b || fold && strings.EqualFold(a, b) }
	switch {
	case same(tool, "PowerShell"):
		if !fold {
			if strings.Contains(spec, "*") {
				plan.approvesNothing = true
				plan.notes = append(plan.notes, readingNote{Code: "powershell-allow", ApprovesNothing: true})
			}
			return plan
		}
		core := pr.Trimmed(false)
		core = strings.TrimSuffix(strings.TrimSuffix(core, ":*"), " *")
		plan.primary = false
		plan.extra = append(plan.extra, mk(tool, "*"+core+"*"))
		return plan
	case same(tool, "Skill") || same(tool, "SlashCommand"):
		name := spec
		if fold {
			name = pr.Trimmed(false)
		}
		name = strings.TrimPrefix(name, "/")
		var globs []string
		if base, ok := cutPrefixStar(name); ok {
			globs = []string{base + "*", "/" + base + "*"}
		} else {
			globs = []string{name, "/" + name, name + " *", "/" + name + " *"}
		}
		plan.primary = false
		for _, g := range globs {
			plan.extra = append(plan.extra, mk(tool, g))
		}
		note("skill", "")
		return plan
	}
	kind := p.ruleKind(tool, fold)
	trimmed := pr.Trimmed(kind == KindRead || kind == KindList || kind == KindSearch || kind == KindEdit)
	if pr.Raw != spec {
		// Written with escapes that Claude removes: the text as written is
		// also a reading for deny, and the reading allow falls back on to
		// show that the rule names no real command.
		t := mk(tool, pr.Raw)
		plan.fallbacks = append(plan.fallbacks, t)
		if fold {
			plan.extra = append(plan.extra, t)
			note("escaped-as-written", tool+"("+pr.Raw+")")
		}
	}
	if trimmed != spec {
		t := mk(tool, trimmed)
		if fold {
			plan.extra = append(plan.extra, t)
			plan.fallbacks = append(plan.fallbacks, t)
		}
		n := readingNote{Code: "padded", Reading: t}
		if !fold && kind == KindShell && !claudeWildcard(spec) {
			plan.approvesNothing = true
			n.ApprovesNothing = true
		}
		plan.notes = append(plan.notes, n)
	}
	return plan
}

// readingPlanNotes is a readingPlan with the notes lint shows.
type readingPlanNotes struct {
	readingPlan
	notes []readingNote
}

// cutPrefixStar cuts a trailing ":*" or " *" (a Claude prefix rule).
func cutPrefixStar(s string) (string, bool) {
	if strings.HasSuffix(s, ":*") || strings.HasSuffix(s, " *") {
		return s[:len(s)-2], true
	}
	return s, false
}

// claudeWildcard reports whether Claude Code 2.1 reads a Bash rule's
// content as a wildcard pattern (an unescaped * and no trailing ":*"); it
// trims those, while prefix and exact rules keep their spaces.
func claudeWildcard(spec string) bool {
	if strings.HasSuffix(spec, ":*") {
		return false
	}
	for i := 0; i < len(spec); i++ {
		if spec[i] == '*' {
			n := 0
			for j := i - 1; j >= 0 && spec[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				return true
			}
		}
	}
	return false
}

// ruleKind returns the kind a rule's tool name gives its specifier.
func (p *Policy) ruleKind(tool string, fold bool) Kind {
	for n, k := range kindRuleNames {
		if n == tool || fold && strings.EqualFold(n, tool) {
			return k
		}
	}
	if info, ok := p.tools[tool]; ok {
		return info.Kind
	}
	if fold {
		for n, info := range p.tools {
			if strings.EqualFold(n, tool) {
				return info.Kind
			}
		}
	}
	if strings.HasPrefix(strings.ToLower(tool), "mcp__") {
		return KindMCP
	}
	return KindGeneric
}

// weighReadings weighs the rule at all[i] with all its readings (they are
// adjacent in an index and share an ordinal) and returns the reading that
// bears most on the call, its weight, and the index after the readings.
func (cc *callCtx) weighReadings(all []*crule, i int) (*crule, ruleMatch, int) {
	best, bw := all[i], cc.weigh(all[i])
	j := i + 1
	for ; j < len(all) && all[j].ordinal == all[i].ordinal; j++ {
		if w := cc.weigh(all[j]); matchRank(w, all[j]) > matchRank(bw, best) {
			best, bw = all[j], w
		}
	}
	return best, bw, j
}

// matchRank says how a rule bears on a call: not at all, a near miss, a
// partial match, a match (the order weighReadings ranks readings by).
func matchRank(w ruleMatch, r *crule) Match {
	switch {
	case !w.names:
		return NoMatch
	case w.matches(r.effect != EffectAllow):
		return FullMatch
	case w.hits > 0:
		return PartialMatch
	case !w.cross:
		return NearMiss
	}
	return NoMatch
}
