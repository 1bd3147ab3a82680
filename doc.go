// Package toolgate decides, before an AI agent's tool call runs, whether it is
// allowed, denied, must be asked of a person, or must run with a modified
// input.
//
// A [Config] is compiled once from layers of rules ([Layer]) and is then
// immutable and safe for concurrent use. [Config.Decide] takes a [Call] (a
// tool name, its JSON input and a working directory) and returns a
// [Decision] with the [Reason]s that produced it: which rule decided — by
// its [RuleID], its text and its file position — and which sub-command, path
// or URL it matched. Deciding is pure: it does no I/O of its own; what it
// needs from the world (symlink targets, glob expansion, an auto-mode
// classifier) comes in through [Options], which package host fills from the
// real file system.
//
// The one way in from files is package config: config.Build loads the
// files, compiles them and checks their inline examples, with every problem
// a [Diagnostic] at its position. Policies built in code go to [Compile].
//
// The engine publishes what it knows as data, for tools to format rather
// than derive: [Config.Explain] (how every rule bears on a call),
// [Config.Settings] (each setting with the layer that won it) and [Lint].
// [Engine] adds session rules that change at run time by swapping compiled
// configurations atomically; [Stricter] is the one way two decisions
// combine, as [Delegate] does for a sub-agent and package gate does around an
// agent loop's tools. [Policy] and its boolean queries are the seed's
// interface, kept for compatibility.
//
// The rule grammar, the matching rules and the order of evaluation follow the
// project's behaviour specification. Deny sees every form of a call; allow
// needs every form. Every internal error resolves to deny, and the zero
// [Outcome] is a denial.
package toolgate
