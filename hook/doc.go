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
// Not every client can ask a person. Codex ignores "ask" and runs the
// command; a headless Gemini CLI hangs on it; Claude Code's -p mode denies
// it. The [AskPolicy] in [Options] says what an ask becomes; its default
// depends on the client (see [DefaultAskPolicy]). Where the policy is
// [AskDeny], the call is decided as non-interactive, so the engine itself
// turns ask into deny and says so in the reasons.
//
// # Installing
//
// [Install] and [Uninstall] add and remove toolgate's entry in a client's
// settings file, merging with what is there. [Main] is the command line of
// "toolgate hook".
package hook
