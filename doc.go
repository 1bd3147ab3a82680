// Package toolgate decides, before an AI agent's tool call runs, whether it is
// allowed, denied, must be asked of a person, or must run with a modified
// input.
//
// A [Config] is compiled once from layers of rules ([Layer]) and is then
// immutable and safe for concurrent use. [Config.Decide] takes a [Call] (a tool
// name, its JSON input and a working directory) and returns a [Decision] with
// the [Reason]s that produced it. Deciding is pure: it does no I/O of its own;
// what it needs from the world (symlink targets, glob expansion) comes in
// through [Env].
//
// The rule grammar, the matching rules and the order of evaluation follow the
// project's behaviour specification: deny sees every form of a call; allow needs
// every form. Every internal error resolves to deny.
package toolgate
