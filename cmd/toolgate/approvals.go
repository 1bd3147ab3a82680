package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolgate/toolgate/serve"
	"github.com/toolgate/toolgate/store"
)

const approvalsUsage = `Usage:

	toolgate approvals list    [--state STATE] [--limit N] [--json] --server URL --token-file FILE
	toolgate approvals show    ID [--wait DURATION] [--json]  --server URL --token-file FILE
	toolgate approvals approve ID [--session] [--note TEXT]    --server URL --token-file FILE
	toolgate approvals deny    ID [--note TEXT]                --server URL --token-file FILE

Approvals lists and answers the pending asks of a toolgate decision service
("toolgate serve"). Answering needs an approver's or an admin's token; an
agent's token may only show the approvals it asked for.

approve lets exactly the asked call through once, before it expires (the
agent retries it); with --session it also adds the ask's suggested rules as
allow rules of the call's session. show --wait waits until the approval is
answered (or the time has passed).

--server and --token-file default to $TOOLGATE_SERVER and
$TOOLGATE_TOKEN_FILE. A --server of @FILE reads the URL from FILE (as
"toolgate serve --url-file" writes it).

Exit status: 0 success; 1 the server refused or cannot be reached; 2 usage.

Flags:
`

func (c *cli) approvals(args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(c.stderr, approvalsUsage)
			return exitOK
		}
		c.errorf("approvals: want list, show, approve or deny")
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("approvals "+sub, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var (
		server    = fs.String("server", c.getenv("TOOLGATE_SERVER"), "the service's `URL` (or @FILE)")
		tokenFile = fs.String("token-file", c.getenv("TOOLGATE_TOKEN_FILE"), "read the bearer token from `FILE`")
		asJSON    = fs.Bool("json", false, "print JSON")
		state     = fs.String("state", "pending", "list approvals in `STATE` (pending, approved, denied, used, expired, all)")
		limit     = fs.Int("limit", 100, "list at most `N` approvals")
		wait      = fs.Duration("wait", 0, "show: wait up to `DURATION` for an answer")
		session   = fs.Bool("session", false, "approve: also allow the suggested rules for the call's session")
		note      = fs.String("note", "", "a note recorded with the answer")
	)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), approvalsUsage)
		fs.PrintDefaults()
	}
	pos, code, done := parseInterspersed(fs, rest)
	if done {
		return code
	}
	want := 1
	switch sub {
	case "list":
		want = 0
	case "show", "approve", "deny":
	default:
		c.errorf("approvals: unknown subcommand %q (want list, show, approve or deny)", sub)
		return exitUsage
	}
	if len(pos) != want {
		if want == 0 {
			c.errorf("approvals %s: unexpected argument %q", sub, pos[0])
		} else {
			c.errorf("approvals %s: want one approval ID", sub)
		}
		return exitUsage
	}
	client, err := c.approvalsClient(*server, *tokenFile)
	if err != nil {
		c.errorf("approvals: %v", err)
		return exitUsage
	}
	if *wait > 0 {
		client.HTTP.Timeout = *wait + 15*time.Second
	}
	ctx := context.Background()
	var out any
	switch sub {
	case "list":
		list, err := client.Approvals(ctx, *state, *limit)
		if err != nil {
			return c.remoteErr(err)
		}
		if !*asJSON {
			c.printApprovals(list)
			return exitOK
		}
		if list == nil {
			list = []store.Approval{}
		}
		out = list
	case "show":
		a, err := client.Approval(ctx, pos[0], *wait)
		if err != nil {
			return c.remoteErr(err)
		}
		if !*asJSON {
			c.printApproval(a)
			return exitOK
		}
		out = a
	case "approve", "deny":
		var a store.Approval
		if sub == "approve" {
			scope := "once"
			if *session {
				scope = "session"
			}
			a, err = client.Approve(ctx, pos[0], scope, *note)
		} else {
			a, err = client.Deny(ctx, pos[0], *note)
		}
		if err != nil {
			return c.remoteErr(err)
		}
		if !*asJSON {
			fmt.Fprintf(c.stdout, "%s %s by %s\n", a.ID, a.State, a.Approver)
			return exitOK
		}
		out = a
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Fprintf(c.stdout, "%s\n", b)
	return exitOK
}

// approvalsClient builds the client of --server and --token-file.
func (c *cli) approvalsClient(server, tokenFile string) (*serve.Client, error) {
	if server == "" || tokenFile == "" {
		return nil, errors.New("--server and --token-file (or $TOOLGATE_SERVER and $TOOLGATE_TOKEN_FILE) are required")
	}
	return serveClient(server, tokenFile)
}

// serveClient is the client of a decision service at server ("@FILE": the
// URL written in FILE) with the bearer token in tokenFile.
func serveClient(server, tokenFile string) (*serve.Client, error) {
	if server == "" || tokenFile == "" {
		return nil, errors.New("a server URL and a token file are both required")
	}
	if f, ok := strings.CutPrefix(server, "@"); ok {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		server = strings.TrimSpace(string(b))
	}
	b, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return nil, fmt.Errorf("%s is empty", tokenFile)
	}
	return &serve.Client{URL: server, Token: tok, HTTP: newHTTPClient()}, nil
}

func (c *cli) remoteErr(err error) int {
	c.errorf("approvals: %v", err)
	return exitFailure
}

func (c *cli) printApprovals(list []store.Approval) {
	if len(list) == 0 {
		fmt.Fprintln(c.stdout, "no approvals")
		return
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tTOOL\tCALLER\tSESSION\tEXPIRES\tPROMPT")
	for _, a := range list {
		prompt := oneLine(a.Prompt)
		if len(prompt) > 60 {
			prompt = prompt[:57] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.State, oneLine(a.Tool), oneLine(a.Caller),
			oneLine(a.Session), a.Expires.Format(time.RFC3339), prompt)
	}
	tw.Flush()
}

func (c *cli) printApproval(a store.Approval) {
	w := c.stdout
	fmt.Fprintf(w, "id:        %s\nstate:     %s\n", a.ID, a.State)
	fmt.Fprintf(w, "tool:      %s\ninput:     %s\ncwd:       %s\n", oneLine(a.Tool), oneLine(a.Input), oneLine(a.Cwd))
	fmt.Fprintf(w, "caller:    %s\nagent:     %s\nsession:   %s\n", oneLine(a.Caller), oneLine(a.Agent), oneLine(a.Session))
	fmt.Fprintf(w, "prompt:    %s\n", oneLine(a.Prompt))
	for _, s := range a.Suggestions {
		fmt.Fprintf(w, "suggests:  %s\n", oneLine(s))
	}
	fmt.Fprintf(w, "revision:  %s\ncreated:   %s\nexpires:   %s\n", a.Revision, a.Created.Format(time.RFC3339), a.Expires.Format(time.RFC3339))
	if a.Approver != "" {
		fmt.Fprintf(w, "answered:  %s by %s\n", a.Answered.Format(time.RFC3339), oneLine(a.Approver))
	}
	if a.Note != "" {
		fmt.Fprintf(w, "note:      %s\n", oneLine(a.Note))
	}
}

// oneLine shows control, invisible and bidirectional characters of s as
// escapes, so that a terminal shows what the call really holds.
func oneLine(s string) string { return serve.Visible(s) }

// newHTTPClient is the client of the approvals commands.
func newHTTPClient() *http.Client { return &http.Client{Timeout: 30 * time.Second} }
