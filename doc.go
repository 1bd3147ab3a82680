// Package toolgate decides, before an AI agent's tool call runs, whether it
// is allowed, denied, must be asked of a person, or must run with a modified
// input.
//
// Layers of rules ([Layer]) compile into a [Policy], which is immutable and
// safe for concurrent use; package config loads them from files. Its Decide
// takes a [Call] and returns a [Decision] whose [Reason]s name the rule that
// decided by [RuleID], text and file position. Deciding does no I/O: what it
// needs from the world comes in through [Options] (package host fills them).
// [Engine] adds session rules; Policy.Explain, Policy.Settings and [Lint]
// publish what the engine knows as data. Every internal error is a deny.
package toolgate
