// Package toolgate decides, before an AI agent's tool call runs, whether it is
// allowed, denied, must be asked of a person, or must run with a modified
// input.
//
// A [Config] is compiled once from layers of rules ([Layer], usually loaded
// from files by package config) and is then immutable and safe for
// concurrent use. [Config.Decide] takes a [Call] (a tool name, its JSON input
// and a working directory) and returns a [Decision] with the [Reason]s that
// produced it: which rule decided, from which layer and file position, and
// which sub-command, path or URL it matched. Deciding is pure: it does no I/O
// of its own; what it needs from the world (symlink targets, glob expansion,
// an auto-mode classifier) comes in through [Options].
//
// [Engine] adds session rules that change at run time by swapping compiled
// configurations atomically; [Policy] is the single-layer deny/allow/ask
// policy with its seed operations; [Delegate] combines a parent's and a
// sub-agent's checkers. Package gate puts a Checker around an agent loop's
// tools.
//
// The rule grammar, the matching rules and the order of evaluation follow the
// project's behaviour specification. Deny sees every form of a call; allow
// needs every form. Every internal error resolves to deny, and the zero
// [Outcome] is a denial.
package toolgate
