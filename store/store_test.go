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

// TestApprovalServer: an approval keeps its call's MCP server, and only a
// call naming the same server finds, peeks at or uses it.
func TestApprovalServer(t *testing.T) {
	for name, open := range map[string]opener{"sqlite": openSQLiteTest, "postgres": openPostgresTest} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := open(t)
			k := Key{Digest: "sha256:mm", Session: "s1", Caller: "ci", Server: "fs"}
			a := newApproval(k, t0, time.Hour)
			a.Tool, a.Server = "read_file", "fs"
			if err := s.CreateApproval(ctx, a); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Approval(ctx, a.ID); err != nil || got.Server != "fs" {
				t.Fatalf("Approval = %+v, %v", got, err)
			}
			other := k
			other.Server = "evil"
			none := k
			none.Server = ""
			for _, key := range []Key{other, none} {
				if _, ok, _ := s.FindPending(ctx, key, t0); ok {
					t.Fatalf("FindPending with server %q found the approval for fs", key.Server)
				}
			}
			if _, ok, err := s.FindPending(ctx, k, t0); err != nil || !ok {
				t.Fatalf("FindPending for fs: %v %v", ok, err)
			}
			if _, err := s.Answer(ctx, a.ID, Answer{Approve: true, Approver: "alice", Now: t0}); err != nil {
				t.Fatal(err)
			}
			for _, key := range []Key{other, none} {
				if approved, _, _, _ := s.Peek(ctx, key, t0); approved {
					t.Fatalf("Peek with server %q sees the approval for fs", key.Server)
				}
				if _, ok, _ := s.Consume(ctx, key, t0); ok {
					t.Fatalf("a call to server %q used the approval for fs", key.Server)
				}
			}
			used, ok, err := s.Consume(ctx, k, t0)
			if err != nil || !ok || used.Server != "fs" {
				t.Fatalf("Consume for fs = %+v %v %v", used, ok, err)
			}
		})
	}
}

// newDelivery is a pending delivery announcing a, held by owner until
// lease.
func newDelivery(a Approval, owner string, lease time.Time) Delivery {
	return Delivery{ID: NewDeliveryID(), Approval: a.ID, Event: "approval.requested", URL: "https://hooks.example.com/x",
		Body: `{"approval":"` + a.ID + `"}`, State: DeliveryPending, Created: a.Created, Next: a.Created,
		Expires: a.Expires, Owner: owner, LeaseUntil: lease}
}

// deliveryConformance: deliveries are recorded with their approval, held
// by one owner at a time, saved only by their holder, listed, expired,
// counted and pruned.
func deliveryConformance(t *testing.T, open opener) {
	ctx := context.Background()
	const url = "https://hooks.example.com/x"
	k := Key{Digest: "sha256:dd", Session: "s1", Caller: "ci"}

	t.Run("lease", func(t *testing.T) {
		s, again := open(t)
		s2 := again()
		a := newApproval(k, t0, time.Hour)
		d := newDelivery(a, "r1", t0.Add(time.Minute))
		if err := s.CreateApproval(ctx, a, d); err != nil {
			t.Fatal(err)
		}
		// Held by r1: nobody claims it, not even r1 itself.
		for _, owner := range []string{"r1", "r2"} {
			got, err := s2.ClaimDeliveries(ctx, Claim{URL: url, Owner: owner, Now: t0.Add(30 * time.Second), Until: t0.Add(2 * time.Minute)})
			if err != nil || len(got) != 0 {
				t.Fatalf("claim by %s during the lease = %+v, %v", owner, got, err)
			}
		}
		// r1 records a failed attempt and a retry in a minute.
		d.Attempts, d.LastStatus, d.LastError = 1, 503, "the receiver answered 503"
		d.LastAttempt, d.Next, d.LeaseUntil = t0.Add(time.Second), t0.Add(61*time.Second), t0.Add(2*time.Minute)
		if ok, err := s.SaveDelivery(ctx, d); err != nil || !ok {
			t.Fatalf("SaveDelivery by the holder = %v, %v", ok, err)
		}
		stranger := d
		stranger.Owner = "r2"
		if ok, err := s.SaveDelivery(ctx, stranger); err != nil || ok {
			t.Fatalf("SaveDelivery by another owner = %v, %v", ok, err)
		}
		// Due but still held: no claim; another URL: no claim; lease over: r2 gets it.
		for _, c := range []Claim{
			{URL: url, Owner: "r2", Now: t0.Add(90 * time.Second), Until: t0.Add(3 * time.Minute)},
			{URL: url + "/other", Owner: "r2", Now: t0.Add(3 * time.Minute), Until: t0.Add(4 * time.Minute)},
		} {
			if got, err := s2.ClaimDeliveries(ctx, c); err != nil || len(got) != 0 {
				t.Fatalf("claim %+v = %+v, %v", c, got, err)
			}
		}
		// Two more, due and free, behind it: a claim of one takes the
		// oldest due, and leaves the rest.
		for _, due := range []time.Duration{62 * time.Second, 63 * time.Second} {
			b := newApproval(k, t0, time.Hour)
			extra := newDelivery(b, "", time.Time{})
			extra.Next = t0.Add(due)
			if err := s.CreateApproval(ctx, b, extra); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s2.ClaimDeliveries(ctx, Claim{URL: url, Owner: "r2", Now: t0.Add(3 * time.Minute), Until: t0.Add(4 * time.Minute), Limit: 1})
		if err != nil || len(got) != 1 {
			t.Fatalf("claim after the lease = %+v, %v", got, err)
		}
		c := got[0]
		if c.ID != d.ID || c.Body != d.Body || c.Attempts != 1 || c.LastStatus != 503 || c.Owner != "r2" ||
			!c.LeaseUntil.Equal(t0.Add(4*time.Minute)) || !c.Next.Equal(d.Next) || !c.Expires.Equal(a.Expires) {
			t.Fatalf("claimed %+v", c)
		}
		// r1 lost it: its save is refused; r2 delivers.
		if ok, _ := s.SaveDelivery(ctx, d); ok {
			t.Fatal("the former holder saved after the delivery was claimed")
		}
		c.State, c.Attempts, c.LastStatus, c.LastError = DeliveryDelivered, 2, 204, ""
		c.LastAttempt, c.Delivered, c.LeaseUntil = t0.Add(3*time.Minute), t0.Add(3*time.Minute), time.Time{}
		if ok, err := s2.SaveDelivery(ctx, c); err != nil || !ok {
			t.Fatalf("SaveDelivery delivered = %v, %v", ok, err)
		}
		if ok, _ := s2.SaveDelivery(ctx, c); ok {
			t.Fatal("a delivered delivery was saved again")
		}
		if n, _ := s.CountDeliveries(ctx, DeliveryPending); n != 2 {
			t.Fatalf("%d pending, want the 2 not claimed", n)
		}
		list, err := s.Deliveries(ctx, DeliveryFilter{Approval: a.ID})
		if err != nil || len(list) != 1 || list[0].State != DeliveryDelivered || list[0].Attempts != 2 ||
			!list[0].Delivered.Equal(t0.Add(3*time.Minute)) || list[0].Body != "" {
			t.Fatalf("Deliveries = %+v, %v", list, err)
		}
		if got, _ := s.ClaimDeliveries(ctx, Claim{URL: url, Owner: "r3", Now: t0.Add(time.Hour), Until: t0.Add(2 * time.Hour)}); len(got) != 2 ||
			got[0].Next.After(got[1].Next) {
			t.Fatalf("the claim of the other two (oldest due first): %+v", got)
		}
		if _, err := s.ClaimDeliveries(ctx, Claim{URL: url, Owner: "r3", Now: t0, Until: t0}); err == nil {
			t.Fatal("a claim with no lease was accepted")
		}
	})

	t.Run("racing claims take each delivery once", func(t *testing.T) {
		s, again := open(t)
		stores := []Store{s, again(), again()}
		const n = 30
		for i := range n {
			a := newApproval(Key{Digest: fmt.Sprint("d", i), Caller: "ci"}, t0, time.Hour)
			if err := s.CreateApproval(ctx, a, newDelivery(a, "", time.Time{})); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		seen := map[string]string{}
		var wg sync.WaitGroup
		for i := range 6 {
			st := stores[i%len(stores)]
			owner := fmt.Sprint("r", i)
			wg.Go(func() {
				for {
					got, err := st.ClaimDeliveries(ctx, Claim{URL: url, Owner: owner, Now: t0.Add(time.Second), Until: t0.Add(time.Minute), Limit: 3})
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					if len(got) > 3 {
						t.Errorf("a claim with limit 3 took %d", len(got))
					}
					mu.Lock()
					for _, d := range got {
						if prev, dup := seen[d.ID]; dup {
							t.Errorf("%s claimed by %s and %s", d.ID, prev, owner)
						}
						seen[d.ID] = owner
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != n {
			t.Fatalf("%d of %d deliveries claimed", len(seen), n)
		}
	})

	t.Run("expiry, counts, listing and pruning", func(t *testing.T) {
		s, _ := open(t)
		a := newApproval(k, t0, time.Hour)
		held := newDelivery(a, "r1", t0.Add(2*time.Hour)) // held past the expiry: left alone
		free := newDelivery(a, "", time.Time{})
		free.LastError = "the receiver answered 500"
		if err := s.CreateApproval(ctx, a, held, free); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateApproval(ctx, newApproval(k, t0, time.Hour), Delivery{ID: NewDeliveryID(), Approval: "ap_other", URL: url}); err == nil {
			t.Fatal("a delivery for another approval was recorded")
		}
		if n, err := s.CountDeliveries(ctx, DeliveryPending); err != nil || n != 2 {
			t.Fatalf("pending %d, %v", n, err)
		}
		if n, err := s.ExpireDeliveries(ctx, t0.Add(59*time.Minute)); err != nil || n != 0 {
			t.Fatalf("ExpireDeliveries before the expiry = %d, %v", n, err)
		}
		if n, err := s.ExpireDeliveries(ctx, t0.Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("ExpireDeliveries = %d, %v", n, err)
		}
		failed, err := s.Deliveries(ctx, DeliveryFilter{State: DeliveryFailed})
		if err != nil || len(failed) != 1 || failed[0].ID != free.ID ||
			failed[0].LastError != "not delivered before the approval expired; the last attempt: the receiver answered 500" {
			t.Fatalf("failed deliveries %+v, %v", failed, err)
		}
		if n, _ := s.CountDeliveries(ctx, DeliveryPending); n != 1 {
			t.Fatalf("pending %d after expiry", n)
		}
		if all, _ := s.Deliveries(ctx, DeliveryFilter{}); len(all) != 2 {
			t.Fatalf("all deliveries %d", len(all))
		}
		p, err := s.Prune(ctx, t0.Add(time.Minute))
		if err != nil || p.Deliveries != 1 {
			t.Fatalf("Prune = %+v, %v", p, err)
		}
		if all, _ := s.Deliveries(ctx, DeliveryFilter{}); len(all) != 1 || all[0].ID != held.ID {
			t.Fatalf("after pruning: %+v", all)
		}
	})
}

func TestSQLiteDeliveries(t *testing.T)   { deliveryConformance(t, openSQLiteTest) }
func TestPostgresDeliveries(t *testing.T) { deliveryConformance(t, openPostgresTest) }

// TestQueryEntries selects decision log entries by every filter field.
func TestQueryEntries(t *testing.T) {
	for name, open := range map[string]opener{"sqlite": openSQLiteTest, "postgres": openPostgresTest} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := open(t)
			es := []Entry{
				{Time: t0, Event: "decision", Caller: "ci", Tool: "Bash", Outcome: "allow", Message: "0"},
				{Time: t0.Add(time.Minute), Event: "decision", Caller: "ci", Session: "s1", Tool: "read_file", Server: "fs", Outcome: "ask", Approval: "ap_1", Message: "1"},
				{Time: t0.Add(2 * time.Minute), Event: "answer", Caller: "ci", Session: "s1", Tool: "read_file", Server: "fs", Outcome: "allow", Approval: "ap_1", Approver: "alice", Message: "2"},
				{Time: t0.Add(3 * time.Minute), Event: "expire", Caller: "bot", Agent: "sub", Tool: "Bash", Outcome: "deny", Approval: "ap_2", Message: "3"},
			}
			if err := s.Log(ctx, es); err != nil {
				t.Fatal(err)
			}
			for _, tt := range []struct {
				name string
				f    EntryFilter
				want string // the messages, in order
			}{
				{"all", EntryFilter{}, "0123"},
				{"newest", EntryFilter{Newest: true}, "3210"},
				{"newest two", EntryFilter{Newest: true, Limit: 2}, "32"},
				{"oldest two", EntryFilter{Limit: 2}, "01"},
				{"since", EntryFilter{Since: t0.Add(time.Minute)}, "123"},
				{"until", EntryFilter{Until: t0.Add(time.Minute)}, "0"},
				{"server", EntryFilter{Server: "fs"}, "12"},
				{"event", EntryFilter{Event: "answer"}, "2"},
				{"caller", EntryFilter{Caller: "bot"}, "3"},
				{"agent", EntryFilter{Agent: "sub"}, "3"},
				{"session", EntryFilter{Session: "s1"}, "12"},
				{"tool", EntryFilter{Tool: "Bash"}, "03"},
				{"outcome", EntryFilter{Outcome: "allow"}, "02"},
				{"approval", EntryFilter{Approval: "ap_1", Event: "decision"}, "1"},
				{"nothing", EntryFilter{Server: "none"}, ""},
			} {
				got, err := s.QueryEntries(ctx, tt.f)
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				msgs := ""
				for _, e := range got {
					msgs += e.Message
				}
				if msgs != tt.want {
					t.Errorf("%s: %q, want %q", tt.name, msgs, tt.want)
				}
			}
		})
	}
}

// TestUpgradeFromVersion2 opens, on both databases, a store whose schema is
// at version 2 and holds an approval: it reads back with no server, can be
// answered and used by a call naming none, and deliveries can be recorded.
func TestUpgradeFromVersion2(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		open func(t *testing.T) (*sql.DB, dialect, func() (Store, error))
	}{
		{"sqlite", func(t *testing.T) (*sql.DB, dialect, func() (Store, error)) {
			path := filepath.Join(t.TempDir(), "v2.db")
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
			if err := old.migrateTo(ctx, 2); err != nil {
				t.Fatal(err)
			}
			// An approval as version-2 code wrote it (no server column).
			if _, err := db.ExecContext(ctx, old.q(`INSERT INTO approvals (id, digest, tool, input, cwd, agent, session,
				caller, revision, prompt, suggestions, created_ms, expires_ms, state)
				VALUES ('ap_old', 'sha256:oo', 'Bash', '{}', '/w', '', 's1', 'ci', 'rev0', 'Run it', '[]', ?, ?, 'pending')`),
				ms(t0), ms(t0.Add(time.Hour))); err != nil {
				t.Fatal(err)
			}
			db.Close()
			s, err := open()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var v int
			if err := s.(*sqlStore).db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil || v != SchemaVersion() || v < 4 {
				t.Fatalf("schema version %d (want %d), %v", v, SchemaVersion(), err)
			}
			a, err := s.Approval(ctx, "ap_old")
			if err != nil || a.Server != "" || a.Prompt != "Run it" {
				t.Fatalf("the old approval: %+v, %v", a, err)
			}
			if _, err := s.Answer(ctx, a.ID, Answer{Approve: true, Approver: "alice", Now: t0}); err != nil {
				t.Fatal(err)
			}
			k := Key{Digest: "sha256:oo", Session: "s1", Caller: "ci"}
			if _, ok, err := s.Consume(ctx, k, t0); err != nil || !ok {
				t.Fatalf("Consume of the old approval: %v %v", ok, err)
			}
			n := newApproval(k, t0, time.Hour)
			n.Server = "fs"
			if err := s.CreateApproval(ctx, n, newDelivery(n, "r1", t0.Add(time.Minute))); err != nil {
				t.Fatal(err)
			}
			if list, err := s.Deliveries(ctx, DeliveryFilter{}); err != nil || len(list) != 1 {
				t.Fatalf("Deliveries = %+v, %v", list, err)
			}
		})
	}
}
