package config

import (
	"fmt"

	"github.com/toolgate/toolgate"
)

var claudePermissionKeys = []string{"allow", "deny", "ask", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"}

// claude reads a Claude Code settings file: its permissions object becomes
// one layer with Claude's precedence and defaults. Other top-level keys
// (hooks, env, model, …) belong to Claude Code and are ignored.
func (c *checker) claude(root *node) {
	l := c.newLayer(c.file.Source)
	l.ClaudeSettings = true
	prec := toolgate.DenyAskAllow
	l.Precedence = &prec
	// The implied settings follow the same trust rules as written ones.
	if o := toolgate.Ask; c.opts.trusted || strictness(o) >= strictness(c.opts.beneath.def) {
		l.Default = &o
	} else {
		c.distrust(root.pos, fmt.Sprintf("the Claude settings file's implied default: ask (looser than %s beneath)", c.opts.beneath.def))
	}
	if o := toolgate.Allow; c.opts.trusted || strictness(o) >= strictness(c.opts.beneath.defRO) {
		l.DefaultReadOnly = &o
	} else {
		c.distrust(root.pos, fmt.Sprintf("the Claude settings file's implied default_read_only: allow (looser than %s beneath)", c.opts.beneath.defRO))
	}
	if e := root.get("disableBypassPermissionsMode"); e != nil {
		c.disableBypass(e, &l, "disableBypassPermissionsMode")
	}
	if pe := root.get("permissions"); pe != nil {
		switch pe.value.kind {
		case kindNull:
		case kindMap:
			for _, e := range pe.value.entries {
				name := "permissions." + e.key
				switch e.key {
				case "allow":
					rules := c.rules(e, name)
					if len(rules) > 0 && !c.opts.trusted {
						c.distrust(e.keyPos, fmt.Sprintf("%d allow rule(s) in %s", len(rules), name))
						rules = nil
					}
					l.Allow = rules
				case "deny":
					l.Deny = c.rules(e, name)
				case "ask":
					l.Ask = c.rules(e, name)
				case "defaultMode":
					if e.value.kind != kindString {
						c.typeErr(e.value, name, "a mode name")
						continue
					}
					if m, ok := c.mode(e.value, name); ok && c.modeTrusted(e.value.pos, m, name) {
						l.Mode = &m
					}
				case "additionalDirectories":
					for _, s := range c.strings(e, name) {
						if d, ok := c.claudeDirectory(s, name); ok {
							l.AdditionalDirectories = append(l.AdditionalDirectories, d)
						}
					}
				case "disableBypassPermissionsMode":
					c.disableBypass(e, &l, name)
				default:
					c.unknownKey(e, "permissions", claudePermissionKeys)
				}
			}
		default:
			c.typeErr(pe.value, "permissions", "an object")
		}
	}
	c.file.Layers = append(c.file.Layers, l)
}

func (c *checker) disableBypass(e *entry, l *toolgate.Layer, name string) {
	s, ok := c.str(e, name)
	if !ok {
		return
	}
	if s != "disable" {
		c.errf(e.value.pos, "value", "%s: unknown value %q (want \"disable\")", name, s)
		return
	}
	if c.file.Source != toolgate.SourceManaged {
		c.warnf(e.keyPos, "source", "ignoring %s: only a managed file may disable modes, not a %s one", name, c.file.Source)
		return
	}
	l.DisableModes = append(l.DisableModes, toolgate.ModeBypassPermissions)
}

// claudeDirectory reads an additionalDirectories entry. Claude Code resolves
// a relative entry against the project (its starting directory), not
// against the .claude folder that holds the file, so "../seer" in
// <root>/.claude/settings.json names <root>/../seer, a sibling of the
// project (SPEC §4.2). The project is the folder that holds .claude; for
// ~/.claude/settings.json that is the home directory.
func (c *checker) claudeDirectory(s str, name string) (string, bool) {
	saved := c.dir
	c.dir = c.root
	defer func() { c.dir = saved }()
	return c.directory(s, name)
}
