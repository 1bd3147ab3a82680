// Package shell reads a shell command string the way the policy engine needs
// it, and matches shell command patterns.
//
// [Analyze] parses a command with mvdan.cc/sh/v3/syntax (bash dialect) and
// returns every simple command found anywhere in it — inside substitutions,
// subshells, function bodies, control structures and the scripts of
// `bash -c`, `eval` and here-documents fed to a shell — together with the
// readings each command has for allow rules ([Command.Words]) and for deny
// and ask rules ([Command.Forms]), the files it reads and writes, and the
// reasons it cannot be analysed. Nothing is ever executed or expanded against
// the real environment; the only outside capability, glob expansion, comes
// in through [Options.Glob].
//
// [CompilePattern] compiles the specifier of a shell rule such as
// `Bash(npm run test:*)`; [Pattern.Match] matches it against one reading of
// a simple command.
//
// The package follows the project principle: deny sees every form, allow
// needs every form, and anything that cannot be read fully fails closed.
package shell
