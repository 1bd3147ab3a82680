package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/audit/sqlite"
	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/serve"
)

// The "toolgate hook" command: its flags, the environment it reads and the
// files it opens belong to the command line; package hook keeps the
// protocols (decoding, encoding, running one call, installing).

const hookUsage = `usage:
  toolgate hook CLIENT [--config [SOURCE=]FILE]... [--ask-policy ask|deny] [--timeout DURATION] [--audit FILE]
  toolgate hook CLIENT --server URL --token-file FILE [--wait DURATION] [--ask-policy ask|deny] [--timeout DURATION] [--audit FILE]
  toolgate hook install CLIENT [--project|--user] [--dry-run] [--command CMD] [--matcher M] [--codex PATH] [--no-check]
  toolgate hook uninstall CLIENT [--project|--user] [--dry-run] [--command CMD]
  toolgate hook status CLIENT [--project|--user] [--codex PATH]

CLIENT is claude, gemini, codex or cursor.

"toolgate hook CLIENT" is the hook command a client runs before each tool call:
it reads the call from standard input, decides it with the discovered
configuration (or the --config files), and answers in the client's format.
Any failure blocks the call (exit status 2, the reason on standard error).

With --server, the call is decided by a "toolgate serve" decision service
instead (--token-file holds an agent token; "@FILE" as the URL reads it from
FILE): an unreachable or misbehaving server blocks the call. An ask the
service records as an approval is waited on for up to --wait: approved by a
person (toolgate approvals, or the service's page) it runs once; denied or
expired it is blocked; unanswered in time it stays an ask.

"install" adds the hook entry to the client's settings (merging with what is
there; installing twice changes nothing), with this binary's absolute path
as the command; for codex it also records Codex's trust in the hook (asking
codex, from PATH or --codex, for the hook's hash). It then runs the checks
of "status" and fails (exit status 1) when the hook is not live.
"uninstall" removes it. The project is the current directory; --dry-run
prints the new settings instead of writing them.

"status" proves that the hook is live: the agent will run it (Codex is
asked through "codex app-server"; Claude Code's and Gemini CLI's settings
are resolved as they resolve them, with Gemini's folder trust), its command
exists, and one probe call through the installed command is denied. Exit
status 0 when live, 1 when not.
`

// hookMain is the "toolgate hook" command. args are the arguments after
// "hook". build makes the checker for a call's working directory and the
// --config arguments ("[SOURCE=]FILE", in order; none means discovery); it
// is called once per hook invocation, after the payload is read, and an
// error from it (every configuration diagnostic in its text) blocks the
// call.
//
// Main reads the process's working directory, home directory and
// $CODEX_HOME (for install), which a library function would take as
// arguments; it returns the exit status: 0 on success, 2 for a hookUsage error
// and for any failure of a hook invocation (the blocking form), 1 when
// install or uninstall fails.
func hookMain(args []string, stdin io.Reader, stdout, stderr io.Writer, build func(cwd string, configArgs []string) (toolgate.Checker, error)) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, hookUsage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, hookUsage)
		return 0
	case "install", "uninstall":
		return hookInstallMain(args[0], args[1:], stdout, stderr)
	case "status":
		return hookInstallMain("status", args[1:], stdout, stderr)
	}
	c, err := hook.ParseClient(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "toolgate hook: %v; the call is blocked\n%s", err, hookUsage)
		return 2
	}
	fl := flag.NewFlagSet("toolgate hook "+string(c), flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var configs stringList
	fl.Var(&configs, "config", "a configuration file, [SOURCE=]FILE (repeatable)")
	askPolicy := fl.String("ask-policy", "", "what an ask becomes: ask or deny (default: per client)")
	home := fl.String("home", "", "home directory for ~ (default: the user's)")
	timeout := fl.Duration("timeout", 0, "block the call when no decision is made in this time (0: no limit)")
	auditPath := fl.String("audit", "", "record every decision in the audit log `FILE` (.db/.sqlite: SQLite; otherwise JSON Lines)")
	server := fl.String("server", "", "decide with the toolgate decision service at `URL` (@FILE: the URL is in FILE)")
	tokenFile := fl.String("token-file", "", "with --server: the agent token's `FILE`")
	wait := fl.Duration("wait", 0, "with --server: wait this long for a person to answer an ask (0: do not wait)")
	if err := fl.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, hookUsage)
			return 0
		}
		fmt.Fprintf(stderr, "toolgate hook %s: %v; the call is blocked\n%s", c, err, hookUsage)
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "toolgate hook %s: unexpected argument %q; the call is blocked\n", c, fl.Arg(0))
		return 2
	}
	opts := hook.Options{Home: *home}
	if *askPolicy != "" {
		p, err := hook.ParseAskPolicy(*askPolicy)
		if err == nil && c == hook.Codex && p == hook.AskAsk {
			err = errors.New("codex cannot ask: it ignores \"ask\" and runs the command, so --ask-policy ask is refused for codex")
		}
		if err != nil {
			fmt.Fprintf(stderr, "toolgate hook %s: %v; the call is blocked\n", c, err)
			return 2
		}
		opts.AskPolicy = p
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	if build == nil {
		fmt.Fprintf(stderr, "toolgate hook %s: internal error: no configuration loader; the call is blocked\n", c)
		return 2
	}
	var revision string
	var evalTime time.Duration // the engine's decision alone, for the audit event
	ctx := context.Background()
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	var decide func(call toolgate.Call) (toolgate.Decision, error)
	switch {
	case *server != "":
		if len(configs) > 0 {
			fmt.Fprintf(stderr, "toolgate hook %s: give --server or --config, not both; the call is blocked\n", c)
			return 2
		}
		client, err := serveClient(*server, *tokenFile)
		if err != nil {
			fmt.Fprintf(stderr, "toolgate hook %s: --server: %v; the call is blocked\n", c, err)
			return 2
		}
		decide = func(call toolgate.Call) (toolgate.Decision, error) {
			start := time.Now()
			d, rev, err := decideRemote(ctx, client, call, *wait)
			evalTime, revision = time.Since(start), rev
			return d, err
		}
	case *tokenFile != "" || *wait != 0:
		fmt.Fprintf(stderr, "toolgate hook %s: --token-file and --wait need --server; the call is blocked\n", c)
		return 2
	default:
		decide = localDecide(build, configs, &revision, &evalTime)
	}
	if *auditPath != "" {

		sink, err := sqlite.OpenLog(*auditPath)
		if err != nil {
			fmt.Fprintf(stderr, "toolgate hook %s: audit log: %v; the call is blocked\n", c, err)
			return 2
		}
		defer sink.Close()
		opts.Audit = func(call toolgate.Call, d toolgate.Decision) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := sink.Record(ctx, audit.NewEvent(call, d, evalTime, revision, nil)); err != nil {
				fmt.Fprintf(stderr, "toolgate hook %s: audit log: %v\n", c, err)
			}
		}
	}
	return hook.Run(ctx, c, stdin, stdout, stderr, decide, &opts)
}

// localDecide decides with the configuration build makes for the call's
// working directory, noting the policy revision and the engine's time.
func localDecide(build func(cwd string, configArgs []string) (toolgate.Checker, error), configs []string, revision *string, evalTime *time.Duration) func(toolgate.Call) (toolgate.Decision, error) {
	return func(call toolgate.Call) (toolgate.Decision, error) {
		chk, err := build(call.Cwd, configs)
		if err != nil {
			return toolgate.Decision{}, fmt.Errorf("the configuration does not load:\n%v", err)
		}
		if chk == nil {
			return toolgate.Decision{}, errors.New("internal error: no checker")
		}
		if r, ok := chk.(interface{ Revision() string }); ok {
			*revision = r.Revision()
		}
		start := time.Now()
		d := chk.Decide(call)
		*evalTime = time.Since(start)
		return d, nil
	}
}

// decideRemote asks the decision service; with wait > 0 an ask it recorded
// as an approval is waited on (serve.Client.DecideWait). An ask that still
// stands says how a person approves it out of band, so that a client that
// cannot ask, and turns the ask into a deny, tells the agent what to do:
// the same call retried after the approval passes once. An error (no
// decision from the server) blocks the call.
func decideRemote(ctx context.Context, client *serve.Client, call toolgate.Call, wait time.Duration) (toolgate.Decision, string, error) {
	d, remote, err := client.DecideWait(ctx, call, wait)
	if err != nil {
		return toolgate.Decision{}, "", fmt.Errorf("the toolgate server cannot decide: %v", err)
	}
	if d.Outcome == toolgate.Ask && remote.Approval != nil && remote.Approval.ID != "" {
		d.Reasons = append(d.Reasons, toolgate.Reason{Kind: toolgate.KindHook, Message: approvalPending(remote.Approval)})
	}
	return d, remote.Revision, nil
}

func hookInstallMain(verb string, args []string, stdout, stderr io.Writer) int {
	install := verb == "install"
	if len(args) == 0 {
		fmt.Fprintf(stderr, "toolgate hook %s: missing CLIENT\n%s", verb, hookUsage)
		return 2
	}
	if h := args[0]; h == "-h" || h == "-help" || h == "--help" {
		fmt.Fprint(stdout, hookUsage)
		return 0
	}
	c, err := hook.ParseClient(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "toolgate hook %s: %v\n", verb, err)
		return 2
	}
	fl := flag.NewFlagSet("toolgate hook "+verb, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	project := fl.Bool("project", false, "the project's settings (default, except for codex)")
	user := fl.Bool("user", false, "the user's settings (default for codex)")
	dryRun := fl.Bool("dry-run", false, "print the new settings instead of writing them")
	command := fl.String("command", "", "the hook command (default: this binary's absolute path, hook CLIENT)")
	matcher := fl.String("matcher", "", "the tool matcher (default: every tool)")
	dir := fl.String("dir", "", "the project directory (default: the current directory)")
	home := fl.String("home", "", "the home directory (default: the user's)")
	codex := fl.String("codex", "", "the codex command that records and reports hook trust (default: codex on PATH)")
	noCheck := fl.Bool("no-check", false, "install: skip the final status check (and hook.Codex's trust)")
	if err := fl.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, hookUsage)
			return 0
		}
		fmt.Fprintf(stderr, "toolgate hook %s: %v\n%s", verb, err, hookUsage)
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "toolgate hook %s: unexpected argument %q\n", verb, fl.Arg(0))
		return 2
	}
	if *project && *user {
		fmt.Fprintf(stderr, "toolgate hook %s: --project and --user exclude each other\n", verb)
		return 2
	}
	o := hook.InstallOptions{Command: *command, Matcher: *matcher, DryRun: *dryRun, Dir: *dir, Home: *home,
		CodexHome: os.Getenv("CODEX_HOME")}
	switch {
	case *project:
		o.Scope = hook.ScopeProject
	case *user:
		o.Scope = hook.ScopeUser
	}
	if o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	so := hook.StatusOptions{InstallOptions: o, Codex: *codex}
	ctx := context.Background()
	if verb == "status" {
		st := hook.CheckStatus(ctx, c, &so)
		fmt.Fprint(stdout, st.String())
		if !st.OK() {
			fmt.Fprintf(stderr, "toolgate hook status: the %s hook is NOT live\n", c)
			return 1
		}
		fmt.Fprintf(stdout, "toolgate hook status: the %s hook is live\n", c)
		return 0
	}
	if install && o.Command == "" {
		if o.Command, err = defaultHookCommand(c); err != nil {
			fmt.Fprintf(stderr, "toolgate hook install: %v\n", err)
			return 1
		}
	}
	so.InstallOptions = o
	edit := hook.Uninstall
	if install {
		edit = hook.Install
	}
	path, content, err := edit(c, &o)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate hook %s: %v\n", verb, err)
		return 1
	}
	if *dryRun {
		fmt.Fprintf(stderr, "toolgate hook %s: would write %s:\n", verb, path)
		stdout.Write(content)
		if len(content) > 0 && content[len(content)-1] != '\n' {
			fmt.Fprintln(stdout)
		}
		return 0
	}
	if !install {
		fmt.Fprintf(stdout, "toolgate hook uninstall: no toolgate hook is left in %s\n", path)
		return 0
	}
	fmt.Fprintf(stdout, "toolgate hook install: wrote the %s hook %q in %s\n", c, o.Command, path)
	if *noCheck {
		fmt.Fprintf(stderr, "toolgate hook install: --no-check: not checked that %s will run the hook; run `toolgate hook status %s`\n", c.Agent(), c)
		return 0
	}
	if c == hook.Codex {
		if err := hook.TrustCodex(ctx, &so); err != nil {
			fmt.Fprintf(stderr, "toolgate hook install: the hook is written but NOT live: %v\n", err)
			return 1
		}
	}
	st := hook.CheckStatus(ctx, c, &so)
	fmt.Fprint(stdout, st.String())
	if !st.OK() {
		fmt.Fprintf(stderr, "toolgate hook install: the hook is written in %s but is NOT live (see the FAIL line above); fix that, then check with `toolgate hook status %s`\n", path, c)
		return 1
	}
	fmt.Fprintf(stdout, "toolgate hook install: the %s hook is live\n", c)
	return 0
}

// defaultCommand is the hook command to install: this toolgate binary by its
// absolute path, whatever it is called, so the agent finds it whatever its
// PATH (a hook that cannot start fails open in hook.Gemini CLI and hook.Codex). A
// temporary build ("go run", a test binary) is refused: it is gone once it
// exits.
func defaultHookCommand(c hook.Client) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this binary's path (%v); pass --command with an absolute path", err)
	}
	if !filepath.IsAbs(exe) {
		return "", fmt.Errorf("this binary's path %q is not absolute; pass --command with an absolute path", exe)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", fmt.Errorf("this toolgate is a temporary \"go run\" build (%s) that is deleted when it exits; install it (go install ./cmd/toolgate) and run that, or pass --command", exe)
	}
	if _, err := os.Stat(exe); err != nil {
		return "", fmt.Errorf("this binary's path %s does not exist (%v); pass --command", exe, err)
	}
	return hook.Command(exe, c), nil
}
