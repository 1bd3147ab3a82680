package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// dialect is what differs between the databases.
type dialect struct {
	name string
	// dollar numbers placeholders $1, $2 (PostgreSQL) instead of ?.
	dollar bool
	// serial is the column type of an auto-incremented key.
	serial string
	// lock, run first in a migration transaction, serialises migrations of
	// replicas starting together ("" when the transaction itself does).
	lock string
	// skipLocked ends a SELECT of rows to claim: it locks them and skips
	// those another transaction is claiming ("" where a writer holds the
	// whole database).
	skipLocked string
	// notify, if set, announces a change of topic inside tx (delivered on
	// commit to every replica).
	notify func(ctx context.Context, tx *sql.Tx, topic string) error
}

// sqlStore implements Store over database/sql.
type sqlStore struct {
	db   *sql.DB
	d    dialect
	subs *broker
	// closers run at Close, before the database is closed.
	closers []func()
	// queries caches rebound query text; stmts prepared statements.
	queries sync.Map
	stmts   sync.Map
}

// stmt returns the prepared statement of query (with ? placeholders),
// preparing it once.
func (s *sqlStore) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if v, ok := s.stmts.Load(query); ok {
		return v.(*sql.Stmt), nil
	}
	st, err := s.db.PrepareContext(ctx, s.q(query))
	if err != nil {
		return nil, err
	}
	if v, loaded := s.stmts.LoadOrStore(query, st); loaded {
		st.Close()
		return v.(*sql.Stmt), nil
	}
	return st, nil
}

// q rebinds a query written with ? placeholders for the dialect.
func (s *sqlStore) q(query string) string {
	if !s.d.dollar {
		return query
	}
	if v, ok := s.queries.Load(query); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	out := b.String()
	s.queries.Store(query, out)
	return out
}

// migrations are the schema versions, in order; {serial} is the dialect's
// auto-incremented key type. A migration is never edited once released:
// changes are new migrations.
var migrations = []string{
	// 1: approvals, session rules, decision log.
	`CREATE TABLE approvals (
		id TEXT PRIMARY KEY,
		digest TEXT NOT NULL,
		tool TEXT NOT NULL,
		input TEXT NOT NULL,
		cwd TEXT NOT NULL,
		agent TEXT NOT NULL,
		session TEXT NOT NULL,
		caller TEXT NOT NULL,
		revision TEXT NOT NULL,
		prompt TEXT NOT NULL,
		suggestions TEXT NOT NULL,
		created_ms BIGINT NOT NULL,
		expires_ms BIGINT NOT NULL,
		state TEXT NOT NULL,
		answered_ms BIGINT NOT NULL DEFAULT 0,
		approver TEXT NOT NULL DEFAULT '',
		note TEXT NOT NULL DEFAULT '',
		used_ms BIGINT NOT NULL DEFAULT 0
	);
	CREATE INDEX approvals_by_digest ON approvals (digest, state);
	CREATE INDEX approvals_by_state ON approvals (state, created_ms);
	CREATE TABLE session_rules (
		session TEXT NOT NULL,
		effect TEXT NOT NULL,
		rule TEXT NOT NULL,
		author TEXT NOT NULL,
		created_ms BIGINT NOT NULL,
		PRIMARY KEY (session, effect, rule)
	);
	CREATE TABLE decision_log (
		seq {serial},
		time_ms BIGINT NOT NULL,
		event TEXT NOT NULL,
		caller TEXT NOT NULL,
		agent TEXT NOT NULL,
		session TEXT NOT NULL,
		tool TEXT NOT NULL,
		digest TEXT NOT NULL,
		outcome TEXT NOT NULL,
		kind TEXT NOT NULL,
		rule TEXT NOT NULL,
		revision TEXT NOT NULL,
		approval TEXT NOT NULL,
		approver TEXT NOT NULL,
		message TEXT NOT NULL,
		micros BIGINT NOT NULL
	);
	CREATE INDEX decision_log_by_time ON decision_log (time_ms)`,
	// 2: the decision log names the MCP server of the call. A constant
	// default adds the column without rewriting the table on PostgreSQL
	// (11 and later) or SQLite, and a replica still on version 1 code goes
	// on inserting rows (with server '') during a rolling upgrade.
	`ALTER TABLE decision_log ADD COLUMN server TEXT NOT NULL DEFAULT ''`,
	// 3: an approval names the MCP server of its call, so that the log
	// entries about it (answer, expiry) name it and only a call to the same
	// server uses it. Added as in 2: a replica on older code goes on
	// creating approvals (with server '') during a rolling upgrade.
	`ALTER TABLE approvals ADD COLUMN server TEXT NOT NULL DEFAULT ''`,
	// 4: webhook deliveries, kept until delivered or given up, so that one
	// pending at a restart is sent afterwards, leased (owner, lease_ms) so
	// that one replica at a time sends it. Times are Unix milliseconds, 0
	// for none.
	`CREATE TABLE webhook_deliveries (
		id TEXT PRIMARY KEY,
		approval TEXT NOT NULL,
		event TEXT NOT NULL,
		url TEXT NOT NULL,
		body TEXT NOT NULL,
		state TEXT NOT NULL,
		attempts BIGINT NOT NULL DEFAULT 0,
		last_status BIGINT NOT NULL DEFAULT 0,
		last_error TEXT NOT NULL DEFAULT '',
		created_ms BIGINT NOT NULL,
		last_attempt_ms BIGINT NOT NULL DEFAULT 0,
		next_ms BIGINT NOT NULL,
		expires_ms BIGINT NOT NULL,
		delivered_ms BIGINT NOT NULL DEFAULT 0,
		owner TEXT NOT NULL DEFAULT '',
		lease_ms BIGINT NOT NULL DEFAULT 0
	);
	CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries (state, created_ms);
	CREATE INDEX webhook_deliveries_by_approval ON webhook_deliveries (approval)`,
}

// migrate applies the migrations not yet applied, each in a transaction
// that records its version.
func (s *sqlStore) migrate(ctx context.Context) error { return s.migrateTo(ctx, len(migrations)) }

// migrateTo applies the migrations up to version upTo (tests build old
// schemas with it).
func (s *sqlStore) migrateTo(ctx context.Context, upTo int) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_ms BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("creating schema_migrations: %w", err)
	}
	for i, m := range migrations[:upTo] {
		version := i + 1
		if err := s.apply(ctx, version, m); err != nil {
			return fmt.Errorf("migration %d: %w", version, err)
		}
	}
	return nil
}

func (s *sqlStore) apply(ctx context.Context, version int, m string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.d.lock != "" {
		if _, err := tx.ExecContext(ctx, s.d.lock); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	for _, stmt := range strings.Split(strings.ReplaceAll(m, "{serial}", s.d.serial), ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, applied_ms) VALUES (?, ?)`), version, ms(time.Now())); err != nil {
		return err
	}
	return tx.Commit()
}

// SchemaVersion is the number of migrations this package knows.
func SchemaVersion() int { return len(migrations) }

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

const approvalCols = `id, digest, tool, input, cwd, agent, session, caller, server, revision, prompt, suggestions,
	created_ms, expires_ms, state, answered_ms, approver, note, used_ms`

type scanner interface{ Scan(...any) error }

func scanApproval(r scanner) (Approval, error) {
	var a Approval
	var sugg string
	var created, expires, answered, used int64
	var state string
	err := r.Scan(&a.ID, &a.Digest, &a.Tool, &a.Input, &a.Cwd, &a.Agent, &a.Session, &a.Caller, &a.Server, &a.Revision,
		&a.Prompt, &sugg, &created, &expires, &state, &answered, &a.Approver, &a.Note, &used)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal([]byte(sugg), &a.Suggestions); err != nil {
		return a, fmt.Errorf("approval %s: suggestions: %w", a.ID, err)
	}
	a.State = State(state)
	a.Created, a.Expires, a.Answered, a.Used = fromMS(created), fromMS(expires), fromMS(answered), fromMS(used)
	return a, nil
}

// withTx runs f in a transaction and, if it succeeds, announces topic.
func (s *sqlStore) withTx(ctx context.Context, topic string, f func(tx *sql.Tx) (changed bool, err error)) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	changed, err := f(tx)
	if err != nil {
		return err
	}
	if changed && s.d.notify != nil {
		if err := s.d.notify(ctx, tx, topic); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if changed && s.d.notify == nil {
		s.subs.publish(topic)
	}
	return nil
}

func (s *sqlStore) CreateApproval(ctx context.Context, a Approval, announce ...Delivery) error {
	if a.ID == "" || a.Digest == "" {
		return errors.New("an approval needs an id and a digest")
	}
	if a.State == "" {
		a.State = Pending
	}
	for _, d := range announce {
		if d.ID == "" || d.URL == "" || d.Approval != a.ID {
			return errors.New("a delivery needs an id, a URL and the id of the approval it announces")
		}
	}
	sugg, err := json.Marshal(nonNil(a.Suggestions))
	if err != nil {
		return err
	}
	return s.withTx(ctx, TopicApprovals, func(tx *sql.Tx) (bool, error) {
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO approvals (`+approvalCols+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			a.ID, a.Digest, a.Tool, a.Input, a.Cwd, a.Agent, a.Session, a.Caller, a.Server, a.Revision, a.Prompt, string(sugg),
			ms(a.Created), ms(a.Expires), string(a.State), ms(a.Answered), a.Approver, a.Note, ms(a.Used))
		if err != nil {
			return false, err
		}
		for _, d := range announce {
			if d.State == "" {
				d.State = DeliveryPending
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO webhook_deliveries (`+deliveryCols+`, body)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
				d.ID, d.Approval, d.Event, d.URL, string(d.State), d.Attempts, d.LastStatus, d.LastError,
				ms(d.Created), ms(d.LastAttempt), ms(d.Next), ms(d.Expires), ms(d.Delivered), d.Owner, ms(d.LeaseUntil), d.Body); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *sqlStore) FindPending(ctx context.Context, k Key, now time.Time) (Approval, bool, error) {
	st, err := s.stmt(ctx, `SELECT `+approvalCols+` FROM approvals
		WHERE digest = ? AND agent = ? AND session = ? AND caller = ? AND server = ? AND state = 'pending' AND expires_ms > ?
		ORDER BY created_ms DESC LIMIT 1`)
	if err != nil {
		return Approval{}, false, err
	}
	a, err := scanApproval(st.QueryRowContext(ctx, k.Digest, k.Agent, k.Session, k.Caller, k.Server, ms(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return Approval{}, false, nil
	}
	return a, err == nil, err
}

func (s *sqlStore) Peek(ctx context.Context, k Key, now time.Time) (bool, Approval, bool, error) {
	st, err := s.stmt(ctx, `SELECT `+approvalCols+` FROM approvals
		WHERE digest = ? AND agent = ? AND session = ? AND caller = ? AND server = ? AND state IN ('pending', 'approved') AND expires_ms > ?
		ORDER BY created_ms DESC`)
	if err != nil {
		return false, Approval{}, false, err
	}
	rows, err := st.QueryContext(ctx, k.Digest, k.Agent, k.Session, k.Caller, k.Server, ms(now))
	if err != nil {
		return false, Approval{}, false, err
	}
	defer rows.Close()
	var approved, hasPending bool
	var pending Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return false, Approval{}, false, err
		}
		switch {
		case a.State == Approved:
			approved = true
		case !hasPending:
			pending, hasPending = a, true
		}
	}
	return approved, pending, hasPending, rows.Err()
}

func (s *sqlStore) Approval(ctx context.Context, id string) (Approval, error) {
	a, err := scanApproval(s.db.QueryRowContext(ctx, s.q(`SELECT `+approvalCols+` FROM approvals WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return a, ErrNotFound
	}
	return a, err
}

func (s *sqlStore) Approvals(ctx context.Context, f Filter) ([]Approval, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	query := `SELECT ` + approvalCols + ` FROM approvals`
	args := []any{}
	if f.State != "" {
		query += ` WHERE state = ?`
		args = append(args, string(f.State))
	}
	query += ` ORDER BY created_ms DESC, id LIMIT ?`
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Approval
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func (s *sqlStore) Answer(ctx context.Context, id string, ans Answer) (Approval, error) {
	if ans.Approver == "" {
		return Approval{}, errors.New("an answer needs the approver's identity")
	}
	state := Denied
	if ans.Approve {
		state = Approved
	}
	var out Approval
	var found bool
	err := s.withTx(ctx, TopicApprovals, func(tx *sql.Tx) (bool, error) {
		row := tx.QueryRowContext(ctx, s.q(`UPDATE approvals
			SET state = ?, answered_ms = ?, approver = ?, note = ?,
				expires_ms = CASE WHEN CAST(? AS BIGINT) > 0 THEN CAST(? AS BIGINT) ELSE expires_ms END
			WHERE id = ? AND state = 'pending' AND expires_ms > ?
			RETURNING `+approvalCols), string(state), ms(ans.Now), ans.Approver, ans.Note,
			ms(ans.UseBy), ms(ans.UseBy), id, ms(ans.Now))
		var err error
		out, err = scanApproval(row)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		found = err == nil
		return found, err
	})
	if err != nil || found {
		return out, err
	}
	a, err := s.Approval(ctx, id)
	switch {
	case err != nil:
		return a, err
	case a.State != Pending:
		return a, ErrNotPending
	default:
		return a, ErrExpired
	}
}

func (s *sqlStore) Consume(ctx context.Context, k Key, now time.Time) (Approval, bool, error) {
	// Most asks have no approval waiting: find that out with a read, which
	// takes no write lock, before the UPDATE that decides.
	st, err := s.stmt(ctx, `SELECT COUNT(*) FROM approvals
		WHERE digest = ? AND agent = ? AND session = ? AND caller = ? AND server = ? AND state = 'approved' AND expires_ms > ?`)
	if err != nil {
		return Approval{}, false, err
	}
	var n int
	if err := st.QueryRowContext(ctx, k.Digest, k.Agent, k.Session, k.Caller, k.Server, ms(now)).Scan(&n); err != nil {
		return Approval{}, false, err
	}
	if n == 0 {
		return Approval{}, false, nil
	}
	var out Approval
	var found bool
	err = s.withTx(ctx, TopicApprovals, func(tx *sql.Tx) (bool, error) {
		row := tx.QueryRowContext(ctx, s.q(`UPDATE approvals SET state = 'used', used_ms = ?
			WHERE state = 'approved' AND expires_ms > ? AND id = (
				SELECT id FROM approvals
				WHERE digest = ? AND agent = ? AND session = ? AND caller = ? AND server = ? AND state = 'approved' AND expires_ms > ?
				ORDER BY answered_ms, id LIMIT 1)
			RETURNING `+approvalCols), ms(now), ms(now), k.Digest, k.Agent, k.Session, k.Caller, k.Server, ms(now))
		var err error
		out, err = scanApproval(row)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		found = err == nil
		return found, err
	})
	if err != nil {
		return Approval{}, false, err
	}
	return out, found, nil
}

func (s *sqlStore) Expire(ctx context.Context, now time.Time) ([]Approval, error) {
	var out []Approval
	err := s.withTx(ctx, TopicApprovals, func(tx *sql.Tx) (bool, error) {
		rows, err := tx.QueryContext(ctx, s.q(`UPDATE approvals SET state = 'expired'
			WHERE state IN ('pending', 'approved') AND expires_ms <= ? RETURNING `+approvalCols), ms(now))
		if err != nil {
			return false, err
		}
		defer rows.Close()
		for rows.Next() {
			a, err := scanApproval(rows)
			if err != nil {
				return false, err
			}
			out = append(out, a)
		}
		return len(out) > 0, rows.Err()
	})
	return out, err
}

func (s *sqlStore) Count(ctx context.Context, st State) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM approvals WHERE state = ?`), string(st)).Scan(&n)
	return n, err
}

func (s *sqlStore) SessionRules(ctx context.Context) ([]SessionRule, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT session, effect, rule, author, created_ms FROM session_rules ORDER BY session, effect, rule`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SessionRule
	for rows.Next() {
		var r SessionRule
		var created int64
		if err := rows.Scan(&r.Session, &r.Effect, &r.Rule, &r.Author, &created); err != nil {
			return nil, err
		}
		r.Created = fromMS(created)
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *sqlStore) AddSessionRule(ctx context.Context, r SessionRule) (bool, error) {
	if r.Created.IsZero() {
		r.Created = time.Now()
	}
	var added bool
	err := s.withTx(ctx, TopicRules, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO session_rules (session, effect, rule, author, created_ms)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`), r.Session, r.Effect, r.Rule, r.Author, ms(r.Created))
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		added = n > 0
		return added, err
	})
	return added, err
}

func (s *sqlStore) RemoveSessionRule(ctx context.Context, r SessionRule) (bool, error) {
	var removed bool
	err := s.withTx(ctx, TopicRules, func(tx *sql.Tx) (bool, error) {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM session_rules WHERE session = ? AND effect = ? AND rule = ?`),
			r.Session, r.Effect, r.Rule)
		if err != nil {
			return false, err
		}
		n, err := res.RowsAffected()
		removed = n > 0
		return removed, err
	})
	return removed, err
}

func (s *sqlStore) Log(ctx context.Context, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	args := make([]any, 0, min(len(entries), logInsertRows[0])*logColCount)
	for len(entries) > 0 {
		// The largest INSERT that the entries left fill, so that only
		// len(logInsertRows) statements are ever prepared, whatever the
		// batch sizes.
		k := 0
		for logInsertRows[k] > len(entries) {
			k++
		}
		n := logInsertRows[k]
		st, err := s.stmt(ctx, logInserts[k])
		if err != nil {
			return err
		}
		args = args[:0]
		for i := range entries[:n] {
			e := &entries[i]
			args = append(args, ms(e.Time))
			for _, v := range logTexts(e) {
				args = append(args, logText(v))
			}
			args = append(args, e.Micros)
		}
		if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, args...); err != nil {
			return err
		}
		entries = entries[n:]
	}
	return tx.Commit()
}

// logInsertRows are the row counts of the INSERTs Log uses, largest first
// (the largest well under both databases' parameter limits; the last 1, so
// that any number of entries is a sum of them), and logInserts their SQL.
var (
	logInsertRows = []int{100, 50, 20, 10, 5, 2, 1}
	logInserts    = func() []string {
		qs := make([]string, len(logInsertRows))
		for i, n := range logInsertRows {
			qs[i] = logInsert(n)
		}
		return qs
	}()
)

// logCols are the columns of the decision log that Log writes, in the
// order of its arguments and of Entries' Scan: time_ms, the text columns
// of logTexts, micros.
const logCols = `time_ms, event, caller, agent, session, tool, server, digest, outcome, kind, rule, revision, approval, approver, message, micros`

var logColCount = strings.Count(logCols, ",") + 1

// logTexts are the text columns of e in the order of logCols.
func logTexts(e *Entry) [14]string {
	return [...]string{e.Event, e.Caller, e.Agent, e.Session, e.Tool, e.Server, e.Digest, e.Outcome,
		e.Kind, e.Rule, e.Revision, e.Approval, e.Approver, e.Message}
}

// logText is the argument of a text column: NULL for "", which the INSERT
// writes as the empty string (COALESCE). Most entries leave half their
// text columns empty (agent, session, server, digest, approval,
// approver), and SQLite's driver binds each string by allocating C
// memory, copying it and freeing it after the statement, where NULL costs
// a bind alone.
func logText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// logInsert is the INSERT of n decision log rows.
func logInsert(n int) string {
	row := "(?" + strings.Repeat(", COALESCE(?, '')", logColCount-2) + ", ?)"
	var b strings.Builder
	b.WriteString(`INSERT INTO decision_log (` + logCols + `) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

func (s *sqlStore) Entries(ctx context.Context, after int64, limit int) ([]Entry, error) {
	if limit <= 0 {
		limit = 1000
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT seq, `+logCols+` FROM decision_log WHERE seq > ? ORDER BY seq LIMIT ?`), after, limit)
	if err != nil {
		return nil, err
	}
	return scanEntries(rows)
}

// scanEntries reads rows of seq and logCols, and closes them.
func scanEntries(rows *sql.Rows) ([]Entry, error) {
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var t int64
		if err := rows.Scan(&e.Seq, &t, &e.Event, &e.Caller, &e.Agent, &e.Session, &e.Tool, &e.Server, &e.Digest, &e.Outcome,
			&e.Kind, &e.Rule, &e.Revision, &e.Approval, &e.Approver, &e.Message, &e.Micros); err != nil {
			return nil, err
		}
		e.Time = fromMS(t)
		out = append(out, e)
	}
	return out, rows.Err()
}

func (s *sqlStore) QueryEntries(ctx context.Context, f EntryFilter) ([]Entry, error) {
	var where []string
	var args []any
	if !f.Since.IsZero() {
		where, args = append(where, "time_ms >= ?"), append(args, f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		where, args = append(where, "time_ms < ?"), append(args, f.Until.UnixMilli())
	}
	for _, c := range []struct{ col, v string }{
		{"event", f.Event}, {"caller", f.Caller}, {"agent", f.Agent}, {"session", f.Session}, {"tool", f.Tool},
		{"server", f.Server}, {"outcome", f.Outcome}, {"approval", f.Approval},
	} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	query := `SELECT seq, ` + logCols + ` FROM decision_log`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	if f.Newest {
		query += ` ORDER BY seq DESC`
	} else {
		query += ` ORDER BY seq`
	}
	if f.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	return scanEntries(rows)
}

// pruneBatch is how many decision log rows one DELETE removes, so that a
// large prune never holds the write lock long (SQLite) or makes one huge
// transaction (PostgreSQL).
const pruneBatch = 5000

func (s *sqlStore) Prune(ctx context.Context, before time.Time) (Pruned, error) {
	var p Pruned
	for {
		res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM decision_log WHERE seq IN
			(SELECT seq FROM decision_log WHERE time_ms < ? ORDER BY seq LIMIT ?)`), ms(before), pruneBatch)
		if err != nil {
			return p, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return p, err
		}
		p.Entries += n
		if n < pruneBatch {
			break
		}
	}
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM approvals WHERE state IN ('used', 'denied', 'expired') AND expires_ms < ?`), ms(before))
	if err != nil {
		return p, err
	}
	if p.Approvals, err = res.RowsAffected(); err != nil {
		return p, err
	}
	res, err = s.db.ExecContext(ctx, s.q(`DELETE FROM webhook_deliveries WHERE state IN ('delivered', 'failed') AND created_ms < ?`), ms(before))
	if err != nil {
		return p, err
	}
	p.Deliveries, err = res.RowsAffected()
	return p, err
}

// deliveryCols are the columns of a delivery but its body, in the order
// of scanDelivery.
const deliveryCols = `id, approval, event, url, state, attempts, last_status, last_error,
	created_ms, last_attempt_ms, next_ms, expires_ms, delivered_ms, owner, lease_ms`

// scanDelivery reads deliveryCols and, if body is not nil, the body after
// them.
func scanDelivery(r scanner, body *string) (Delivery, error) {
	var d Delivery
	var state string
	var created, last, next, expires, delivered, lease int64
	dest := []any{&d.ID, &d.Approval, &d.Event, &d.URL, &state, &d.Attempts, &d.LastStatus, &d.LastError,
		&created, &last, &next, &expires, &delivered, &d.Owner, &lease}
	if body != nil {
		dest = append(dest, body)
	}
	if err := r.Scan(dest...); err != nil {
		return d, err
	}
	d.State = DeliveryState(state)
	d.Created, d.LastAttempt, d.Next, d.Expires = fromMS(created), fromMS(last), fromMS(next), fromMS(expires)
	d.Delivered, d.LeaseUntil = fromMS(delivered), fromMS(lease)
	return d, nil
}

func (s *sqlStore) ClaimDeliveries(ctx context.Context, c Claim) ([]Delivery, error) {
	if c.URL == "" || c.Owner == "" || !c.Until.After(c.Now) {
		return nil, errors.New("a claim needs a URL, an owner and a lease that ends after now")
	}
	limit := c.Limit
	if limit <= 0 {
		limit = 10
	}
	now := ms(c.Now)
	var out []Delivery
	err := s.withTx(ctx, "", func(tx *sql.Tx) (bool, error) {
		// The ids are chosen once, in a materialised CTE: PostgreSQL may
		// evaluate a LIMIT subquery in the WHERE clause more than once,
		// claiming more than the limit. The outer conditions repeat the
		// inner ones: a row that another claim changed meanwhile is
		// checked again as it now is, so a lease just taken is never
		// taken twice.
		rows, err := tx.QueryContext(ctx, s.q(`WITH due AS MATERIALIZED (
				SELECT id FROM webhook_deliveries
				WHERE state = 'pending' AND url = ? AND next_ms <= ? AND lease_ms <= ?
				ORDER BY next_ms, created_ms LIMIT ?`+s.d.skipLocked+`)
			UPDATE webhook_deliveries SET owner = ?, lease_ms = ?
			WHERE state = 'pending' AND url = ? AND next_ms <= ? AND lease_ms <= ? AND id IN (SELECT id FROM due)
			RETURNING `+deliveryCols+`, body`),
			c.URL, now, now, limit, c.Owner, ms(c.Until), c.URL, now, now)
		if err != nil {
			return false, err
		}
		defer rows.Close()
		for rows.Next() {
			var body string
			d, err := scanDelivery(rows, &body)
			if err != nil {
				return false, err
			}
			d.Body = body
			out = append(out, d)
		}
		return false, rows.Err()
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Delivery) int { // RETURNING keeps no order
		return cmp.Or(a.Next.Compare(b.Next), a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

func (s *sqlStore) SaveDelivery(ctx context.Context, d Delivery) (bool, error) {
	switch d.State {
	case DeliveryPending, DeliveryDelivered, DeliveryFailed:
	default:
		return false, fmt.Errorf("unknown delivery state %q", d.State)
	}
	if d.Owner == "" {
		return false, errors.New("a delivery is saved by its owner")
	}
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE webhook_deliveries
		SET state = ?, attempts = ?, last_status = ?, last_error = ?, last_attempt_ms = ?, next_ms = ?,
			delivered_ms = ?, lease_ms = ?
		WHERE id = ? AND owner = ? AND state = 'pending'`),
		string(d.State), d.Attempts, d.LastStatus, d.LastError, ms(d.LastAttempt), ms(d.Next),
		ms(d.Delivered), ms(d.LeaseUntil), d.ID, d.Owner)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func (s *sqlStore) Deliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	var where []string
	var args []any
	if f.State != "" {
		where, args = append(where, "state = ?"), append(args, string(f.State))
	}
	if f.Approval != "" {
		where, args = append(where, "approval = ?"), append(args, f.Approval)
	}
	query := `SELECT ` + deliveryCols + ` FROM webhook_deliveries`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY created_ms DESC, id LIMIT ?`
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Delivery
	for rows.Next() {
		d, err := scanDelivery(rows, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func (s *sqlStore) ExpireDeliveries(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE webhook_deliveries
		SET state = 'failed', last_error = CASE WHEN last_error = '' THEN ? ELSE ? || last_error END
		WHERE state = 'pending' AND expires_ms <= ? AND lease_ms <= ?`),
		"not delivered before the approval expired", "not delivered before the approval expired; the last attempt: ",
		ms(now), ms(now))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *sqlStore) CountDeliveries(ctx context.Context, st DeliveryState) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM webhook_deliveries WHERE state = ?`), string(st)).Scan(&n)
	return n, err
}

func (s *sqlStore) Subscribe(topic string) (<-chan struct{}, func()) { return s.subs.subscribe(topic) }

func (s *sqlStore) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

func (s *sqlStore) Close() error {
	for _, c := range s.closers {
		c()
	}
	s.stmts.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	return s.db.Close()
}

// broker fans change signals out to subscribers, coalescing: a subscriber
// that has not yet read the last signal misses nothing by not getting a
// second.
type broker struct {
	mu   sync.Mutex
	subs map[string]map[chan struct{}]struct{}
}

func newBroker() *broker { return &broker{subs: map[string]map[chan struct{}]struct{}{}} }

func (b *broker) subscribe(topic string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	if b.subs[topic] == nil {
		b.subs[topic] = map[chan struct{}]struct{}{}
	}
	b.subs[topic][ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			b.mu.Lock()
			delete(b.subs[topic], ch)
			b.mu.Unlock()
		})
	}
}

func (b *broker) publish(topic string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs[topic] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// publishAll signals every topic (after a reconnection).
func (b *broker) publishAll() {
	for _, t := range []string{TopicApprovals, TopicRules} {
		b.publish(t)
	}
}
