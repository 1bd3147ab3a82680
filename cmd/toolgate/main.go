// Command toolgate evaluates, explains, lints and tests toolgate permission
// policies: the rules that decide, before an AI agent's tool call runs,
// whether it is allowed, denied, asked of a person or run with a modified
// input.
//
// Usage:
//
//	toolgate check   [flags]           decide calls: one from flags, or JSON Lines on stdin
//	toolgate explain [flags]           show every layer and rule that bears on one call
//	toolgate lint    [flags]           find rules that cannot do what they seem to
//	toolgate test    [flags] [PATH...] run policy test files and inline examples
//	toolgate trust   [DIR]             let a project's own policy files loosen the policy
//	toolgate hook    CLIENT            be the pre-tool-use hook of Claude Code, Gemini CLI, Codex or Cursor
//	toolgate audit   [flags]           query the SQLite audit log
//	toolgate version                   print the version
//
// Every subcommand accepts --help. Exit status: 0 success; 1 a runtime
// error, a failing test or a lint error; 2 a usage or configuration error.
// "toolgate check --exit-code" maps the outcome of a call to 0 (allow),
// 10 (ask), 11 (deny) and 12 (modify).
//
// This command is the only part of toolgate that touches the real file
// system, the environment and exit codes; the engine itself is pure.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // runtime error, failing test, lint error
	exitUsage   = 2 // usage or configuration error

	exitAsk    = 10 // --exit-code: the call is asked about
	exitDeny   = 11 // --exit-code: the call is denied
	exitModify = 12 // --exit-code: the call runs with a rewritten input
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// cli is one invocation: its standard streams and what it reads of the
// process environment.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	getwd          func() (string, error)
	// interactive reports whether stdin is a terminal a person can answer.
	interactive func() bool
}

// run runs the command with args (without the program name) and returns its
// exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, getwd: os.Getwd,
		interactive: func() bool { return isTerminal(stdin) }}
	return c.main(args)
}

const topUsage = `toolgate decides whether an AI agent's tool calls may run.

Usage:

	toolgate <command> [flags] [arguments]

Commands:

	check     decide calls: one from --tool/--input, or JSON Lines on stdin
	explain   show every layer and rule that bears on one call
	lint      find rules that cannot do what they seem to
	test      run policy test files and the inline examples of config files
	trust     let a project's own policy files loosen the policy
	hook      be the pre-tool-use hook of claude, gemini, codex or cursor
	          (hook install|uninstall CLIENT adds or removes it)
	audit     query the SQLite audit log
	mcp       gate MCP servers for any MCP client (mcp wrap|unwrap|lock)
	serve     run the decision service for a fleet of agents
	approvals list and answer the pending asks of a decision service
	version   print the version

Run "toolgate <command> --help" for a command's flags.

Exit status: 0 success; 1 runtime error, failing test or lint error;
2 usage or configuration error. See "toolgate check --help" for --exit-code.
`

func (c *cli) main(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(c.stderr, topUsage)
		return exitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "check":
		return c.check(rest)
	case "explain":
		return c.explain(rest)
	case "lint":
		return c.lint(rest)
	case "test":
		return c.test(rest)
	case "trust":
		return c.trust(rest)
	case "version":
		return c.version(rest)
	case "hook":
		return c.hook(rest)
	case "audit":
		return c.audit(rest)
	case "mcp":
		return c.mcp(rest)
	case "serve":
		return c.serve(rest)
	case "approvals":
		return c.approvals(rest)
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && rest[0] != "help" && !strings.HasPrefix(rest[0], "-") {
			return c.main([]string{rest[0], "--help"})
		}
		fmt.Fprint(c.stdout, topUsage)
		return exitOK
	}
	fmt.Fprintf(c.stderr, "toolgate: unknown command %q\nRun \"toolgate help\" for usage.\n", cmd)
	return exitUsage
}

// errorf prints a message prefixed with "toolgate: " to standard error.
func (c *cli) errorf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "toolgate: "+format+"\n", args...)
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}
