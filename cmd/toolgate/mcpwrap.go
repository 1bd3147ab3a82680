package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/mcpwrap"
)

const mcpWrapUsage = `Usage:

	toolgate mcp wrap CLIENT   [--project|--user|--file PATH] [--server NAME]... [--command PROG]
	                           [--proxy-arg FLAG]... [--partial] [--headers-in-args] [--dry-run]
	toolgate mcp unwrap CLIENT [--project|--user|--file PATH] [--server NAME]... [--command PROG] [--dry-run]

"wrap" rewrites the MCP configuration of CLIENT (claude, gemini, codex or
cursor) so that each MCP server runs behind the toolgate proxy. A stdio
server's entry keeps every field but its command, which becomes

	PROG mcp [FLAG...] --upstream-name=NAME -- ORIGINAL-COMMAND ORIGINAL-ARGS...

and a streamable-HTTP server's entry becomes a stdio entry running

	PROG mcp [FLAG...] --upstream-name=NAME --upstream-url=URL [--upstream-header 'K: V']...

PROG is this binary's absolute path unless --command names another.
Wrapping twice changes nothing. The original text of each entry is kept in
FILE.toolgate-mcpwrap.json next to the file; "unwrap" puts it back, byte for
byte when nothing else changed.

Files:

	claude  project .mcp.json               user ~/.claude.json (its mcpServers and every projects.*.mcpServers)
	gemini  project .gemini/settings.json   user ~/.gemini/settings.json (default)
	codex   project .codex/config.toml      user $CODEX_HOME/config.toml or ~/.codex/config.toml (default)
	cursor  project .cursor/mcp.json        user ~/.cursor/mcp.json

Wrap refuses, naming the file and entry, what it cannot put behind the
proxy and restore: SSE and WebSocket servers, servers the client logs in to
(OAuth, token variables), URL servers with headers (unless
--headers-in-args), fields whose meaning behind a proxy is unknown, names
the client would expand as variables, and files it cannot parse. Then
nothing is written, unless --partial.

Exit status: 0 done (or nothing to do); 1 refused or failed; 2 usage error.

Flags:
`

// mcpFlags are the flags "mcp wrap" and "mcp unwrap" share.
type mcpFlags struct {
	project, user, partial, dryRun bool
	headersInArgs                  bool
	file, dir, home, command       string
	servers, proxyArgs             stringsFlag
}

// stringsFlag is a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// mcpWrap is "toolgate mcp wrap CLIENT".
func (c *cli) mcpWrap(args []string) int { return c.mcpWrapMain("wrap", args) }

// mcpUnwrap is "toolgate mcp unwrap CLIENT".
func (c *cli) mcpUnwrap(args []string) int { return c.mcpWrapMain("unwrap", args) }

func (c *cli) mcpWrapMain(verb string, args []string) int {
	wrap := verb == "wrap"
	fl := flag.NewFlagSet("toolgate mcp "+verb, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var f mcpFlags
	fl.BoolVar(&f.project, "project", false, "the project's file (default for claude and cursor)")
	fl.BoolVar(&f.user, "user", false, "the user's file (default for gemini and codex)")
	fl.StringVar(&f.file, "file", "", "edit this file (in CLIENT's format) instead")
	fl.StringVar(&f.dir, "dir", "", "the project directory (default: the current directory)")
	fl.StringVar(&f.home, "home", "", "the home directory (default: $HOME)")
	fl.Var(&f.servers, "server", "only this server (repeatable)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the new file instead of writing it")
	if wrap {
		fl.StringVar(&f.command, "command", "", "the toolgate program the client starts (default: this binary's absolute path)")
	} else {
		fl.StringVar(&f.command, "command", "", "also recognise entries running this program as wrapped (besides toolgate, toolgate-* and the recorded ones)")
	}
	if wrap {
		fl.Var(&f.proxyArgs, "proxy-arg", "a flag for the proxy, as --flag=value (repeatable)")
		fl.BoolVar(&f.partial, "partial", false, "wrap the servers that can be wrapped, leaving the refused ones as they are")
		fl.BoolVar(&f.headersInArgs, "headers-in-args", false, "wrap URL servers with HTTP headers, which then are on the proxy's command line (readable by every local user)")
	}
	usage := func(w io.Writer) {
		fmt.Fprint(w, mcpWrapUsage)
		fl.SetOutput(w)
		fl.PrintDefaults()
		fl.SetOutput(io.Discard)
	}
	var client string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		client, args = args[0], args[1:]
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(c.stdout)
			return exitOK
		}
		c.errorf("mcp %s: %v", verb, err)
		usage(c.stderr)
		return exitUsage
	}
	if client == "" && fl.NArg() > 0 {
		client = fl.Arg(0)
	} else if fl.NArg() > 0 {
		c.errorf("mcp %s: unexpected argument %q", verb, fl.Arg(0))
		return exitUsage
	}
	if client == "" {
		c.errorf("mcp %s: missing CLIENT (claude, gemini, codex or cursor)", verb)
		return exitUsage
	}
	cl, err := mcpwrap.ParseClient(client)
	if err != nil {
		c.errorf("mcp %s: %v", verb, err)
		return exitUsage
	}
	n := 0
	for _, b := range []bool{f.project, f.user, f.file != ""} {
		if b {
			n++
		}
	}
	if n > 1 {
		c.errorf("mcp %s: --project, --user and --file exclude each other", verb)
		return exitUsage
	}
	path, err := c.mcpConfigPath(cl, f)
	if err != nil {
		c.errorf("mcp %s: %v", verb, err)
		return exitUsage
	}
	o := mcpwrap.Options{Command: f.command, ProxyArgs: f.proxyArgs, Servers: f.servers, Partial: f.partial, HeadersInArgs: f.headersInArgs}
	var res *mcpwrap.Result
	if wrap {
		if o.Command == "" {
			if o.Command, err = proxyCommand(); err != nil {
				c.errorf("mcp wrap: %v", err)
				return exitFailure
			}
		}
		if p := commandWarning(o.Command); p != "" {
			c.errorf("mcp wrap: warning: %s", p)
		}
		res, err = mcpwrap.Wrap(cl, path, &o, nil, f.dryRun)
	} else {
		res, err = mcpwrap.Unwrap(cl, path, &o, nil, f.dryRun)
	}
	if err != nil {
		c.errorf("mcp %s: %v", verb, err)
		if errors.Is(err, fs.ErrNotExist) && !f.project && !f.user && f.file == "" {
			other := "--user"
			if cl == mcpwrap.Gemini || cl == mcpwrap.Codex {
				other = "--project"
			}
			c.errorf("mcp %s: (the servers may be in the other file: try %s)", verb, other)
		}
		return exitFailure
	}
	for _, w := range res.Warnings {
		c.errorf("mcp %s: warning: %s", verb, w)
	}
	out := c.stdout
	if f.dryRun {
		out = c.stderr
		c.stdout.Write(res.Content)
	}
	for _, e := range res.Entries {
		fmt.Fprintf(out, "  %s\n", e)
	}
	counts := map[mcpwrap.Action]int{}
	for _, e := range res.Entries {
		counts[e.Action]++
	}
	would := ""
	if f.dryRun {
		would = "would be "
	}
	switch {
	case wrap && !res.Changed:
		fmt.Fprintf(out, "toolgate mcp wrap: %s: nothing to wrap (%d already wrapped)\n", path, counts[mcpwrap.AlreadyWrapped])
	case wrap:
		fmt.Fprintf(out, "toolgate mcp wrap: %s: %d server(s) %swrapped behind %s", path, counts[mcpwrap.Wrapped], would, o.Command)
		if k := counts[mcpwrap.Refused]; k > 0 {
			fmt.Fprintf(out, "; %d refused and left as they are", k)
		}
		fmt.Fprintf(out, "\n")
		if !f.dryRun {
			fmt.Fprintf(out, "toolgate mcp wrap: restart %s (or its MCP servers) to start them behind the proxy; `toolgate mcp unwrap %s` undoes this\n", cl, cl)
		}
	case !res.Changed:
		fmt.Fprintf(out, "toolgate mcp unwrap: %s: nothing is wrapped\n", path)
	default:
		fmt.Fprintf(out, "toolgate mcp unwrap: %s: %d server(s) %srestored", path, counts[mcpwrap.Restored]+counts[mcpwrap.Rebuilt], would)
		if res.Identical {
			fmt.Fprintf(out, "; the file is byte for byte as it was before it was wrapped")
		}
		fmt.Fprintf(out, "\n")
	}
	return exitOK
}

// mcpConfigPath returns the file the flags name.
func (c *cli) mcpConfigPath(cl mcpwrap.Client, f mcpFlags) (string, error) {
	if f.file != "" {
		return filepath.Abs(f.file)
	}
	l := mcpwrap.Location{Dir: f.dir, Home: f.home, CodexHome: c.getenv("CODEX_HOME"), ClaudeConfigDir: c.getenv("CLAUDE_CONFIG_DIR")}
	switch {
	case f.project:
		l.Scope = mcpwrap.ScopeProject
	case f.user:
		l.Scope = mcpwrap.ScopeUser
	}
	if l.Dir == "" {
		wd, err := c.getwd()
		if err != nil {
			return "", err
		}
		l.Dir = wd
	}
	if l.Home == "" {
		l.Home = c.getenv("HOME")
	}
	var err error
	for _, p := range []*string{&l.Dir, &l.Home, &l.CodexHome, &l.ClaudeConfigDir} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return "", err
			}
		}
	}
	return mcpwrap.ConfigPath(cl, l)
}

// proxyCommand is the program a wrapped entry runs: this toolgate binary by
// its absolute path, so the client finds it whatever its PATH. A temporary
// build ("go run", a test binary) is refused: it is gone once it exits, and
// every wrapped server would fail to start.
func proxyCommand() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this binary's path (%v); pass --command", err)
	}
	if !filepath.IsAbs(exe) {
		return "", fmt.Errorf("this binary's path %q is not absolute; pass --command", exe)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("this toolgate is a temporary \"go run\" build (%s) that is deleted when it exits; install it (go install ./cmd/toolgate) and run that, or pass --command", exe)
	}
	return exe, nil
}

// commandWarning says why the client may fail to start the proxy command
// (every wrapped server would then fail to start: closed, but broken), or
// "".
func commandWarning(cmd string) string {
	if !filepath.IsAbs(cmd) {
		return fmt.Sprintf("%q is not an absolute path: the client must find it on its own PATH", cmd)
	}
	st, err := os.Stat(cmd)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: %v: the wrapped servers will fail to start until it exists", cmd, err)
	case st.IsDir() || st.Mode().Perm()&0o111 == 0:
		return fmt.Sprintf("%s is not an executable file: the wrapped servers will fail to start", cmd)
	}
	return ""
}
