package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate"
)

// Encode answers a decision in the client's format. It returns what to
// write on standard output, what to write on standard error, and the exit
// status. With exit status 0, stdout is one JSON object and a newline; with
// exit status 2 (the blocking form every client honours) stdout is empty
// and stderr holds the reason.
//
// The outcome is first resolved: an invalid outcome is a deny; an ask
// becomes a deny when the ask policy ([Options.AskPolicy]) is deny or the
// client cannot ask at this point; a modify becomes a deny when the client
// cannot apply the rewritten input, and so does an ask that carries a
// rewrite the client cannot apply (the reason then shows the rewrite, so the
// model can issue it itself). Then, per client:
//
// Claude Code, exit 0:
//
//	{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow|deny|ask","permissionDecisionReason":"…","updatedInput":{…}}}
//
// A modify is "allow" with updatedInput (the whole rewritten input); an ask
// with a rewrite carries updatedInput too.
//
// Gemini CLI, exit 0: {"decision":"allow"}, {"decision":"deny","reason":"…"},
// and for a rewrite {"decision":"allow","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{…}}}.
// Gemini merges tool_input into the original input, so a rewrite that
// removes a field cannot be expressed and is denied. "ask" is sent only
// when the ask policy is explicitly ask (an ask hangs a headless run).
//
// Codex, exit 0: the Claude form without the optional fields Codex's schema
// does not need. A deny always has a non-empty reason. An ask is always a
// deny (Codex ignores "ask" and runs the command). A modify is "allow" with
// updatedInput only for the shell tool with a string command — the only
// rewrite verified to take effect; any other rewrite is denied.
//
// Cursor, exit 0 (from Cursor's documentation, not verified against a
// running Cursor): {"permission":"allow|deny|ask","user_message":"…","agent_message":"…"}.
// Cursor's documentation has used both snake_case and camelCase for the
// message fields, so both are sent (userMessage, agentMessage); a reader
// ignores the spelling it does not know. beforeReadFile answers only
// {"permission":"allow|deny"} (it cannot ask; an ask is a deny, and the
// reason is written to stderr). Cursor's gating events cannot rewrite an
// input, so a modify is a deny.
func Encode(c Client, d toolgate.Decision, m Meta, opts *Options) (stdout []byte, stderr string, exit int) {
	p, ok := protocols[c]
	if !ok {
		return nil, fmt.Sprintf("toolgate: unknown hook client %q; the call is blocked\n", string(c)), 2
	}
	out := d.Outcome.Effective()
	reason := Explain(d)
	canAsk, why := CanAsk(c, m, opts)
	if out == toolgate.Ask && !canAsk {
		out = toolgate.Deny
		reason = askDenied(c, d, why)
	} else if out == toolgate.Deny && !canAsk && len(d.Reasons) > 0 && d.Reasons[0].Kind == toolgate.KindMode {
		// The engine turned an ask into a deny because nobody can be
		// asked: say why, in the client's terms.
		reason += " (" + why + ")"
	}
	if out == toolgate.Modify || (out == toolgate.Ask && len(bytes.TrimSpace(d.Input)) > 0) {
		// An approved ask runs the rewritten input too, so it needs the
		// same support from the client.
		if why := cannotRewrite(p, m, d.Input); why != "" {
			out = toolgate.Deny
			reason = rewriteDenied(why, out, d)
		}
	}
	v, stderr := p.answer(out, reason, d, m)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Sprintf("toolgate: cannot encode the %s answer (%v); the call is blocked: %s\n", c, err, reason), 2
	}
	return buf.Bytes(), stderr, 0
}

func askDenied(c Client, d toolgate.Decision, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "toolgate: this call needs a person's approval, and nobody can be asked through %s here, so it is denied", c)
	if why != "" {
		fmt.Fprintf(&b, " (%s)", why)
	}
	if d.Prompt != "" {
		fmt.Fprintf(&b, "; the question was: %s", d.Prompt)
	}
	b.WriteString(" (")
	b.WriteString(reasonsText(d))
	b.WriteString(")")
	return b.String()
}

func rewriteDenied(why string, out toolgate.Outcome, d toolgate.Decision) string {
	if why == errNoRewrite {
		return fmt.Sprintf("toolgate: denied: the call may run only with a rewritten input, and %s (%s)", why, reasonsText(d))
	}
	then := "to run it"
	if out == toolgate.Ask {
		then = "to have it approved"
	}
	return fmt.Sprintf("toolgate: denied: the call may run only with a rewritten input, and %s; issue the call again with this input %s: %s (%s)",
		why, then, compact(d.Input), reasonsText(d))
}

const errNoRewrite = "the rewritten input is not a JSON object"

// cannotRewrite says why the client cannot run the call with input, or "".
func cannotRewrite(p protocol, m Meta, input json.RawMessage) string {
	in := bytes.TrimSpace(input)
	if len(in) == 0 || in[0] != '{' || !json.Valid(in) {
		return errNoRewrite
	}
	return p.cannotRewrite(m, in)
}

// removedField returns the JSON pointer of a member of the object orig that
// the object rewritten lacks (looking into objects present in both), or "".
func removedField(orig, rewritten json.RawMessage) string {
	var a, b map[string]json.RawMessage
	if json.Unmarshal(orig, &a) != nil || json.Unmarshal(rewritten, &b) != nil {
		if len(bytes.TrimSpace(orig)) == 0 {
			return ""
		}
		return "fields"
	}
	return removedIn("", a, b)
}

func removedIn(prefix string, a, b map[string]json.RawMessage) string {
	for k, av := range a {
		p := prefix + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		bv, ok := b[k]
		if !ok {
			return p
		}
		var ao, bo map[string]json.RawMessage
		if json.Unmarshal(av, &ao) == nil && ao != nil && json.Unmarshal(bv, &bo) == nil && bo != nil {
			if r := removedIn(p, ao, bo); r != "" {
				return r
			}
		}
	}
	return ""
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// rewrittenInput returns the decision's rewritten input for an answer that
// carries one: a modify, or an ask with a rewrite.
func rewrittenInput(out toolgate.Outcome, d toolgate.Decision) json.RawMessage {
	if (out == toolgate.Modify || out == toolgate.Ask) && len(bytes.TrimSpace(d.Input)) > 0 {
		return d.Input
	}
	return nil
}

// Explain renders a decision's reasons as one line a model can act on: what
// was decided and why, the part of the call that decided, and the rule with
// the layer and file position where it is written, e.g.
//
//	toolgate: denied: recursive removal is not allowed on "rm -rf build" (deny rule "Bash(rm -rf:*)" in project /p/.toolgate/policy.yaml:4:5)
//
// When a mode converted the outcome (dontAsk, a non-interactive context),
// the converted reason follows after "; ". A decision without reasons still
// gets a non-empty text.
func Explain(d toolgate.Decision) string {
	var b strings.Builder
	b.WriteString("toolgate: ")
	switch d.Outcome.Effective() {
	case toolgate.Allow:
		b.WriteString("allowed")
	case toolgate.Modify:
		b.WriteString("allowed with a rewritten input")
	case toolgate.Ask:
		b.WriteString("needs approval")
	default:
		b.WriteString("denied")
	}
	if len(d.Reasons) == 0 {
		b.WriteString(" (no reason given)")
		return b.String()
	}
	b.WriteString(": ")
	writeReasons(&b, d.Reasons)
	return b.String()
}

// reasonsText renders the reasons alone, or "no reason given".
func reasonsText(d toolgate.Decision) string {
	if len(d.Reasons) == 0 {
		return "no reason given"
	}
	var b strings.Builder
	writeReasons(&b, d.Reasons)
	return b.String()
}

func writeReasons(b *strings.Builder, rs []toolgate.Reason) {
	for i, r := range rs {
		if i == 2 {
			fmt.Fprintf(b, "; and %d more", len(rs)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		writeReason(b, r)
	}
}

// writeReason renders one reason: its message, the part of the call it is
// about, and the rule with where it is written —
// `MESSAGE on "PART" (deny rule "R" in SOURCE FILE:LINE:COL)`, or without a
// message `deny rule "R" in SOURCE FILE:LINE:COL matched "PART"`.
func writeReason(b *strings.Builder, r toolgate.Reason) {
	if r.Message == "" && r.Rule != "" {
		writeRule(b, r)
		b.WriteString(" matched")
		if r.Part != "" {
			fmt.Fprintf(b, " %q", r.Part)
		}
		return
	}
	msg := r.Message
	if msg == "" {
		msg = kindText(r.Kind)
	}
	b.WriteString(msg)
	if r.Part != "" {
		fmt.Fprintf(b, " on %q", r.Part)
	}
	if r.Rule != "" {
		b.WriteString(" (")
		writeRule(b, r)
		b.WriteByte(')')
	}
}

func writeRule(b *strings.Builder, r toolgate.Reason) {
	effect := r.Effect
	if effect == "" {
		effect = "matching"
	}
	fmt.Fprintf(b, "%s rule %q", effect, r.Rule)
	if r.Source == "" && r.File == "" {
		return
	}
	b.WriteString(" in ")
	b.WriteString(r.Source)
	if r.File != "" {
		if r.Source != "" {
			b.WriteByte(' ')
		}
		b.WriteString(r.File)
		if r.Line > 0 {
			fmt.Fprintf(b, ":%d:%d", r.Line, r.Column)
		}
	}
}

func kindText(k toolgate.ReasonKind) string {
	switch k {
	case toolgate.KindRule:
		return "a rule matched"
	case toolgate.KindMode:
		return "the session mode decided"
	case toolgate.KindSafety:
		return "a safety check applies"
	case toolgate.KindDefault:
		return "no rule matched, so the policy's default applies"
	case toolgate.KindReadOnly:
		return "the call is read-only"
	case toolgate.KindSession:
		return "a session rule matched"
	case toolgate.KindHook:
		return "a host check decided"
	case toolgate.KindInvalid:
		return "the call is malformed"
	case toolgate.KindError:
		return "an internal error occurred"
	}
	if k == "" {
		return "no reason given"
	}
	return string(k)
}
