package main

import (
	"flag"
	"fmt"
	"io"

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
func writeExplanation(w io.Writer, cfg *toolgate.Policy, call toolgate.Call) {
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

	// The settings and the rules as the engine reads them: explain only
	// formats what it publishes.
	layers := cfg.Layers()
	st := cfg.Settings()
	from := func(o toolgate.Origin, unset string) string {
		if o.IsZero() {
			return unset
		}
		return fmt.Sprintf(" (from %s %s)", o.Source, layerName(layers[o.Layer]))
	}
	modeFrom := from(st.ModeFrom, "")
	if call.Mode != nil {
		modeFrom = " (from the request or --mode)"
	}
	fmt.Fprintf(w, "\nsettings:\n")
	fmt.Fprintf(w, "  mode: %s%s\n", mode, modeFrom)
	fmt.Fprintf(w, "  precedence: %s%s\n", st.Precedence, from(st.PrecedenceFrom, ""))
	fmt.Fprintf(w, "  default: %s%s\n", st.Default, from(st.DefaultFrom, ""))
	fmt.Fprintf(w, "  default_read_only: %s%s\n", st.DefaultReadOnly, from(st.DefaultReadOnlyFrom, " (from default)"))

	fmt.Fprintf(w, "\nlayers (highest priority first):\n")
	for i, l := range layers {
		fmt.Fprintf(w, "  %d. %s %s: %d deny, %d ask, %d allow\n", i+1, l.Source, layerName(l), len(l.Deny), len(l.Ask), len(l.Allow))
	}

	ex := cfg.Explain(call)
	lists := []toolgate.Effect{toolgate.EffectDeny, toolgate.EffectAllow, toolgate.EffectAsk}
	if st.Precedence == toolgate.DenyAskAllow {
		lists[1], lists[2] = toolgate.EffectAsk, toolgate.EffectAllow
	}
	fmt.Fprintf(w, "\nrules, in order of evaluation (%s):\n", st.Precedence)
	for _, list := range lists {
		fmt.Fprintf(w, "  %s rules:\n", list)
		n := 0
		for _, m := range ex.Rules {
			if m.ID.List != list || m.ID.Layer < 0 || m.ID.Agent != "" {
				continue
			}
			l := layers[m.ID.Layer]
			spec := layerRules(l, list)[m.ID.Index]
			n++
			fmt.Fprintf(w, "    %-10s %s  (%s %s)", m.Match, spec.Text, l.Source, specPos(l, spec))
			if m.Part != "" {
				fmt.Fprintf(w, " on %q", m.Part)
			}
			fmt.Fprintln(w)
		}
		if n == 0 {
			fmt.Fprintf(w, "    (none)\n")
		}
	}
	fmt.Fprintf(w, "\n(partly: an allow rule that matches some parts but not all — an allow rule\n must match every part, path and form of the call; near miss: a rule that\n names the call's tool but matches none of its parts)\n")
}

// layerRules returns a layer's rules of one list.
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
