package config

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate"
)

// The legacy format is seed 004's OldPermissionsConfig / LayeredPermissionsConfig:
//
//	mode: default | acceptEdits | plan | dontAsk | bypassPermissions | deny | interactive | …
//	plan: true | {bypass_available: BOOL, pre_plan_mode: MODE} | [TOOL…] (dropped)
//	allow: [TOOL…]; deny: [TOOL…]; interactive: [TOOL…]
//	layers: [{allow, deny, interactive}, …]
//
// at the top level or under "permissions". It is migrated into one user
// layer that keeps the old meaning; every change of meaning is a warning.

var legacyKeys = []string{"mode", "plan", "allow", "deny", "interactive", "ask", "layers", "permissions"}

var legacyLayerKeys = []string{"allow", "deny", "interactive", "ask", "source", "name"}

// kindNames are the tool names a toolgate rule reads as a whole kind of tools.
var kindNames = map[string]string{
	"Bash": "shell", "Read": "read", "Edit": "edit", "Write": "edit",
	"WebFetch": "fetch", "WebSearch": "web search", "Agent": "agent",
}

type legacyLists struct {
	allow, deny, ask []toolgate.RuleSpec
	allowPos         toolgate.Position
}

func (c *checker) legacy(root *node) {
	start := toolgate.Position{File: c.file.Path, Line: 1, Column: 1}
	c.warnf(start, "legacy", "legacy permissions format (seed 004): migrated into one user layer; rewrite the file in the toolgate format (version: 1) to silence these warnings")
	l := c.newLayer(toolgate.SourceUser)
	c.file.Source = toolgate.SourceUser
	var lists legacyLists
	c.legacyBody(root, &l, &lists, true)

	// Allow rules: tool-name patterns keep their old meaning — an exact name,
	// or a prefix when the only "*" is the last character.
	var allow []toolgate.RuleSpec
	for _, r := range lists.allow {
		t := strings.TrimSpace(r.Text)
		if i := strings.IndexByte(t, '*'); i >= 0 && i != len(t)-1 && !strings.Contains(t, "(") {
			c.warnf(r.Pos, "legacy", "legacy allow rule %q never matched any tool (\"*\" was a prefix wildcard only at the end); dropped", r.Text)
			continue
		}
		allow = append(allow, r)
	}
	if len(allow) > 0 && !c.opts.trusted {
		c.distrust(lists.allowPos, fmt.Sprintf("%d allow rule(s)", len(allow)))
		allow = nil
	}
	l.Allow = allow
	for _, r := range lists.deny {
		c.widenWarning(r, "deny")
	}
	for _, r := range lists.ask {
		c.widenWarning(r, "interactive")
	}
	l.Deny, l.Ask = lists.deny, lists.ask

	if len(lists.allow) > 0 {
		if l.Default == nil {
			deny := toolgate.Deny
			l.Default = &deny
		}
		c.warnf(lists.allowPos, "legacy", "a non-empty legacy allow list denied every tool not listed: migrated as default: deny")
	} else {
		c.warnf(start, "legacy", "legacy configurations ran unlisted tools without asking; toolgate asks instead (default: ask) — set default: allow in a toolgate-format file to restore the old behaviour")
	}
	if len(allow) > 0 {
		markExactToolNames(&l)
	}
	c.file.Layers = append(c.file.Layers, l)
}

// markExactToolNames records that the layer's allow rules name tools
// literally (seed 004 semantics): "Bash" is the tool named Bash, not every
// shell tool.
func markExactToolNames(l *toolgate.Layer) { l.ExactToolNames = true }

func (c *checker) widenWarning(r toolgate.RuleSpec, list string) {
	t := strings.TrimSpace(r.Text)
	if k, ok := kindNames[t]; ok {
		c.warnf(r.Pos, "legacy", "legacy %s rule %q named one tool; it now covers every %s tool (deny widens)", list, r.Text, k)
	} else if i := strings.IndexByte(t, '*'); i >= 0 && i != len(t)-1 && !strings.Contains(t, "(") {
		c.warnf(r.Pos, "legacy", "legacy %s rule %q matched no tool (\"*\" was literal); it is now a glob (deny widens)", list, r.Text)
	}
}

func (c *checker) legacyBody(m *node, l *toolgate.Layer, lists *legacyLists, top bool) {
	for _, e := range m.entries {
		switch e.key {
		case "mode":
			md, ok := c.mode(e.value, e.key)
			if !ok {
				continue
			}
			switch {
			case e.value.kind == kindString && e.value.text == "deny":
				// In the toolgate format the alias deny is dontAsk; the seed's
				// mode deny denied every unlisted tool, which is strict.
				md = toolgate.Mode{Name: toolgate.ModeStrict}
				c.warnf(e.value.pos, "legacy", "legacy mode \"deny\" denied every unlisted tool: migrated as mode strict")
			case md.Name == toolgate.ModeBypassPermissions:
				c.warnf(e.value.pos, "legacy", "legacy mode %q skipped deny rules; toolgate checks deny rules and safety checks first (SPEC §12)", e.value.text)
			case md.Name == toolgate.ModeAcceptEdits:
				c.warnf(e.value.pos, "legacy", "legacy mode %q allowed every write tool, shell included; toolgate allows edits and basic file commands inside the workspace only", e.value.text)
			}
			if c.modeTrusted(e.value.pos, md, "mode") {
				l.Mode = &md
			}
		case "plan":
			switch e.value.kind {
			case kindBool:
				if e.value.text == "true" {
					md := toolgate.Mode{Name: toolgate.ModePlan}
					l.Mode = &md
				}
			case kindMap:
				if md, ok := c.mode(e.value, "plan"); ok && c.modeTrusted(e.value.pos, md, "plan") {
					l.Mode = &md
				}
			case kindList:
				// The seed's plan list named tools for plan mode; its
				// migration drops it, and so does this one (SPEC §6.1).
				for _, it := range e.value.items {
					if it.kind != kindString {
						c.typeErr(it, "plan[]", "a tool name")
					}
				}
				c.warnf(e.keyPos, "legacy", "legacy plan list (%d tool name(s)) is dropped, as the seed's migration drops it: plan mode is selected with mode: plan", len(e.value.items))
			default:
				c.typeErr(e.value, "plan", "a boolean, a plan mode object or a list of tool names")
			}
		case "allow":
			if lists.allowPos.Line == 0 {
				lists.allowPos = e.keyPos
			}
			lists.allow = append(lists.allow, c.rules(e, e.key)...)
		case "deny":
			lists.deny = append(lists.deny, c.rules(e, e.key)...)
		case "interactive", "ask":
			lists.ask = append(lists.ask, c.rules(e, e.key)...)
		case "permissions":
			if !top {
				c.unknownKey(e, "", legacyKeys)
				continue
			}
			if e.value.kind != kindMap {
				c.typeErr(e.value, "permissions", "an object")
				continue
			}
			c.legacyBody(e.value, l, lists, false)
		case "layers":
			if e.value.kind != kindList {
				c.typeErr(e.value, "layers", "a list of layer objects")
				continue
			}
			for i, it := range e.value.items {
				name := fmt.Sprintf("layers[%d]", i)
				if it.kind != kindMap {
					c.typeErr(it, name, "an object")
					continue
				}
				for _, f := range it.entries {
					fname := name + "." + f.key
					switch f.key {
					case "allow":
						if lists.allowPos.Line == 0 {
							lists.allowPos = f.keyPos
						}
						lists.allow = append(lists.allow, c.rules(f, fname)...)
					case "deny":
						lists.deny = append(lists.deny, c.rules(f, fname)...)
					case "interactive", "ask":
						lists.ask = append(lists.ask, c.rules(f, fname)...)
					case "source", "name":
						c.warnf(f.keyPos, "legacy", "%s: legacy layers are merged into one user layer", fname)
					default:
						c.unknownKey(f, name, legacyLayerKeys)
					}
				}
			}
		default:
			c.unknownKey(e, "", legacyKeys)
		}
	}
}
