package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// opener opens a fresh store; a second call with the same t opens another
// handle on the same database (a second replica).
type opener func(t *testing.T) (first Store, again func() Store)

func openSQLiteTest(t *testing.T) (Store, func() Store) {
	path := filepath.Join(t.TempDir(), "toolgate.db")
	open := func() Store {
		s, err := OpenSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(), open
}

// PostgresDSN returns the DSN of the test database, skipping the test
// without one, unless CI is set, when it fails.
func postgresDSN(t testing.TB) string {
	dsn := os.Getenv("TOOLGATE_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TOOLGATE_TEST_POSTGRES is not set (run .ci/postgres-setup); PostgreSQL tests must run in CI")
		}
		t.Skip("TOOLGATE_TEST_POSTGRES is not set: skipping the PostgreSQL tests (.ci/postgres-setup prints one)")
	}
	return dsn
}

// freshSchema creates an empty schema for one test and returns a DSN whose
// search_path is it.
func freshSchema(t testing.TB, dsn string) string {
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if _, err := db.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		db.Exec("DROP SCHEMA " + schema + " CASCADE")
	})
	sep := "?"
	if u := []rune(dsn); len(u) > 0 && containsRune(dsn, '?') {
		sep = "&"
	}
	return dsn + sep + "search_path=" + schema
}

func containsRune(s string, r rune) bool {
	for _, c := range s {
		if c == r {
			return true
		}
	}
	return false
}

func openPostgresTest(t *testing.T) (Store, func() Store) {
	dsn := freshSchema(t, postgresDSN(t))
	open := func() Store {
		s, err := OpenPostgres(context.Background(), dsn, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(), open
}

func TestSQLite(t *testing.T)   { conformance(t, openSQLiteTest) }
func TestPostgres(t *testing.T) { conformance(t, openPostgresTest) }

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newApproval(k Key, created time.Time, ttl time.Duration) Approval {
	return Approval{ID: NewID(), Digest: k.Digest, Tool: "Bash", Input: `{"command":"git push"}`, Cwd: "/w",
		Agent: k.Agent, Session: k.Session, Caller: k.Caller, Revision: "rev1", Prompt: "Run git push",
		Suggestions: []string{"Bash(git push)"}, Created: created, Expires: created.Add(ttl)}
}

// conformance is the behaviour every Store must have.
func conformance(t *testing.T, open opener) {
	ctx := context.Background()
	k := Key{Digest: "sha256:aa", Agent: "", Session: "s1", Caller: "ci"}

	t.Run("migrations are idempotent", func(t *testing.T) {
		_, again := open(t)
		s := again() // a second open re-runs migrate against the same database
		if _, err := s.Count(ctx, Pending); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("approve once", func(t *testing.T) {
		s, _ := open(t)
		a := newApproval(k, t0, time.Hour)
		if err := s.CreateApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
		got, ok, err := s.FindPending(ctx, k, t0.Add(time.Minute))
		if err != nil || !ok || got.ID != a.ID {
			t.Fatalf("FindPending = %v %v %v", got.ID, ok, err)
		}
		if got.Prompt != a.Prompt || len(got.Suggestions) != 1 || !got.Expires.Equal(a.Expires) || got.State != Pending {
			t.Fatalf("round trip changed the record: %+v", got)
		}
		if _, ok, _ := s.Consume(ctx, k, t0.Add(time.Minute)); ok {
			t.Fatal("a pending approval was consumed")
		}
		if approved, p, has, err := s.Peek(ctx, k, t0.Add(time.Minute)); err != nil || approved || !has || p.ID != a.ID {
			t.Fatalf("Peek of a pending approval = %v %v %v %v", approved, p.ID, has, err)
		}
		ans, err := s.Answer(ctx, a.ID, Answer{Approve: true, Approver: "alice", Now: t0.Add(2 * time.Minute), UseBy: t0.Add(12 * time.Minute)})
		if err != nil || ans.State != Approved || ans.Approver != "alice" || !ans.Expires.Equal(t0.Add(12*time.Minute)) {
			t.Fatalf("Answer = %+v, %v", ans, err)
		}
		if _, err := s.Answer(ctx, a.ID, Answer{Approve: false, Approver: "bob", Now: t0.Add(3 * time.Minute)}); !errors.Is(err, ErrNotPending) {
			t.Fatalf("second answer: %v, want ErrNotPending", err)
		}
		for _, other := range []Key{
			{Digest: "sha256:bb", Session: k.Session, Caller: k.Caller},
			{Digest: k.Digest, Session: "s2", Caller: k.Caller},
			{Digest: k.Digest, Session: k.Session, Caller: "other"},
			{Digest: k.Digest, Agent: "sub", Session: k.Session, Caller: k.Caller},
		} {
			if _, ok, _ := s.Consume(ctx, other, t0.Add(4*time.Minute)); ok {
				t.Fatalf("consumed for a different call %+v", other)
			}
		}
		if approved, _, has, err := s.Peek(ctx, k, t0.Add(4*time.Minute)); err != nil || !approved || has {
			t.Fatalf("Peek of an approved approval = %v %v %v", approved, has, err)
		}
		if approved, _, _, _ := s.Peek(ctx, k, t0.Add(13*time.Minute)); approved {
			t.Fatal("Peek shows an expired approval")
		}
		used, ok, err := s.Consume(ctx, k, t0.Add(4*time.Minute))
		if err != nil || !ok || used.ID != a.ID || used.State != Used {
			t.Fatalf("Consume = %+v %v %v", used, ok, err)
		}
		if _, ok, _ := s.Consume(ctx, k, t0.Add(5*time.Minute)); ok {
			t.Fatal("an approval was consumed twice")
		}
	})

	t.Run("expiry", func(t *testing.T) {
		s, _ := open(t)
		a := newApproval(k, t0, time.Minute)
		b := newApproval(k, t0, time.Hour)
		for _, x := range []Approval{a, b} {
			if err := s.CreateApproval(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Answer(ctx, a.ID, Answer{Approve: true, Approver: "alice", Now: t0.Add(2 * time.Minute)}); !errors.Is(err, ErrExpired) {
			t.Fatalf("answer after expiry: %v", err)
		}
		if _, err := s.Answer(ctx, b.ID, Answer{Approve: true, Approver: "alice", Now: t0.Add(2 * time.Minute), UseBy: t0.Add(3 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.Consume(ctx, k, t0.Add(3*time.Minute)); ok {
			t.Fatal("consumed at its expiry")
		}
		exp, err := s.Expire(ctx, t0.Add(3*time.Minute))
		if err != nil || len(exp) != 2 {
			t.Fatalf("Expire = %d records, %v", len(exp), err)
		}
		if n, _ := s.Count(ctx, Expired); n != 2 {
			t.Fatalf("%d expired", n)
		}
		if _, err := s.Answer(ctx, "ap_none", Answer{Approve: true, Approver: "alice", Now: t0}); !errors.Is(err, ErrNotFound) {
			t.Fatalf("answer of an unknown id: %v", err)
		}
	})

	t.Run("deny", func(t *testing.T) {
		s, _ := open(t)
		a := newApproval(k, t0, time.Hour)
		s.CreateApproval(ctx, a)
		if _, err := s.Answer(ctx, a.ID, Answer{Approve: false, Approver: "bob", Note: "no", Now: t0}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.Consume(ctx, k, t0); ok {
			t.Fatal("a denied approval was consumed")
		}
		got, _ := s.Approval(ctx, a.ID)
		if got.State != Denied || got.Note != "no" || got.Approver != "bob" {
			t.Fatalf("%+v", got)
		}
		list, err := s.Approvals(ctx, Filter{State: Denied})
		if err != nil || len(list) != 1 {
			t.Fatalf("Approvals = %d, %v", len(list), err)
		}
	})

	t.Run("racing replicas consume once", func(t *testing.T) {
		s, again := open(t)
		s2 := again()
		const n = 20
		for i := range n {
			a := newApproval(Key{Digest: fmt.Sprint("d", i), Caller: "ci"}, t0, time.Hour)
			s.CreateApproval(ctx, a)
			if _, err := s.Answer(ctx, a.ID, Answer{Approve: true, Approver: "alice", Now: t0}); err != nil {
				t.Fatal(err)
			}
		}
		var got atomic.Int64
		var wg sync.WaitGroup
		for i := range n {
			for _, st := range []Store{s, s2, s, s2} {
				wg.Go(func() {
					_, ok, err := st.Consume(ctx, Key{Digest: fmt.Sprint("d", i), Caller: "ci"}, t0.Add(time.Second))
					if err != nil {
						t.Error(err)
					}
					if ok {
						got.Add(1)
					}
				})
			}
		}
		wg.Wait()
		if got.Load() != n {
			t.Fatalf("%d consumptions of %d approvals", got.Load(), n)
		}
	})

	t.Run("session rules reach the other replica", func(t *testing.T) {
		s, again := open(t)
		s2 := again()
		// SQLite notifies within one handle only: the other handle still
		// reads the rule, but hears of it only on PostgreSQL.
		crossNotify := s.(*sqlStore).d.notify != nil
		ch, cancel := s2.Subscribe(TopicRules)
		defer cancel()
		r := SessionRule{Session: "s1", Effect: "allow", Rule: "Bash(make)", Author: "admin"}
		if added, err := s.AddSessionRule(ctx, r); err != nil || !added {
			t.Fatalf("AddSessionRule = %v %v", added, err)
		}
		if added, _ := s.AddSessionRule(ctx, r); added {
			t.Fatal("a duplicate rule was added")
		}
		if crossNotify {
			select {
			case <-ch:
			case <-time.After(5 * time.Second):
				t.Fatal("no notification on the other replica")
			}
		}
		rules, err := s2.SessionRules(ctx)
		if err != nil || len(rules) != 1 || rules[0].Rule != "Bash(make)" || rules[0].Author != "admin" {
			t.Fatalf("SessionRules = %+v %v", rules, err)
		}
		if removed, _ := s2.RemoveSessionRule(ctx, SessionRule{Session: "s1", Effect: "allow", Rule: "Bash(mak"}); removed {
			t.Fatal("removal by a prefix")
		}
		if removed, _ := s2.RemoveSessionRule(ctx, r); !removed {
			t.Fatal("not removed")
		}
		if rules, _ := s.SessionRules(ctx); len(rules) != 0 {
			t.Fatalf("left %+v", rules)
		}
	})

	t.Run("subscribers hear their own changes", func(t *testing.T) {
		s, _ := open(t)
		ch, cancel := s.Subscribe(TopicApprovals)
		defer cancel()
		s.CreateApproval(ctx, newApproval(k, t0, time.Hour))
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("no notification")
		}
	})

	t.Run("decision log", func(t *testing.T) {
		s, _ := open(t)
		var es []Entry
		for i := range 450 {
			es = append(es, Entry{Time: t0, Event: "decision", Caller: "ci", Tool: "Bash", Outcome: "allow", Message: fmt.Sprint(i), Micros: int64(i)})
		}
		// Every field, the MCP server among them, survives the round trip.
		full := Entry{Time: t0.Add(time.Second), Event: "decision", Caller: "ci", Agent: "sub", Session: "s1",
			Tool: "mcp__fs__read_file", Server: "fs", Digest: "sha256:cc", Outcome: "ask", Kind: "rule",
			Rule: "mcp__fs", Revision: "rev1", Approval: "ap_1", Approver: "alice", Message: "m", Micros: 7}
		es = append(es, full)
		if err := s.Log(ctx, es); err != nil {
			t.Fatal(err)
		}
		got, err := s.Entries(ctx, 0, 1000)
		if err != nil || len(got) != 451 {
			t.Fatalf("Entries = %d, %v", len(got), err)
		}
		if got[449].Message != "449" || !got[0].Time.Equal(t0) || got[0].Server != "" {
			t.Fatalf("order or time lost: %+v", got[449])
		}
		last := got[450]
		if last.Seq <= got[449].Seq || !last.Time.Equal(full.Time) {
			t.Fatalf("last entry %+v", last)
		}
		last.Seq, last.Time = 0, full.Time
		if last != full {
			t.Fatalf("round trip changed the entry:\n got %+v\nwant %+v", last, full)
		}
		more, _ := s.Entries(ctx, got[99].Seq, 10)
		if len(more) != 10 || more[0].Message != "100" {
			t.Fatalf("paging: %+v", more)
		}
	})
}

// pruneConformance: Prune deletes old decision log entries (across several
// batches) and old final approvals, and keeps everything newer and every
// approval still pending or approved.
func pruneConformance(t *testing.T, open opener) {
	ctx := context.Background()
	s, _ := open(t)
	cut := t0.Add(time.Hour)
	var es []Entry
	for i := range pruneBatch + 7 {
		es = append(es, Entry{Time: t0.Add(time.Duration(i) * time.Millisecond), Event: "decision", Outcome: "allow", Message: "old"})
	}
	for range 3 {
		es = append(es, Entry{Time: cut.Add(time.Minute), Event: "decision", Outcome: "deny", Message: "new"})
	}
	if err := s.Log(ctx, es); err != nil {
		t.Fatal(err)
	}
	k := Key{Digest: "sha256:pp", Session: "s1", Caller: "ci"}
	oldPending := newApproval(k, t0, time.Minute) // expired by time, but still pending: kept
	oldDenied := newApproval(k, t0, time.Minute)  // final and old: pruned
	newDenied := newApproval(k, cut, 2*time.Hour) // final, expires after the cut: kept
	for _, a := range []Approval{oldPending, oldDenied, newDenied} {
		if err := s.CreateApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []Approval{oldDenied, newDenied} {
		if _, err := s.Answer(ctx, a.ID, Answer{Approve: false, Approver: "alice", Now: a.Created}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := s.Prune(ctx, cut)
	if err != nil {
		t.Fatal(err)
	}
	if p.Entries != int64(pruneBatch+7) || p.Approvals != 1 {
		t.Errorf("Prune = %+v, want %d entries and 1 approval", p, pruneBatch+7)
	}
	left, err := s.Entries(ctx, 0, 100)
	if err != nil || len(left) != 3 || left[0].Message != "new" {
		t.Errorf("entries left: %d %v", len(left), err)
	}
	for _, a := range []Approval{oldPending, newDenied} {
		if _, err := s.Approval(ctx, a.ID); err != nil {
			t.Errorf("approval %s was pruned: %v", a.ID, err)
		}
	}
	if _, err := s.Approval(ctx, oldDenied.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("old denied approval: %v, want ErrNotFound", err)
	}
	if p, err := s.Prune(ctx, cut); err != nil || p != (Pruned{}) {
		t.Errorf("second Prune = %+v, %v", p, err)
	}
}

func TestSQLitePrune(t *testing.T)   { pruneConformance(t, openSQLiteTest) }
func TestPostgresPrune(t *testing.T) { pruneConformance(t, openPostgresTest) }

// TestSQLiteSchemaVersion checks that the migrations are recorded.
func TestSQLiteSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	s, err := OpenSQLite(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.(*sqlStore).db
	var v int
	if err := db.QueryRow(`SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("schema version %d, %v", v, err)
	}
	var _ *sql.DB = db
}

// TestUpgradeFromVersion1 opens, on both databases, a store whose schema is
// at version 1 and holds a decision log entry: the entry reads back with
// no server, and new entries keep theirs.
func TestUpgradeFromVersion1(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		// open returns a raw handle on a fresh database, its dialect, and
		// a function that opens it as a Store.
		open func(t *testing.T) (*sql.DB, dialect, func() (Store, error))
	}{
		{"sqlite", func(t *testing.T) (*sql.DB, dialect, func() (Store, error)) {
			path := filepath.Join(t.TempDir(), "v1.db")
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			return db, sqliteDialect, func() (Store, error) { return OpenSQLite(ctx, path) }
		}},
		{"postgres", func(t *testing.T) (*sql.DB, dialect, func() (Store, error)) {
			dsn := freshSchema(t, postgresDSN(t))
			cfg, err := pgx.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			return stdlib.OpenDB(*cfg), postgresDialect, func() (Store, error) { return OpenPostgres(ctx, dsn, nil) }
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db, d, open := tt.open(t)
			old := &sqlStore{db: db, d: d, subs: newBroker()}
			if err := old.migrateTo(ctx, 1); err != nil {
				t.Fatal(err)
			}
			// The columns of version 1, as a replica running its code wrote them.
			if _, err := db.ExecContext(ctx, old.q(`INSERT INTO decision_log (time_ms, event, caller, agent, session, tool,
				digest, outcome, kind, rule, revision, approval, approver, message, micros)
				VALUES (?, 'decision', 'ci', '', 's1', 'Bash', '', 'allow', 'rule', 'Bash(make)', 'rev0', '', '', '', 3)`), ms(t0)); err != nil {
				t.Fatal(err)
			}
			db.Close()
			s, err := open()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var v int
			if err := s.(*sqlStore).db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil || v != SchemaVersion() || v < 2 {
				t.Fatalf("schema version %d (want %d), %v", v, SchemaVersion(), err)
			}
			if err := s.Log(ctx, []Entry{{Time: t0, Event: "decision", Caller: "ci", Tool: "mcp__fs__read_file", Server: "fs", Outcome: "deny"}}); err != nil {
				t.Fatal(err)
			}
			got, err := s.Entries(ctx, 0, 0)
			if err != nil || len(got) != 2 {
				t.Fatalf("Entries = %+v, %v", got, err)
			}
			if got[0].Rule != "Bash(make)" || got[0].Server != "" || got[1].Server != "fs" {
				t.Fatalf("entries after the upgrade: %+v", got)
			}
		})
	}
}
