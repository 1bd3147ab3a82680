package hook

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate"
)

// Client names a coding agent whose hook protocol this package speaks.
type Client string

// Clients lists the supported clients.
var Clients = []Client{Claude, Gemini, Codex, Cursor}

// ParseClient parses a client name: claude, gemini, codex or cursor.
func ParseClient(s string) (Client, error) {
	switch c := Client(s); c {
	case Claude, Gemini, Codex, Cursor:
		return c, nil
	}
	return "", fmt.Errorf("unknown client %q (want claude, gemini, codex or cursor)", s)
}

// MaxPayload is the largest hook payload, in bytes, that [Run] and [Decode]
// read. A larger payload is an error, answered with the blocking form.
const MaxPayload = 1 << 20

// AskPolicy says what toolgate answers when its decision is ask.
//
// The zero value means the client's default ([DefaultAskPolicy]).
type AskPolicy string

const (
	// AskDefault selects the client's default policy.
	AskDefault AskPolicy = ""
	// AskAsk passes "ask" on to the client, which asks a person. Refused for
	// Codex, which ignores "ask" and runs the command.
	AskAsk AskPolicy = "ask"
	// AskDeny denies the call instead: it cannot run without a person, and
	// the reason says that a person's approval is needed.
	AskDeny AskPolicy = "deny"
)

// ParseAskPolicy parses "ask" or "deny".
func ParseAskPolicy(s string) (AskPolicy, error) {
	switch p := AskPolicy(s); p {
	case AskAsk, AskDeny:
		return p, nil
	}
	return "", fmt.Errorf("unknown ask policy %q (want ask or deny)", s)
}

// DefaultAskPolicy returns a client's default ask policy:
//
//   - Claude: ask — but only where Claude Code puts a hook's question to a
//     person (see [CanAsk]); elsewhere an ask is a deny whatever the policy.
//   - Gemini: deny. An ask hangs a headless Gemini CLI.
//   - Codex: deny. Codex ignores "ask" and runs the command.
//   - Cursor: ask (the IDE shows a prompt). beforeReadFile cannot ask, so
//     an ask there is always a deny.
func DefaultAskPolicy(c Client) AskPolicy {
	switch c {
	case Claude, Cursor:
		return AskAsk
	}
	return AskDeny
}

// askPolicy resolves the policy in force for c: the option if set (Codex is
// always deny), else the client's default.
func (o Options) askPolicy(c Client) AskPolicy {
	if c == Codex {
		return AskDeny
	}
	if o.AskPolicy == AskAsk || o.AskPolicy == AskDeny {
		return o.AskPolicy
	}
	return DefaultAskPolicy(c)
}

// CanAsk reports whether a hook's "ask" reaches a person for a payload with
// meta m under opts, and when it does not, why (for the reason the model
// reads). Where it returns false, [Run] decides the call as non-interactive,
// so an ask rule or a safety floor comes back as a deny.
//
// As observed on the pinned agents (e2e tests): Claude Code turns a hook's
// ask into a run or a refusal by its own rules in bypassPermissions mode (it
// runs writes to its "sensitive" paths .git/, .claude/, .vscode/ and refuses
// the rest), has nobody to ask in dontAsk mode and lets a classifier answer
// in auto mode; it puts the question to a person (or, under -p, refuses)
// only in default, acceptEdits and plan modes. A payload without a
// permission_mode is treated as one that cannot ask. Codex ignores an ask
// and runs the call; a headless Gemini CLI hangs on one.
func CanAsk(c Client, m Meta, opts *Options) (bool, string) {
	if opts.value().askPolicy(c) != AskAsk {
		switch c {
		case Codex:
			return false, "Codex ignores a hook's \"ask\" and would run the call"
		case Gemini:
			return false, "a hook's \"ask\" hangs a headless Gemini CLI"
		}
		return false, "the ask policy is deny"
	}
	switch c {
	case Claude:
		switch m.PermissionMode {
		case "default", "acceptEdits", "plan":
			return true, ""
		case "bypassPermissions":
			return false, "in bypassPermissions mode Claude Code does not put a hook's question to a person: it would run the call or refuse it by its own rules"
		case "dontAsk":
			return false, "in dontAsk mode Claude Code asks nobody"
		case "auto":
			return false, "in auto mode Claude Code lets a classifier, not a person, answer a hook's question"
		case "":
			return false, "Claude Code did not say its permission mode, so it may not ask a person"
		}
		return false, fmt.Sprintf("Claude Code's permission mode %q is not known to ask a person", m.PermissionMode)
	case Cursor:
		if m.Event == cursorRead {
			return false, "Cursor's beforeReadFile hook cannot ask"
		}
	}
	return true, ""
}

// Options configure [Run], [Encode] and [CanAsk]. A nil *Options, like the
// zero value, means defaults.
type Options struct {
	// AskPolicy says what an ask becomes; zero means the client's default.
	// [AskAsk] is ignored for Codex, which cannot ask.
	AskPolicy AskPolicy
	// Home is the home directory put in each call (for "~" in rules and
	// inputs); empty leaves it to the engine.
	Home string
	// Audit, if set, is called once per decided call with the call as
	// decided and the decision (after the ask policy, before encoding). A
	// panic in it is answered with the blocking form.
	Audit func(call toolgate.Call, d toolgate.Decision)
}

// value returns the options o points to, or the defaults for nil.
func (o *Options) value() Options {
	if o == nil {
		return Options{}
	}
	return *o
}

// Meta is what [Decode] keeps from a payload besides the call: what
// [Encode] needs to answer in the client's terms.
type Meta struct {
	// Client is the client the payload came from.
	Client Client
	// Event is the payload's hook_event_name.
	Event string
	// Tool is the tool name as the client sent it (Gemini's
	// "mcp_server_tool", Cursor's bare MCP tool name), which may differ from
	// the call's.
	Tool string
	// Input is the tool input as mapped into the call, kept to check that a
	// rewrite can be expressed to the client.
	Input json.RawMessage
	// PermissionMode is the payload's permission_mode as sent (Claude Code,
	// Codex), or "".
	PermissionMode string
}
