package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/audit/sqlite"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/serve"
	"github.com/toolgate/toolgate/store"
)

const auditUsage = `usage: toolgate audit [--db FILE | --store DB] [--since TIME] [--until TIME] [--session ID]
                      [--agent NAME] [--tool NAME] [--server NAME] [--outcome OUTCOME]
                      [--event EVENT] [--approval ID] [--limit N] [--newest] [--json]

Query the SQLite audit log that "toolgate hook --audit FILE.db" and the gate's
SQLite sink write. TIME is RFC 3339 (2026-11-30T09:00:00Z), a date
(2026-11-30), or a duration back from now (90m, 24h). The default log is
audit.db in the user's toolgate config directory.

--store DB queries the decision log of "toolgate serve" instead: DB is its
--db, a SQLite file or a postgres:// URL. Its entries are decisions, answers
to approvals, expiries and session-rule changes (--event decision, answer,
expire, session_rule), each naming the caller, the MCP server and, when it
is about one, the approval (--approval ID). Opening the store applies its
schema migrations, as toolgate serve does.
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
	storeDB := fs.String("store", "", "query the decision log of toolgate serve in `DB` (its --db: a SQLite file or a postgres:// URL)")
	event := fs.String("event", "", "only entries of this `EVENT` (with --store: decision, answer, expire, session_rule)")
	approval := fs.String("approval", "", "only entries about this approval `ID` (with --store)")
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
	if *storeDB != "" && *db != "" {
		c.errorf("audit: --db and --store name different logs: give one")
		return exitUsage
	}
	if *storeDB == "" && (*event != "" || *approval != "") {
		c.errorf("audit: --event and --approval need --store")
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
	if *storeDB != "" {
		ef := store.EntryFilter{Since: f.Since, Until: f.Until, Event: *event, Agent: *agent, Session: *session,
			Tool: *tool, Server: *server, Approval: *approval, Newest: *newest, Limit: max(*limit, 0)}
		if *outcome != "" {
			ef.Outcome = f.Outcome.String()
		}
		return c.auditStore(*storeDB, ef, *asJSON)
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

// auditStore prints the decision log entries of a toolgate serve store.
func (c *cli) auditStore(db string, f store.EntryFilter, asJSON bool) int {
	wd, err := c.getwd()
	if err != nil {
		c.errorf("audit: %v", err)
		return exitFailure
	}
	if storeKind(db) == "sqlite" {
		// Reading must not create an empty store where there was none.
		path := strings.TrimPrefix(db, "sqlite:")
		if !filepath.IsAbs(path) {
			path = filepath.Join(wd, path)
		}
		if _, err := os.Stat(path); err != nil {
			c.errorf("audit: no toolgate serve store at %s: %v", path, err)
			return exitFailure
		}
	}
	ctx := context.Background()
	st, err := openStore(ctx, db, wd, slog.New(slog.DiscardHandler))
	if err != nil {
		c.errorf("audit: %v", err)
		return exitFailure
	}
	defer st.Close()
	entries, err := st.QueryEntries(ctx, f)
	if err != nil {
		c.errorf("audit: %v", err)
		return exitFailure
	}
	if asJSON {
		enc := json.NewEncoder(c.stdout)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				c.errorf("audit: %v", err)
				return exitFailure
			}
		}
		return exitOK
	}
	if err := writeEntryTable(c.stdout, entries); err != nil {
		c.errorf("audit: %v", err)
		return exitFailure
	}
	return exitOK
}

// writeEntryTable prints decision log entries as a table, every cell with
// invisible and control characters made visible.
func writeEntryTable(w io.Writer, entries []store.Entry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tEVENT\tCALLER\tSESSION\tAGENT\tTOOL\tSERVER\tOUTCOME\tAPPROVAL\tBY\tREASON")
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return serve.Visible(s)
	}
	for _, e := range entries {
		reason := e.Rule
		if reason == "" {
			reason = e.Message
		}
		cols := []string{e.Time.UTC().Format(time.RFC3339Nano), dash(e.Event), dash(e.Caller), dash(e.Session), dash(e.Agent),
			dash(e.Tool), dash(e.Server), dash(e.Outcome), dash(e.Approval), dash(e.Approver), dash(reason)}
		if _, err := fmt.Fprintln(tw, strings.Join(cols, "\t")); err != nil {
			return err
		}
	}
	return tw.Flush()
}
