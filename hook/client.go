package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate"
)

// Client names a coding agent whose hook protocol this package speaks.
type Client string

// Clients lists the supported clients.
var Clients = []Client{Claude, Gemini, Codex, Cursor}

// protocols holds each client's protocol. A client is supported when it has
// an entry here (and in [Clients]) and a file that implements it.
var protocols = map[Client]protocol{
	Claude: claude{},
	Gemini: gemini{},
	Codex:  codex{},
	Cursor: cursor{},
}

// protocol is what one client's hook speaks and where it is installed.
// Everything in this package that differs by client is behind it, one
// implementation a file (claude.go, gemini.go, codex.go, cursor.go); the
// shared code around it validates input and output, reads JSON fields,
// renders reasons and edits settings files.
type protocol interface {
	// agent is the agent's name for people ("Claude Code").
	agent() string

	// decode maps a payload's top-level fields to the call and m (the
	// payload is already checked to be one JSON object).
	decode(f fields, call *toolgate.Call, m *Meta) error
	// defaultAsk is the ask policy in force when the options set none.
	defaultAsk() AskPolicy
	// canAsk reports whether an ask reaches a person for a payload with
	// meta m under the ask policy in force, and when it does not, why.
	canAsk(policy AskPolicy, m Meta) (bool, string)
	// cannotRewrite says why the client cannot run the call with the
	// rewritten input in (a JSON object), or "".
	cannotRewrite(m Meta, in json.RawMessage) string
	// answer is the JSON value that answers the resolved outcome out, and
	// what to write on standard error beside it.
	answer(out toolgate.Outcome, reason string, d toolgate.Decision, m Meta) (v any, stderr string)

	// settingsPath is the settings file [Install] writes for o.
	settingsPath(o InstallOptions) (string, error)
	// edit returns the settings content old with toolgate's entry added
	// (install) or removed; old itself when nothing changes.
	edit(old []byte, o InstallOptions, install bool) ([]byte, error)
	// settings finds the installed hook command the agent runs, as the
	// agent resolves its settings, and adds the "settings" check to st.
	settings(ctx context.Context, st *Status, o StatusOptions) (cmd string, ok bool)
	// probePayload is a payload for a call the hook must deny in every
	// configuration: a write of the file target (the shell command shell
	// makes it) in the project directory dir.
	probePayload(dir, target, shell string) map[string]any
	// probeVerdict reads the hook's answer to the probe: its decision
	// ("deny" expected) and reason.
	probeVerdict(stdout []byte) (decision, reason string, err error)
}

// protocol returns c's protocol, or the error [ParseClient] gives for an
// unknown client.
func (c Client) protocol() (protocol, error) {
	if p, ok := protocols[c]; ok {
		return p, nil
	}
	names := make([]string, len(Clients))
	for i, c := range Clients {
		names[i] = string(c)
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return nil, fmt.Errorf("unknown client %q (want %s)", string(c), want)
}

// ParseClient parses a client name: claude, gemini, codex or cursor.
func ParseClient(s string) (Client, error) {
	c := Client(s)
	if _, err := c.protocol(); err != nil {
		return "", err
	}
	return c, nil
}

// Agent returns the name of the client's agent: "Claude Code", "Gemini
// CLI", "Codex" or "Cursor" (for an unknown client, its name).
func (c Client) Agent() string {
	p, err := c.protocol()
	if err != nil {
		return string(c)
	}
	return p.agent()
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
	p, err := c.protocol()
	if err != nil {
		return AskDeny
	}
	return p.defaultAsk()
}

// askPolicyDeny is why nobody is asked when the ask policy is deny.
const askPolicyDeny = "the ask policy is deny"

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
// and runs the call; a headless Gemini CLI hangs on one. An unknown client
// cannot ask.
func CanAsk(c Client, m Meta, opts *Options) (bool, string) {
	p, err := c.protocol()
	if err != nil {
		return false, err.Error()
	}
	policy := opts.value().AskPolicy
	if policy != AskAsk && policy != AskDeny {
		policy = p.defaultAsk()
	}
	return p.canAsk(policy, m)
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
