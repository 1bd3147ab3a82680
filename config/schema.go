package config

import (
	"fmt"
	"github.com/toolgate/toolgate/internal/suggest"
	"path"
	"sort"
	"strings"

	"github.com/toolgate/toolgate"
)

// checker walks a decoded file against the schema.
type checker struct {
	file  *File
	opts  parseOptions
	diags *toolgate.Diagnostics
	dir   string // the file's directory
	root  string // the layer root ("/x" anchor)
}

// untrustedHint ends every trust warning.
const untrustedHint = `trust the project with "toolgate trust DIR" or list it in trusted_projects of your user configuration`

func (c *checker) errf(pos toolgate.Position, code, format string, args ...any) {
	c.diags.Errorf(pos, code, format, args...)
}

func (c *checker) warnf(pos toolgate.Position, code, format string, args ...any) {
	c.diags.Warnf(pos, code, format, args...)
}

// distrust reports that something of an untrusted file is ignored.
func (c *checker) distrust(pos toolgate.Position, what string) {
	c.warnf(pos, "trust", "ignoring %s: the %s file is not trusted and may only tighten the policy; %s", what, c.file.Source, untrustedHint)
}

func (c *checker) typeErr(n *node, name, want string) {
	c.errf(n.pos, "type", "%s must be %s, not %s", name, want, n.kind)
}

// Keys of a layer (top level, layers entries).
var layerKeys = []string{
	"precedence", "default", "default_read_only", "mode", "enabled",
	"allow", "deny", "ask", "interactive",
	"additional_directories", "protected_paths", "unprotected_paths",
	"trusted_projects", "include_claude_settings",
	"allow_managed_rules_only", "disable_modes",
	"tools", "rewrite", "agents",
}

var topKeys = append([]string{"version", "examples", "layers", "mcp"}, layerKeys...)

var entryKeys = append([]string{"source"}, layerKeys...)

func (c *checker) unknownKey(e *entry, where string, known []string) {
	msg := fmt.Sprintf("unknown key %q", e.key)
	if where != "" {
		msg += " in " + where
	}
	if s := suggest.Closest(e.key, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	c.warnf(e.keyPos, "unknown-key", "%s", msg)
}

// toolgate reads a file in toolgate's own schema.
func (c *checker) toolgate(root *node) {
	if e := root.get("version"); e != nil {
		switch {
		case e.value.kind != kindInt:
			c.typeErr(e.value, "version", "the number 1")
		case e.value.text != "1":
			c.errf(e.value.pos, "version", "unsupported version %s (this toolgate reads version 1)", e.value.text)
		}
	}
	own := c.newLayer(c.file.Source)
	set := c.layerBody(root, &own, c.file.Source, topKeys, "")
	var entries []toolgate.Layer
	if e := root.get("layers"); e != nil {
		entries = c.layersList(e)
	}
	if set || len(entries) == 0 {
		c.file.Layers = append(c.file.Layers, own)
	}
	c.file.Layers = append(c.file.Layers, entries...)
	if e := root.get("examples"); e != nil {
		c.examples(e)
	}
	if e := root.get("mcp"); e != nil {
		c.mcpSection(e)
	}
}

func (c *checker) newLayer(src toolgate.Source) toolgate.Layer {
	return toolgate.Layer{Source: src, File: c.file.Path, Root: c.root}
}

func (c *checker) layersList(e *entry) []toolgate.Layer {
	if e.value.kind == kindNull {
		return nil
	}
	if e.value.kind != kindList {
		c.typeErr(e.value, "layers", "a list of layer objects")
		return nil
	}
	var out []toolgate.Layer
	for i, it := range e.value.items {
		name := fmt.Sprintf("layers[%d]", i)
		if it.kind != kindMap {
			c.typeErr(it, name, "an object")
			continue
		}
		src := c.file.Source
		var s toolgate.Source
		if se := it.get("source"); se == nil {
			c.errf(it.pos, "value", "%s has no source (one of session, managed, cli, local, project, user)", name)
		} else if se.value.kind != kindString {
			c.typeErr(se.value, name+".source", "a string")
		} else if err := s.UnmarshalText([]byte(se.value.text)); err != nil {
			c.errf(se.value.pos, "value", "%s.source: %v", name, err)
		} else if s != src && !c.opts.trusted {
			c.distrust(se.value.pos, fmt.Sprintf("the claim of %s to source %q (it counts as part of the file's own layer)", name, s))
		} else {
			src = s
		}
		l := c.newLayer(src)
		c.layerBody(it, &l, src, entryKeys, name)
		out = append(out, l)
	}
	return out
}

// layerBody reads the rule and setting keys of m into l; keys not in known
// are warned about. It reports whether any layer key was present.
func (c *checker) layerBody(m *node, l *toolgate.Layer, src toolgate.Source, known []string, where string) bool {
	set := false
	prefix := ""
	if where != "" {
		prefix = where + "."
	}
	for _, e := range m.entries {
		name := prefix + e.key
		switch e.key {
		case "mcp":
			if where != "" {
				c.errf(e.keyPos, "value", "%s: the mcp section belongs at the top level of the file, not in a layers entry", where)
			}
			continue
		case "version", "examples", "layers", "source":
			if !contains(known, e.key) {
				c.unknownKey(e, where, known)
			}
			continue
		case "allow":
			rules := c.rules(e, name)
			if len(rules) > 0 && !c.opts.trusted {
				c.distrust(e.keyPos, fmt.Sprintf("%d allow rule(s) in %s", len(rules), name))
				rules = nil
			}
			l.Allow = append(l.Allow, rules...)
		case "deny":
			l.Deny = append(l.Deny, c.rules(e, name)...)
		case "ask", "interactive":
			l.Ask = append(l.Ask, c.rules(e, name)...)
		case "precedence":
			if p, ok := c.precedence(e, name); ok {
				l.Precedence = &p
			}
		case "default":
			if o, ok := c.defaultOutcome(e, name, c.opts.beneath.def); ok {
				l.Default = &o
			}
		case "default_read_only":
			if o, ok := c.defaultOutcome(e, name, c.opts.beneath.defRO); ok {
				l.DefaultReadOnly = &o
			}
		case "mode":
			if md, ok := c.mode(e.value, name); ok && c.modeTrusted(e.value.pos, md, name) {
				l.Mode = &md
			}
		case "enabled":
			if b, ok := c.boolean(e, name); ok {
				if !b && !c.opts.trusted {
					c.distrust(e.value.pos, name+": false")
				} else {
					l.Enabled = &b
				}
			}
		case "additional_directories":
			for _, s := range c.strings(e, name) {
				if d, ok := c.directory(s, name); ok {
					l.AdditionalDirectories = append(l.AdditionalDirectories, d)
				}
			}
		case "protected_paths":
			l.ProtectedPaths = append(l.ProtectedPaths, c.rules(e, name)...)
		case "unprotected_paths":
			rules := c.rules(e, name)
			if len(rules) > 0 && src != toolgate.SourceManaged {
				c.warnf(e.keyPos, "source", "ignoring %s: protected paths can be removed only by a managed layer, not a %s one", name, src)
				rules = nil
			}
			l.UnprotectedPaths = append(l.UnprotectedPaths, rules...)
		case "trusted_projects":
			dirs := c.strings(e, name)
			if src != toolgate.SourceUser && src != toolgate.SourceManaged {
				if len(dirs) > 0 {
					c.warnf(e.keyPos, "trust", "ignoring %s: only user and managed files may list trusted projects, not a %s one", name, src)
				}
				break
			}
			for _, s := range dirs {
				if d, ok := c.trustedDir(s, name); ok {
					c.file.TrustedProjects = append(c.file.TrustedProjects, d)
				}
			}
		case "include_claude_settings":
			if b, ok := c.boolean(e, name); ok {
				if src != toolgate.SourceUser && src != toolgate.SourceManaged {
					c.warnf(e.keyPos, "source", "ignoring %s: only user and managed files may set it, not a %s one", name, src)
					break
				}
				c.file.IncludeClaudeSettings = c.file.IncludeClaudeSettings || b
			}
		case "allow_managed_rules_only":
			if b, ok := c.boolean(e, name); ok {
				if src != toolgate.SourceManaged {
					c.warnf(e.keyPos, "source", "ignoring %s: only a managed layer may set it, not a %s one", name, src)
					break
				}
				l.AllowManagedRulesOnly = b
			}
		case "disable_modes":
			modes := c.modeNames(e, name)
			if len(modes) > 0 && src != toolgate.SourceManaged {
				c.warnf(e.keyPos, "source", "ignoring %s: only a managed layer may disable modes, not a %s one", name, src)
				break
			}
			l.DisableModes = append(l.DisableModes, modes...)
		case "tools":
			l.Tools = append(l.Tools, c.tools(e, name)...)
		case "rewrite":
			rw := c.rewrites(e, name)
			if len(rw) > 0 && !c.opts.trusted {
				c.distrust(e.keyPos, fmt.Sprintf("%d rewrite(s) in %s", len(rw), name))
				rw = nil
			}
			l.Rewrites = append(l.Rewrites, rw...)
		case "agents":
			agents := c.agents(e, name)
			if len(agents) > 0 {
				if l.Agents == nil {
					l.Agents = map[string]toolgate.AgentPolicy{}
				}
				for k, v := range agents {
					l.Agents[k] = v
				}
			}
		default:
			c.unknownKey(e, where, known)
			continue
		}
		set = true
	}
	return set
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str is a string value with its position.
type str struct {
	text string
	pos  toolgate.Position
}

// strings reads a list of strings; null is an empty list.
func (c *checker) strings(e *entry, name string) []str {
	v := e.value
	switch v.kind {
	case kindNull:
		return nil
	case kindList:
	default:
		c.typeErr(v, name, "a list of strings")
		return nil
	}
	out := make([]str, 0, len(v.items))
	for i, it := range v.items {
		if it.kind != kindString {
			c.typeErr(it, fmt.Sprintf("%s[%d]", name, i), "a string")
			continue
		}
		out = append(out, str{it.text, it.pos})
	}
	return out
}

// rules reads a list of rules. The text is kept exactly as written;
// the rule grammar is checked by toolgate.Compile.
func (c *checker) rules(e *entry, name string) []toolgate.RuleSpec {
	ss := c.strings(e, name)
	if len(ss) == 0 {
		return nil
	}
	out := make([]toolgate.RuleSpec, len(ss))
	for i, s := range ss {
		out[i] = toolgate.RuleSpec{Text: s.text, Pos: s.pos}
	}
	return out
}

func (c *checker) str(e *entry, name string) (string, bool) {
	if e.value.kind != kindString {
		c.typeErr(e.value, name, "a string")
		return "", false
	}
	return e.value.text, true
}

func (c *checker) boolean(e *entry, name string) (bool, bool) {
	if e.value.kind != kindBool {
		c.typeErr(e.value, name, "a boolean (true or false)")
		return false, false
	}
	return e.value.text == "true", true
}

func (c *checker) precedence(e *entry, name string) (toolgate.Precedence, bool) {
	s, ok := c.str(e, name)
	if !ok {
		return 0, false
	}
	var p toolgate.Precedence
	err := p.UnmarshalText([]byte(s))
	if err != nil {
		c.errf(e.value.pos, "value", "%s: %v", name, err)
		return 0, false
	}
	if !c.opts.trusted && p == toolgate.DenyAllowAsk && c.opts.beneath.prec == toolgate.DenyAskAllow {
		c.distrust(e.value.pos, fmt.Sprintf("%s: %s (looser than %s beneath)", name, p, c.opts.beneath.prec))
		return 0, false
	}
	return p, true
}

// strictness orders default outcomes: deny > ask > allow.
func strictness(o toolgate.Outcome) int {
	switch o {
	case toolgate.Allow:
		return 0
	case toolgate.Ask:
		return 1
	}
	return 2
}

func parseDefault(s string) (toolgate.Outcome, error) {
	switch s {
	case "allow":
		return toolgate.Allow, nil
	case "ask":
		return toolgate.Ask, nil
	case "deny":
		return toolgate.Deny, nil
	}
	return toolgate.Invalid, fmt.Errorf("unknown value %q (want allow, deny or ask)", s)
}

// defaultOutcome reads default or default_read_only; an untrusted file may
// not set one looser than beneath.
func (c *checker) defaultOutcome(e *entry, name string, beneath toolgate.Outcome) (toolgate.Outcome, bool) {
	s, ok := c.str(e, name)
	if !ok {
		return 0, false
	}
	o, err := parseDefault(s)
	if err != nil {
		c.errf(e.value.pos, "value", "%s: %v", name, err)
		return 0, false
	}
	if !c.opts.trusted && strictness(o) < strictness(beneath) {
		c.distrust(e.value.pos, fmt.Sprintf("%s: %s (looser than %s beneath)", name, o, beneath))
		return 0, false
	}
	return o, true
}

// mode reads a mode name or the object form of plan mode.
func (c *checker) mode(v *node, name string) (toolgate.Mode, bool) {
	switch v.kind {
	case kindString:
		var n toolgate.ModeName
		err := n.UnmarshalText([]byte(v.text))
		if err != nil {
			c.errf(v.pos, "value", "%s: %v", name, err)
			return toolgate.Mode{}, false
		}
		return toolgate.Mode{Name: n}, true
	case kindMap:
		m := toolgate.Mode{Name: toolgate.ModePlan}
		ok := true
		seen := map[string]bool{}
		for _, e := range v.entries {
			switch e.key {
			case "pre_plan_mode", "prePlanMode":
				if seen["pre"] {
					c.errf(e.keyPos, "value", "%s: pre_plan_mode given twice", name)
					ok = false
					continue
				}
				seen["pre"] = true
				s, sok := c.str(e, name+"."+e.key)
				if !sok {
					ok = false
					continue
				}
				var n toolgate.ModeName
				err := n.UnmarshalText([]byte(s))
				if err != nil {
					c.errf(e.value.pos, "value", "%s.%s: %v", name, e.key, err)
					ok = false
					continue
				}
				m.PrePlan = n
			case "bypass_available", "bypassAvailable":
				if seen["bypass"] {
					c.errf(e.keyPos, "value", "%s: bypass_available given twice", name)
					ok = false
					continue
				}
				seen["bypass"] = true
				b, bok := c.boolean(e, name+"."+e.key)
				if !bok {
					ok = false
					continue
				}
				m.BypassAvailable = b
			default:
				c.errf(e.keyPos, "value", "%s: unknown key %q in the plan mode object (want pre_plan_mode, bypass_available)", name, e.key)
				ok = false
			}
		}
		return m, ok
	}
	c.typeErr(v, name, "a mode name or a plan mode object")
	return toolgate.Mode{}, false
}

// modeTrusted checks that an untrusted file selects only modes that do not
// loosen the policy: default, plan (without bypass), dontAsk and strict.
func (c *checker) modeTrusted(pos toolgate.Position, m toolgate.Mode, name string) bool {
	if c.opts.trusted {
		return true
	}
	ok := false
	switch m.Name {
	case toolgate.ModeDefault, toolgate.ModeDontAsk, toolgate.ModeStrict:
		ok = true
	case toolgate.ModePlan:
		ok = !m.BypassAvailable
	}
	if !ok {
		c.distrust(pos, fmt.Sprintf("%s: %s (an untrusted file may select default, plan, dontAsk or strict)", name, m))
	}
	return ok
}

func (c *checker) modeNames(e *entry, name string) []toolgate.ModeName {
	var out []toolgate.ModeName
	for _, s := range c.strings(e, name) {
		var n toolgate.ModeName
		err := n.UnmarshalText([]byte(s.text))
		if err != nil {
			c.errf(s.pos, "value", "%s: %v", name, err)
			continue
		}
		out = append(out, n)
	}
	return out
}

// expandHome expands a leading "~" when the home directory is known.
func (c *checker) expandHome(s string) (string, bool) {
	if s == "~" || strings.HasPrefix(s, "~/") {
		if c.opts.home == "" {
			return s, false
		}
		return path.Join(c.opts.home, s[1:]), true
	}
	return s, true
}

// directory resolves an additional directory: "~" against home, relative
// paths against the file's directory. An untrusted file may only name
// directories inside its project.
func (c *checker) directory(s str, name string) (string, bool) {
	if s.text == "" {
		c.errf(s.pos, "value", "%s: empty directory", name)
		return "", false
	}
	d, ok := c.expandHome(s.text)
	if !ok {
		c.errf(s.pos, "value", "%s: %q needs the home directory, which is not known here", name, s.text)
		return "", false
	}
	if !path.IsAbs(d) {
		d = path.Join(c.dir, d)
	}
	d = path.Clean(d)
	if !c.opts.trusted && !within(d, c.root) {
		c.distrust(s.pos, fmt.Sprintf("%s entry %q (outside the project %s)", name, s.text, c.root))
		return "", false
	}
	return d, true
}

func (c *checker) trustedDir(s str, name string) (string, bool) {
	d, _ := c.expandHome(s.text)
	if d == "" || !path.IsAbs(d) && !strings.HasPrefix(d, "~") {
		c.errf(s.pos, "value", "%s: %q must be an absolute directory or start with ~/", name, s.text)
		return "", false
	}
	return path.Clean(d), true
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

func validToolPattern(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:/*-", r)) {
			return false
		}
	}
	return true
}

var toolKeys = []string{"kind", "field", "read_only", "excludes_denied"}

func (c *checker) tools(e *entry, name string) []toolgate.ToolSpec {
	v := e.value
	if v.kind == kindNull {
		return nil
	}
	if v.kind != kindMap {
		c.typeErr(v, name, "an object mapping tool names to {kind, field, read_only, excludes_denied}")
		return nil
	}
	var out []toolgate.ToolSpec
	for _, te := range v.entries {
		tname := name + "." + te.key
		if !validToolPattern(te.key) {
			c.errf(te.keyPos, "value", "%s: tool name or glob %q may hold only A-Z a-z 0-9 _ . : / * -", name, te.key)
			continue
		}
		if te.value.kind != kindMap {
			c.typeErr(te.value, tname, "an object")
			continue
		}
		ts := toolgate.ToolSpec{Pattern: te.key, Pos: te.keyPos}
		loosens := false
		for _, f := range te.value.entries {
			fname := tname + "." + f.key
			switch f.key {
			case "kind":
				if s, ok := c.str(f, fname); ok {
					var k toolgate.Kind
					err := k.UnmarshalText([]byte(s))
					if err != nil {
						c.errf(f.value.pos, "value", "%s: %v", fname, err)
						continue
					}
					ts.Kind = &k
					loosens = true
				}
			case "field":
				if s, ok := c.str(f, fname); ok {
					ts.Field = &s
					loosens = true
				}
			case "read_only":
				if b, ok := c.boolean(f, fname); ok {
					ts.ReadOnly = &b
					loosens = loosens || b
				}
			case "excludes_denied":
				if b, ok := c.boolean(f, fname); ok {
					ts.ExcludesDenied = &b
					loosens = loosens || b
				}
			default:
				c.unknownKey(f, tname, toolKeys)
			}
		}
		if loosens && !c.opts.trusted {
			// Changing a tool's kind or field changes how deny rules read
			// it, and read_only / excludes_denied loosen directly.
			c.distrust(te.keyPos, fmt.Sprintf("%s (an untrusted file may only set read_only: false or excludes_denied: false)", tname))
			continue
		}
		out = append(out, ts)
	}
	return out
}

// validPointer checks JSON Pointer syntax (RFC 6901).
func validPointer(p string) error {
	if p == "" {
		return nil
	}
	if p[0] != '/' {
		return fmt.Errorf("JSON Pointer %q must be empty or start with \"/\"", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 >= len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return fmt.Errorf("JSON Pointer %q: \"~\" must be followed by 0 or 1", p)
		}
	}
	return nil
}

var rewriteKeys = []string{"match", "set", "remove"}

func (c *checker) rewrites(e *entry, name string) []toolgate.Rewrite {
	v := e.value
	if v.kind == kindNull {
		return nil
	}
	if v.kind != kindList {
		c.typeErr(v, name, "a list of {match, set, remove} objects")
		return nil
	}
	var out []toolgate.Rewrite
	for i, it := range v.items {
		rname := fmt.Sprintf("%s[%d]", name, i)
		if it.kind != kindMap {
			c.typeErr(it, rname, "an object")
			continue
		}
		var rw toolgate.Rewrite
		ok := true
		for _, f := range it.entries {
			fname := rname + "." + f.key
			switch f.key {
			case "match":
				if s, sok := c.str(f, fname); sok {
					rw.Match = toolgate.RuleSpec{Text: s, Pos: f.value.pos}
				} else {
					ok = false
				}
			case "set":
				if f.value.kind != kindMap {
					c.typeErr(f.value, fname, "an object mapping JSON Pointers to values")
					ok = false
					continue
				}
				for _, pe := range f.value.entries {
					if err := validPointer(pe.key); err != nil {
						c.errf(pe.keyPos, "pointer", "%s: %v", fname, err)
						ok = false
						continue
					}
					raw, d := pe.value.toJSON()
					if d != nil {
						c.errf(d.Pos, d.Code, "%s.%s: %s", fname, pe.key, d.Message)
						ok = false
						continue
					}
					rw.Set = append(rw.Set, toolgate.PointerValue{Pointer: pe.key, Value: raw, Pos: pe.keyPos})
				}
			case "remove":
				for _, s := range c.strings(f, fname) {
					if err := validPointer(s.text); err != nil {
						c.errf(s.pos, "pointer", "%s: %v", fname, err)
						ok = false
						continue
					}
					rw.Remove = append(rw.Remove, toolgate.PointerRef{Pointer: s.text, Pos: s.pos})
				}
			default:
				c.unknownKey(f, rname, rewriteKeys)
			}
		}
		if it.get("match") == nil {
			c.errf(it.pos, "value", "%s has no match rule", rname)
			ok = false
		}
		if ok && len(rw.Set) == 0 && len(rw.Remove) == 0 {
			c.warnf(it.pos, "value", "%s changes nothing (no set or remove)", rname)
		}
		if ok {
			out = append(out, rw)
		}
	}
	return out
}

var agentKeys = []string{"allow", "deny", "ask", "interactive", "default", "default_read_only", "mode"}

func (c *checker) agents(e *entry, name string) map[string]toolgate.AgentPolicy {
	v := e.value
	if v.kind == kindNull {
		return nil
	}
	if v.kind != kindMap {
		c.typeErr(v, name, "an object mapping agent names to policies")
		return nil
	}
	out := map[string]toolgate.AgentPolicy{}
	for _, ae := range v.entries {
		aname := name + "." + ae.key
		if ae.value.kind != kindMap {
			c.typeErr(ae.value, aname, "an object")
			continue
		}
		ap := toolgate.AgentPolicy{Pos: ae.keyPos}
		for _, f := range ae.value.entries {
			fname := aname + "." + f.key
			switch f.key {
			case "allow":
				rules := c.rules(f, fname)
				if len(rules) > 0 && !c.opts.trusted {
					c.distrust(f.keyPos, fmt.Sprintf("%d allow rule(s) in %s", len(rules), fname))
					rules = nil
				}
				ap.Allow = append(ap.Allow, rules...)
			case "deny":
				ap.Deny = append(ap.Deny, c.rules(f, fname)...)
			case "ask", "interactive":
				ap.Ask = append(ap.Ask, c.rules(f, fname)...)
			case "default", "default_read_only":
				// An agent entry only tightens, so any value is honoured.
				if s, ok := c.str(f, fname); ok {
					o, err := parseDefault(s)
					if err != nil {
						c.errf(f.value.pos, "value", "%s: %v", fname, err)
						continue
					}
					if f.key == "default" {
						ap.Default = &o
					} else {
						ap.DefaultReadOnly = &o
					}
				}
			case "mode":
				if m, ok := c.mode(f.value, fname); ok {
					ap.Mode = &m
				}
			default:
				c.unknownKey(f, aname, agentKeys)
			}
		}
		out[ae.key] = ap
	}
	return out
}

var exampleKeys = []string{"tool", "input", "cwd", "mode", "agent", "expect", "rule"}

// examples reads the examples list, or an object with match / not_match
// lists of calls.
func (c *checker) examples(e *entry) {
	v := e.value
	switch v.kind {
	case kindNull:
	case kindList:
		for i, it := range v.items {
			c.example(it, fmt.Sprintf("examples[%d]", i), true, false)
		}
	case kindMap:
		for _, f := range v.entries {
			switch f.key {
			case "match", "not_match":
				if f.value.kind != kindList {
					c.typeErr(f.value, "examples."+f.key, "a list of calls")
					continue
				}
				for i, it := range f.value.items {
					c.example(it, fmt.Sprintf("examples.%s[%d]", f.key, i), false, f.key == "not_match")
				}
			default:
				c.unknownKey(f, "examples", []string{"match", "not_match"})
			}
		}
	default:
		c.typeErr(v, "examples", "a list of examples")
	}
}

func (c *checker) example(n *node, name string, withExpect, not bool) {
	if n.kind != kindMap {
		c.typeErr(n, name, "an object")
		return
	}
	ex := Example{Pos: n.pos, File: c.file.Path, Expect: toolgate.Allow, ExpectNot: not}
	ex.Call.Cwd = c.root
	ex.Call.Home = c.opts.home
	ok := true
	for _, f := range n.entries {
		fname := name + "." + f.key
		switch f.key {
		case "tool":
			if s, sok := c.str(f, fname); sok {
				ex.Call.Tool = s
			} else {
				ok = false
			}
		case "input":
			switch f.value.kind {
			case kindMap, kindNull:
				raw, d := f.value.toJSON()
				if d != nil {
					c.errf(d.Pos, d.Code, "%s: %s", fname, d.Message)
					ok = false
					continue
				}
				ex.Call.Input = raw
			case kindString:
				// JSON text of the input; the engine validates it.
				ex.Call.Input = []byte(f.value.text)
			default:
				c.typeErr(f.value, fname, "an object")
				ok = false
			}
		case "cwd":
			if s, sok := c.str(f, fname); sok {
				d, hok := c.expandHome(s)
				if !hok {
					c.errf(f.value.pos, "value", "%s: %q needs the home directory, which is not known here", fname, s)
					ok = false
					continue
				}
				if !path.IsAbs(d) {
					d = path.Join(c.root, d)
				}
				ex.Call.Cwd = path.Clean(d)
			} else {
				ok = false
			}
		case "mode":
			if m, mok := c.mode(f.value, fname); mok {
				ex.Mode = &m
				ex.Call.Mode = &m
			} else {
				ok = false
			}
		case "agent":
			if s, sok := c.str(f, fname); sok {
				ex.Call.Agent = s
			} else {
				ok = false
			}
		case "expect":
			if !withExpect {
				c.unknownKey(f, name, exampleKeys)
				continue
			}
			if s, sok := c.str(f, fname); sok {
				var o toolgate.Outcome
				err := o.UnmarshalText([]byte(s))
				if err != nil {
					c.errf(f.value.pos, "value", "%s: %v", fname, err)
					ok = false
					continue
				}
				ex.Expect = o
			} else {
				ok = false
			}
		case "rule":
			if s, sok := c.str(f, fname); sok {
				ex.Rule = s
			} else {
				ok = false
			}
		default:
			c.unknownKey(f, name, exampleKeys)
		}
	}
	if n.get("tool") == nil {
		c.errf(n.pos, "example", "%s has no tool", name)
		ok = false
	}
	if withExpect && n.get("expect") == nil {
		c.errf(n.pos, "example", "%s has no expect (allow, deny, ask or modify)", name)
		ok = false
	}
	if ok {
		c.file.Examples = append(c.file.Examples, ex)
	}
}

// sortedKeys returns a map's keys in order (for deterministic output).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
