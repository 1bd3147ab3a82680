package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/audit/sqlite"
	"github.com/toolgate/toolgate/config"
)

const auditUsage = `usage: toolgate audit [--db FILE] [--since TIME] [--until TIME] [--session ID]
                      [--agent NAME] [--tool NAME] [--outcome OUTCOME] [--limit N] [--newest] [--json]

Query the SQLite audit log that "toolgate hook --audit FILE.db" and the gate's
SQLite sink write. TIME is RFC 3339 (2026-11-30T09:00:00Z), a date
(2026-11-30), or a duration back from now (90m, 24h). The default log is
audit.db in the user's toolgate config directory.
`

// audit runs "toolgate audit".
func (c *cli) audit(args []string) int {
	fs := flag.NewFlagSet("toolgate audit", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), auditUsage); fs.PrintDefaults() }
	db := fs.String("db", "", "the audit log `FILE` (SQLite)")
	since := fs.String("since", "", "events at or after `TIME`")
	until := fs.String("until", "", "events before `TIME`")
	session := fs.String("session", "", "only this session `ID`")
	agent := fs.String("agent", "", "only this sub-agent `NAME`")
	tool := fs.String("tool", "", "only this tool `NAME`")
	server := fs.String("server", "", "only tools of this MCP server `NAME`")
	outcome := fs.String("outcome", "", "only this `OUTCOME` (allow, ask, deny, modify)")
	limit := fs.Int("limit", 0, "at most `N` events (0: all)")
	newest := fs.Bool("newest", false, "newest first")
	asJSON := fs.Bool("json", false, "print JSON Lines instead of a table")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(c.stdout)
			fs.Usage()
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		c.errorf("audit: unexpected argument %q", fs.Arg(0))
		return exitUsage
	}
	now := time.Now()
	f := sqlite.Filter{Session: *session, Agent: *agent, Server: *server, Tool: *tool, Newest: *newest, Limit: *limit}
	var err error
	if f.Since, err = parseWhen(*since, now); err != nil {
		c.errorf("audit: --since: %v", err)
		return exitUsage
	}
	if f.Until, err = parseWhen(*until, now); err != nil {
		c.errorf("audit: --until: %v", err)
		return exitUsage
	}
	if *outcome != "" {
		if err := f.Outcome.UnmarshalText([]byte(*outcome)); err != nil {
			c.errorf("audit: --outcome: %v", err)
			return exitUsage
		}
	}
	path := *db
	if path == "" {
		home := c.getenv("HOME")
		path = filepath.Join(config.UserConfigDir(c.getenv, home), "audit.db")
	}
	events, err := sqlite.Query(context.Background(), path, f)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			c.errorf("audit: no audit log at %s (record one with \"toolgate hook CLIENT --audit %s\")", path, path)
		} else {
			c.errorf("audit: %v", err)
		}
		return exitFailure
	}
	if *asJSON {
		err = audit.WriteJSONL(c.stdout, events)
	} else {
		err = audit.WriteTable(c.stdout, events)
	}
	if err != nil {
		c.errorf("audit: %v", err)
		return exitFailure
	}
	return exitOK
}

// parseWhen reads a time: RFC 3339, a date, or a duration back from now.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time, a date or a duration", s)
}
