// Package sqlite is the SQLite sink of package audit: events stored in a
// database file (WAL mode, group commit) and queried back. It is a package
// of its own so that importing audit, or gate, does not bring in an SQLite
// driver.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// DefaultMaxBatch is the largest group commit of the SQLite sink when
// [Options.MaxBatch] is not set.
const DefaultMaxBatch = 1024

// Options configure [Open]. The zero value is ready to use.
type Options struct {
	// Durable selects synchronous=FULL: a recorded event also survives power
	// loss and operating-system crashes. The default, synchronous=NORMAL in
	// WAL mode, makes a recorded event survive the process being killed
	// (SIGKILL, a crash) but not power loss.
	Durable bool
	// MaxBatch bounds how many concurrent Records share one transaction.
	// Zero or negative: DefaultMaxBatch.
	MaxBatch int
}

// Sink is an audit.Sink that stores events in an SQLite database (WAL mode),
// indexed by time, session, tool and outcome, and readable with
// [Sink.Query] or [Query].
//
// One goroutine writes. Concurrent Records are group-committed: each waits
// until the transaction holding its event commits, so that Record returning
// nil means the event is in the database (see [Options.Durable] for
// what that survives). If a batch fails, its events are retried one by one,
// so one bad event does not fail the others.
type Sink struct {
	db   *sql.DB
	ins  *sql.Stmt
	reqs chan *pendingRow
	done chan struct{} // closed when the writer has exited

	mu       sync.RWMutex // guards closed and sends on reqs
	closed   bool
	maxBatch int
}

// row is an event flattened for its table row; Record builds it so the
// writer never touches the caller's audit.Event.
type row struct {
	id, session, agent, server, tool, outcome, digest, mode, revision string
	input, rewritten, reasons                                         sql.NullString
	timeNS, evalNS, latencyNS                                         int64
	asked                                                             bool
}

type pendingRow struct {
	row row
	err chan error // buffered 1
}

// migrations are the schema's versions, in order: the database's
// user_version counts those applied. A version is never edited once
// released; a change is a new version.
var migrations = []string{
	// 1: the events.
	`CREATE TABLE IF NOT EXISTS events (
	seq          INTEGER PRIMARY KEY,
	id           TEXT    NOT NULL UNIQUE,
	time_ns      INTEGER NOT NULL,
	session      TEXT    NOT NULL DEFAULT '',
	agent        TEXT    NOT NULL DEFAULT '',
	tool         TEXT    NOT NULL,
	outcome      TEXT    NOT NULL,
	asked        INTEGER NOT NULL DEFAULT 0,
	input_digest TEXT    NOT NULL DEFAULT '',
	input        TEXT,
	rewritten    TEXT,
	reasons      TEXT,
	mode         TEXT    NOT NULL DEFAULT '',
	revision     TEXT    NOT NULL DEFAULT '',
	eval_ns      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS events_time    ON events(time_ns);
CREATE INDEX IF NOT EXISTS events_session ON events(session, time_ns);
CREATE INDEX IF NOT EXISTS events_tool    ON events(tool, time_ns);
CREATE INDEX IF NOT EXISTS events_outcome ON events(outcome, time_ns);`,
	// 2: the MCP server of the tool, and the host's whole latency.
	`ALTER TABLE events ADD COLUMN server TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN latency_ns INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS events_server ON events(server, time_ns);`,
}

// migrate applies the versions the database lacks, each in an immediate
// transaction (so that two processes opening one database at once apply
// each version once). A database of a newer version is left as it is: its
// columns are a superset.
func migrate(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for {
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return err
		}
		var v int
		if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
		if v >= len(migrations) {
			_, err := conn.ExecContext(ctx, "COMMIT")
			return err
		}
		if _, err := conn.ExecContext(ctx, migrations[v]); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return fmt.Errorf("schema version %d: %w", v+1, err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
			conn.ExecContext(ctx, "ROLLBACK")
			return err
		}
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			return err
		}
	}
}

const insertSQL = `INSERT INTO events
	(id, time_ns, session, agent, server, tool, outcome, asked, input_digest, input, rewritten, reasons, mode, revision, eval_ns, latency_ns)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func dsn(path string, sync string, readOnly bool) (string, error) {
	if path == "" || strings.ContainsAny(path, "?#") {
		return "", fmt.Errorf("audit: unusable database path %q", path)
	}
	q := "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(" + sync + ")"
	if readOnly {
		q = "?_pragma=busy_timeout(10000)&_pragma=query_only(1)"
	}
	return path + q, nil
}

// Open opens (creating if needed) the audit database at path and
// starts its writer. opts may be nil.
func Open(path string, opts *Options) (*Sink, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	sync := "NORMAL"
	if o.Durable {
		sync = "FULL"
	}
	name, err := dsn(path, sync, false)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	db.SetMaxOpenConns(4)
	if err := migrate(context.Background(), db); err != nil {
		db.Close()
		return nil, fmt.Errorf("audit: creating schema in %s: %w", path, err)
	}
	ins, err := db.Prepare(insertSQL)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("audit: %w", err)
	}
	s := &Sink{
		db:       db,
		ins:      ins,
		reqs:     make(chan *pendingRow, o.MaxBatch),
		done:     make(chan struct{}),
		maxBatch: o.MaxBatch,
	}
	go s.writer()
	return s, nil
}

func toRow(e *audit.Event) (row, error) {
	r := row{
		id: e.ID, session: e.Session, agent: e.Agent, server: e.Server, tool: e.Tool,
		outcome: e.Outcome.String(), digest: e.InputDigest, mode: e.Mode, revision: e.Revision,
		timeNS: e.Time.UnixNano(), evalNS: int64(e.EvalTime), latencyNS: int64(e.Latency), asked: e.Asked,
	}
	if r.id == "" {
		return r, errors.New("audit: event has no id")
	}
	if e.Input != nil {
		r.input = sql.NullString{String: string(e.Input), Valid: true}
	}
	if e.Rewritten != nil {
		r.rewritten = sql.NullString{String: string(e.Rewritten), Valid: true}
	}
	if e.Reasons != nil {
		b, err := json.Marshal(e.Reasons)
		if err != nil {
			return r, fmt.Errorf("audit: encoding reasons: %w", err)
		}
		r.reasons = sql.NullString{String: string(b), Valid: true}
	}
	return r, nil
}

// Record stores e and returns once the transaction holding it has
// committed.
func (s *Sink) Record(ctx context.Context, e *audit.Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if e == nil {
		return errors.New("audit: nil event")
	}
	r, err := toRow(e)
	if err != nil {
		return err
	}
	p := &pendingRow{row: r, err: make(chan error, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return audit.ErrClosed
	}
	select {
	case s.reqs <- p:
	case <-ctx.Done():
		s.mu.RUnlock()
		return fmt.Errorf("audit: %w", ctx.Err())
	}
	s.mu.RUnlock()
	select {
	case err := <-p.err:
		return err
	case <-ctx.Done():
		return fmt.Errorf("audit: waiting for commit: %w", ctx.Err())
	}
}

func (s *Sink) writer() {
	defer close(s.done)
	batch := make([]*pendingRow, 0, s.maxBatch)
	for {
		p, ok := <-s.reqs
		if !ok {
			return
		}
		batch = append(batch[:0], p)
		closing := false
	drain:
		for len(batch) < s.maxBatch {
			select {
			case p, ok := <-s.reqs:
				if !ok {
					closing = true
					break drain
				}
				batch = append(batch, p)
			default:
				break drain
			}
		}
		if err := s.commit(batch); err != nil {
			if len(batch) == 1 {
				batch[0].err <- err
			} else {
				for _, p := range batch {
					p.err <- s.commit([]*pendingRow{p})
				}
			}
		} else {
			for _, p := range batch {
				p.err <- nil
			}
		}
		if closing {
			return
		}
	}
}

func (s *Sink) commit(batch []*pendingRow) error {
	// The writer's transactions are not tied to any one Record's context:
	// a caller that stops waiting does not abort its neighbours' commit.
	tx, err := s.db.Begin()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	st := tx.Stmt(s.ins)
	for _, p := range batch {
		r := &p.row
		if _, err := st.Exec(r.id, r.timeNS, r.session, r.agent, r.server, r.tool, r.outcome, r.asked, r.digest,
			r.input, r.rewritten, r.reasons, r.mode, r.revision, r.evalNS, r.latencyNS); err != nil {
			tx.Rollback()
			return fmt.Errorf("audit: storing event %s: %w", r.id, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("audit: commit: %w", err)
	}
	return nil
}

// Close waits for pending events to be committed, then closes the
// database.
func (s *Sink) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.reqs)
	s.mu.Unlock()
	<-s.done
	return errors.Join(s.ins.Close(), s.db.Close())
}

// OpenLog opens the audit log at path for recording: an SQLite database
// when the name ends in .db, .sqlite or .sqlite3, otherwise a JSON Lines
// file that events are appended to (audit.CreateJSONL).
func OpenLog(path string) (audit.Sink, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".db", ".sqlite", ".sqlite3":
		return Open(path, nil)
	}
	return audit.CreateJSONL(path, true)
}

// Filter selects events for [Query]. Zero fields match everything.
type Filter struct {
	// Since and Until bound the event time: Since <= time < Until.
	Since, Until time.Time
	// Session, Agent, Server and Tool match exactly.
	Session, Agent, Server, Tool string
	// Outcome matches the outcome; Invalid matches any.
	Outcome toolgate.Outcome
	// Newest orders the newest event first; otherwise oldest first.
	Newest bool
	// Limit caps the number of events; zero or negative: no cap.
	Limit int
}

// Query returns the events of the sink's database that match f.
func (s *Sink) Query(ctx context.Context, f Filter) ([]audit.Event, error) {
	return query(ctx, s.db, f)
}

// Query opens the audit database at path read-only and returns the events
// that match f. It does not create a missing database.
func Query(ctx context.Context, path string, f Filter) ([]audit.Event, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	name, err := dsn(path, "", true)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", name)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	defer db.Close()
	return query(ctx, db, f)
}

func query(ctx context.Context, db *sql.DB, f Filter) ([]audit.Event, error) {
	var where []string
	var args []any
	if !f.Since.IsZero() {
		where, args = append(where, "time_ns >= ?"), append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		where, args = append(where, "time_ns < ?"), append(args, f.Until.UnixNano())
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return nil, fmt.Errorf("audit: query: %w", err)
	}
	// A database written before version 2 has no server or latency: read
	// it as empty.
	server, latency := "server", "latency_ns"
	if version < 2 {
		server, latency = "''", "0"
		if f.Server != "" {
			return nil, nil
		}
	}
	for _, c := range []struct{ col, v string }{{"session", f.Session}, {"agent", f.Agent}, {server, f.Server}, {"tool", f.Tool}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	if f.Outcome != toolgate.Invalid {
		where, args = append(where, "outcome = ?"), append(args, f.Outcome.String())
	}
	q := `SELECT id, time_ns, session, agent, ` + server + `, tool, outcome, asked, input_digest, input, rewritten, reasons, mode, revision, eval_ns, ` + latency + ` FROM events`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Newest {
		q += " ORDER BY time_ns DESC, seq DESC"
	} else {
		q += " ORDER BY time_ns, seq"
	}
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit: query: %w", err)
	}
	defer rows.Close()
	var out []audit.Event
	for rows.Next() {
		var (
			e                         audit.Event
			timeNS, evalNS, latencyNS int64
			outcome                   string
			input, rewritten, reasons sql.NullString
		)
		if err := rows.Scan(&e.ID, &timeNS, &e.Session, &e.Agent, &e.Server, &e.Tool, &outcome, &e.Asked, &e.InputDigest,
			&input, &rewritten, &reasons, &e.Mode, &e.Revision, &evalNS, &latencyNS); err != nil {
			return nil, fmt.Errorf("audit: query: %w", err)
		}
		e.Time = time.Unix(0, timeNS).UTC()
		e.EvalTime, e.Latency = time.Duration(evalNS), time.Duration(latencyNS)
		if e.Outcome.UnmarshalText([]byte(outcome)) != nil {
			e.Outcome = toolgate.Invalid // unknown text reads as Invalid (deny)
		}
		if input.Valid {
			e.Input = json.RawMessage(input.String)
		}
		if rewritten.Valid {
			e.Rewritten = json.RawMessage(rewritten.String)
		}
		if reasons.Valid {
			if err := json.Unmarshal([]byte(reasons.String), &e.Reasons); err != nil {
				return nil, fmt.Errorf("audit: event %s: reasons: %w", e.ID, err)
			}
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: query: %w", err)
	}
	return out, nil
}
