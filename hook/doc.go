// Package hook connects toolgate to the tool-permission hooks of coding
// agents: Claude Code, Gemini CLI, Codex CLI and Cursor.
//
// A client runs a hook command before each tool call and passes the call as
// JSON on standard input. [Run] reads that payload, maps it to a
// [toolgate.Call] ([Decode]), decides it, and answers in the client's exact
// format ([Encode]): allow, deny with a reason the model can act on, ask, or
// allow with a rewritten input.
//
// # Failing closed
//
// Every client treats some hook failures as "go ahead": a crash, a timeout,
// invalid JSON or an unexpected exit status lets the call run unless the
// hook entry opts out (Claude Code's "onFailure": "block"). So this package
// never relies on a failure being noticed. A payload that cannot be read or
// mapped, a configuration that does not load, an internal error or a panic
// is answered with the one form all four clients treat as a block: exit
// status 2, nothing on standard output, and the reason on standard error.
// When the exit status is 0, standard output always holds one complete JSON
// object.
//
// # Asking
//
// Not every client can ask a person, and some turn an "ask" into a run:
// Codex ignores it and runs the command; a headless Gemini CLI hangs on it;
// Claude Code in bypassPermissions mode runs a write to its own "sensitive"
// paths (.git/, .claude/) that a hook asked about. [CanAsk] says, per client
// and permission mode, whether an ask reaches a person; where it does not,
// the call is decided as non-interactive, so the engine itself turns an ask
// rule or a safety floor into a deny and says so in the reasons. The
// [AskPolicy] in [Options] can only narrow that further.
//
// # Self-protection
//
// The agents' settings directories and toolgate's own configuration are
// protected paths of the engine; the command line adds the running binary
// and every file it loaded (see cmd/toolgate). With [CanAsk] false those
// writes are denied in every mode.
//
// # Installing
//
// [Install] and [Uninstall] add and remove toolgate's entry in a client's
// settings file, merging with what is there; [TrustCodex] records Codex's
// trust in it; [CheckStatus] proves that the installed hook is live.
// The command line of "toolgate hook" — its flags, the environment it reads,
// the audit file it opens — lives in cmd/toolgate; this package takes
// everything as arguments ([Run], [Options]).
//
// # Layout
//
// Each client's protocol is one file — claude.go, gemini.go, codex.go,
// cursor.go — implementing one unexported interface: how its payload maps
// to a call, how a decision is answered, whether it can ask, where its
// settings file is and how the agent reads it. The shared code around it
// checks payloads, renders reasons and edits JSON and TOML settings, and
// never branches on the client; adding a client is adding its file and its
// entry in the table of protocols (client.go).
package hook
