package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate"
)

const explainUsage = `Usage:

	toolgate explain [--config [SOURCE=]FILE]... [--claude] [--mode MODE] [--cwd DIR] [--home DIR]
	                 --tool NAME [--input JSON] [--agent NAME] [--server NAME]

Explain answers "why was this call decided so?". It prints the decision as
check does, then the settings in force and where each comes from, then every
layer (highest priority first) and, in the order they are evaluated — deny
rules, then ask and allow rules in the configured precedence — every rule
that matched the call and every rule that nearly matched (it names the
call's tool, but its specifier did not match), with its file:line:col.

Exit status: 0 after explaining; 2 on a usage or configuration error.

Flags:
`

func (c *cli) explain(args []string) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var (
		pf     policyFlags
		tool   = fs.String("tool", "", "the call's tool `NAME` (required)")
		input  = fs.String("input", "", "the call's input, a JSON object (default {})")
		agent  = fs.String("agent", "", "the sub-agent `NAME` making the call")
		server = fs.String("server", "", "the MCP server `NAME` of the tool")
	)
	pf.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), explainUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("explain: unexpected argument %q", fs.Arg(0))
		return exitUsage
	}
	if *tool == "" {
		c.errorf("explain: --tool is required")
		return exitUsage
	}
	ld, code := c.load(&pf, true)
	if ld == nil {
		return code
	}
	def := defaults{cwd: ld.env.cwd, home: ld.env.home, mode: ld.env.mode}
	call, err := flagCall(def, *tool, *input, *agent, *server)
	if err != nil {
		c.errorf("explain: %v", err)
		return exitUsage
	}
	writeExplanation(c.stdout, ld.cfg, call)
	return exitOK
}

// writeExplanation writes the decision of call, the settings, the layers
// and the matching and nearly matching rules in order of evaluation.
func writeExplanation(w io.Writer, cfg *toolgate.Config, call toolgate.Call) {
	input := string(call.Input)
	if input == "" {
		input = "{}"
	}
	mode := cfg.Mode()
	if call.Mode != nil {
		mode = *call.Mode
	}
	fmt.Fprintf(w, "call: %s %s\n  cwd: %s\n", call.Tool, input, call.Cwd)
	if call.Agent != "" {
		fmt.Fprintf(w, "  agent: %s\n", call.Agent)
	}
	fmt.Fprintf(w, "\ndecision: ")
	writeHuman(w, cfg.Decide(call))

	layers := cfg.Layers()
	fmt.Fprintf(w, "\nsettings:\n")
	fmt.Fprintf(w, "  mode: %s%s\n", mode, settingOrigin(layers, func(l toolgate.Layer) bool { return l.Mode != nil }, call.Mode != nil))
	fmt.Fprintf(w, "  precedence: %s%s\n", cfg.Precedence(), settingOrigin(layers, func(l toolgate.Layer) bool { return l.Precedence != nil }, false))
	def, defFrom := scalarSetting(layers, func(l toolgate.Layer) *toolgate.Outcome { return l.Default })
	fmt.Fprintf(w, "  default: %s%s\n", orOutcome(def, toolgate.Ask), defFrom)
	// The engine's reading: the built-in default_read_only follows a file's
	// default, and is not in force under --config.
	st := cfg.Settings()
	roFrom := " (from default)"
	if st.DefaultReadOnlySource != toolgate.SourceInvalid {
		_, roFrom = scalarSetting(layers, func(l toolgate.Layer) *toolgate.Outcome { return l.DefaultReadOnly })
	}
	fmt.Fprintf(w, "  default_read_only: %s%s\n", st.DefaultReadOnly, roFrom)

	fmt.Fprintf(w, "\nlayers (highest priority first):\n")
	for i, l := range layers {
		fmt.Fprintf(w, "  %d. %s %s: %d deny, %d ask, %d allow\n", i+1, l.Source, layerName(l), len(l.Deny), len(l.Ask), len(l.Allow))
	}

	m := cfg.MatchingRules(call)
	stages := []struct {
		title string
		eff   toolgate.Effect
		hits  []toolgate.Reason
	}{
		{"deny rules", toolgate.EffectDeny, m.Deny},
		{"ask rules", toolgate.EffectAsk, m.Ask},
		{"allow rules", toolgate.EffectAllow, m.Allow},
	}
	if cfg.Precedence() == toolgate.DenyAllowAsk {
		stages[1], stages[2] = stages[2], stages[1]
	}
	// What the engine says of each rule: matched (and on which part),
	// matched only some parts (allow), or named the tool but matched nothing.
	type verdict struct{ word, part string }
	seen := map[string]verdict{}
	key := func(r toolgate.Reason) string { return r.Effect + "\x00" + ruleKey(r.Rule, r.File, r.Line, 0) }
	for _, st := range stages {
		for _, r := range st.hits {
			seen[key(r)] = verdict{"matched", r.Part}
		}
	}
	for _, r := range m.Partial {
		seen[key(r)] = verdict{"partly", r.Part}
	}
	for _, r := range m.NearMiss {
		seen[key(r)] = verdict{"near miss", ""}
	}
	fmt.Fprintf(w, "\nrules, in order of evaluation (%s):\n", cfg.Precedence())
	for _, st := range stages {
		fmt.Fprintf(w, "  %s:\n", st.title)
		n := 0
		for _, l := range layers {
			for _, spec := range layerRules(l, st.eff) {
				v, ok := seen[st.eff.String()+"\x00"+ruleKey(strings.TrimSpace(spec.Text), l.File, spec.Pos.Line, 0)]
				if !ok {
					continue
				}
				n++
				fmt.Fprintf(w, "    %-10s %s  (%s %s)", v.word, spec.Text, l.Source, specPos(l, spec))
				if v.part != "" {
					fmt.Fprintf(w, " on %q", v.part)
				}
				fmt.Fprintln(w)
			}
		}
		if n == 0 {
			fmt.Fprintf(w, "    (none)\n")
		}
	}
	fmt.Fprintf(w, "\n(partly: an allow rule that matches some parts but not all — an allow rule\n must match every part, path and form of the call; near miss: a rule that\n names the call's tool but matches none of its parts)\n")
}

func ruleKey(text, file string, line, col int) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d", text, file, line, col)
}

// namesTool reports whether a rule names the call's tool, ignoring its
// specifier: it compiles the rule alone with the specifier removed and
// asks whether that rule matches.
func layerRules(l toolgate.Layer, e toolgate.Effect) []toolgate.RuleSpec {
	switch e {
	case toolgate.EffectAllow:
		return l.Allow
	case toolgate.EffectDeny:
		return l.Deny
	}
	return l.Ask
}

// layerName names a layer's file, or what it is when it has none.
func layerName(l toolgate.Layer) string {
	switch {
	case l.File != "":
		return l.File
	case l.Source == toolgate.SourceBuiltin:
		return "(built-in default policy)"
	}
	return "(no file)"
}

// specPos renders a rule's position, or its layer's file.
func specPos(l toolgate.Layer, s toolgate.RuleSpec) string {
	if p := s.Pos.String(); p != "" {
		return p
	}
	return layerName(l)
}

// settingOrigin names the layer a setting comes from: the highest-priority
// layer that sets it (among equal priorities, the last).
func settingOrigin(layers []toolgate.Layer, sets func(toolgate.Layer) bool, request bool) string {
	if request {
		return " (from the request or --mode)"
	}
	if l, ok := settingLayer(layers, sets); ok {
		return fmt.Sprintf(" (from %s %s)", l.Source, layerName(l))
	}
	return ""
}

func settingLayer(layers []toolgate.Layer, sets func(toolgate.Layer) bool) (toolgate.Layer, bool) {
	for i, l := range layers {
		if !sets(l) {
			continue
		}
		// Among layers of equal priority the later one wins.
		for j := i + 1; j < len(layers) && layers[j].Source == l.Source; j++ {
			if sets(layers[j]) {
				l = layers[j]
			}
		}
		return l, true
	}
	return toolgate.Layer{}, false
}

func scalarSetting(layers []toolgate.Layer, get func(toolgate.Layer) *toolgate.Outcome) (*toolgate.Outcome, string) {
	l, ok := settingLayer(layers, func(l toolgate.Layer) bool { return get(l) != nil })
	if !ok {
		return nil, ""
	}
	return get(l), fmt.Sprintf(" (from %s %s)", l.Source, layerName(l))
}

func orOutcome(o *toolgate.Outcome, def toolgate.Outcome) toolgate.Outcome {
	if o == nil {
		return def
	}
	return *o
}
