package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate"
)

// writeHuman explains a decision for a person: the outcome, the deciding
// reason (the rule with its layer and file:line:col, the part that decided,
// the message), the other reasons, and the prompt and suggestions of an ask
// or the rewritten input of a modify.
//
//	deny
//	  rule: Bash(rm:*) (deny, project /p/.toolgate/policy.yaml:4:5)
//	  part: rm -rf x
func writeHuman(w io.Writer, d toolgate.Decision) {
	fmt.Fprintln(w, d.Outcome.Effective())
	for i, r := range d.Reasons {
		if i == 1 {
			fmt.Fprintln(w, "  then:")
		}
		indent := "  "
		if i > 0 {
			indent = "    "
		}
		writeReason(w, indent, r)
	}
	if d.Outcome == toolgate.Modify || (d.Outcome == toolgate.Ask && len(d.Input) > 0) {
		fmt.Fprintf(w, "  input: %s\n", d.Input)
	}
	if d.Prompt != "" {
		lines := strings.Split(strings.TrimRight(d.Prompt, "\n"), "\n")
		if len(lines) == 1 {
			fmt.Fprintf(w, "  prompt: %s\n", lines[0])
		} else {
			fmt.Fprintln(w, "  prompt:")
			for _, l := range lines {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
	}
	if len(d.Suggestions) > 0 {
		fmt.Fprintln(w, "  suggestions (always allow):")
		for _, s := range d.Suggestions {
			fmt.Fprintf(w, "    %s\n", s)
		}
	}
}

// writeReason writes one reason as indented "key: value" lines.
func writeReason(w io.Writer, indent string, r toolgate.Reason) {
	if r.Rule != "" {
		label := "rule"
		if r.Kind != toolgate.KindRule {
			label = string(r.Kind) + " rule"
		}
		fmt.Fprintf(w, "%s%s: %s (%s)\n", indent, label, r.Rule, ruleOrigin(r))
	} else {
		fmt.Fprintf(w, "%sreason: %s\n", indent, r.Kind)
	}
	if r.Part != "" {
		fmt.Fprintf(w, "%spart: %s\n", indent, r.Part)
	}
	if r.Message != "" {
		fmt.Fprintf(w, "%smessage: %s\n", indent, r.Message)
	}
}

// ruleOrigin renders "effect, source file:line:col".
func ruleOrigin(r toolgate.Reason) string {
	s := r.Effect
	if r.Source != "" {
		s += ", " + r.Source
	}
	if p := (toolgate.Position{File: r.File, Line: r.Line, Column: r.Column}).String(); p != "" {
		s += " " + p
	}
	return s
}
