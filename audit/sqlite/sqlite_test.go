package sqlite_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
	"github.com/toolgate/toolgate/audit/audittest"
	"github.com/toolgate/toolgate/audit/sqlite"
)

func queryAll(t *testing.T, path string) []audit.Event {
	t.Helper()
	evs, err := sqlite.Query(context.Background(), path, sqlite.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestSQLiteConformance(t *testing.T) {
	dir := t.TempDir()
	audittest.Run(t, audittest.Harness{
		New: func(t *testing.T, name string) audit.Sink {
			s, err := sqlite.Open(filepath.Join(dir, name+".db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Events: func(t *testing.T, name string) []audit.Event { return queryAll(t, filepath.Join(dir, name+".db")) },
	})
}

func TestMultiConformance(t *testing.T) {
	dir := t.TempDir()
	audittest.Run(t, audittest.Harness{
		New: func(t *testing.T, name string) audit.Sink {
			j, err := audit.CreateJSONL(filepath.Join(dir, name+".jsonl"), true)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sqlite.Open(filepath.Join(dir, name+".db"), &sqlite.Options{Durable: true})
			if err != nil {
				t.Fatal(err)
			}
			return audit.Multi(j, s, audit.Discard)
		},
		Events: func(t *testing.T, name string) []audit.Event {
			a := queryAll(t, filepath.Join(dir, name+".db"))
			b := readJSONLFile(t, filepath.Join(dir, name+".jsonl"))
			if len(a) != len(b) {
				t.Errorf("fan-out: sqlite has %d events, jsonl %d", len(a), len(b))
			}
			return a
		},
	})
}

func TestQueryFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := sqlite.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []*audit.Event
	for i := range 30 {
		e := audittest.Event(i)
		e.Time = base.Add(time.Duration(i) * time.Minute)
		all = append(all, e)
		if err := s.Record(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	// The sink's own Query sees its events while it is open.
	if evs, err := s.Query(t.Context(), sqlite.Filter{Limit: 5}); err != nil || len(evs) != 5 || evs[0].ID != all[0].ID {
		t.Errorf("sink Query: %v, %d events", err, len(evs))
	}
	count := func(f func(*audit.Event) bool) int {
		n := 0
		for _, e := range all {
			if f(e) {
				n++
			}
		}
		return n
	}
	for _, tc := range []struct {
		name string
		f    sqlite.Filter
		want int
	}{
		{"all", sqlite.Filter{}, 30},
		{"since", sqlite.Filter{Since: base.Add(10 * time.Minute)}, 20},
		{"range", sqlite.Filter{Since: base.Add(10 * time.Minute), Until: base.Add(15 * time.Minute)}, 5},
		{"session", sqlite.Filter{Session: "session-1"}, count(func(e *audit.Event) bool { return e.Session == "session-1" })},
		{"tool", sqlite.Filter{Tool: "Read"}, count(func(e *audit.Event) bool { return e.Tool == "Read" })},
		{"agent", sqlite.Filter{Agent: "reviewer"}, 15},
		{"server", sqlite.Filter{Server: "db"}, count(func(e *audit.Event) bool { return e.Server == "db" })},
		{"outcome", sqlite.Filter{Outcome: toolgate.Deny}, count(func(e *audit.Event) bool { return e.Outcome == toolgate.Deny })},
		{"combined", sqlite.Filter{Tool: "Bash", Outcome: toolgate.Allow, Since: base.Add(3 * time.Minute)},
			count(func(e *audit.Event) bool {
				return e.Tool == "Bash" && e.Outcome == toolgate.Allow && !e.Time.Before(base.Add(3*time.Minute))
			})},
		{"limit", sqlite.Filter{Limit: 7}, 7},
		{"none", sqlite.Filter{Session: "nope"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := sqlite.Query(t.Context(), path, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(evs) != tc.want {
				t.Errorf("%d events, want %d", len(evs), tc.want)
			}
			for i := 1; i < len(evs); i++ {
				if evs[i].Time.Before(evs[i-1].Time) {
					t.Error("events out of time order")
				}
			}
		})
	}
	newest, err := sqlite.Query(t.Context(), path, sqlite.Filter{Newest: true, Limit: 1})
	if err != nil || len(newest) != 1 || newest[0].ID != all[29].ID {
		t.Errorf("newest: %v %+v", err, newest)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Query(t.Context(), filepath.Join(t.TempDir(), "missing.db"), sqlite.Filter{}); err == nil {
		t.Error("Query of a missing database succeeded")
	}
}

func TestSQLiteDuplicateIDIsolated(t *testing.T) {
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e := audittest.Event(1)
	if err := s.Record(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	// Concurrent: one duplicate among good events fails alone.
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range 20 {
		wg.Go(func() {
			ev := audittest.Event(i)
			if i == 7 {
				ev = e.Clone()
			}
			errs[i] = s.Record(t.Context(), ev)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (i == 7) != (err != nil) {
			t.Errorf("event %d: %v", i, err)
		}
	}
	if err := s.Record(t.Context(), &audit.Event{}); err == nil {
		t.Error("event without id stored")
	}
}

// TestSQLiteCrashChild is the writer process of TestSQLiteCrashSafety. It
// records events from several goroutines forever, printing each event's id
// after Record returns nil.
func TestSQLiteCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("run by TestSQLiteCrashSafety")
	}
	s, err := sqlite.Open(path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	for w := range 8 {
		go func() {
			for i := 0; ; i++ {
				e := audittest.Event(w*1_000_000 + i)
				if err := s.Record(context.Background(), e); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				mu.Lock()
				os.Stdout.WriteString(e.ID + "\n") // unbuffered: one write per id
				mu.Unlock()
			}
		}()
	}
	select {}
}

func TestSQLiteCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a writer process")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLiteCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	var ids []string
	killed := false
	deadline := time.Now().Add(30 * time.Second)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break // EOF after the kill; a partial last line does not count
		}
		ids = append(ids, strings.TrimSuffix(line, "\n"))
		if !killed && (len(ids) >= 3000 || time.Now().After(deadline)) {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("writer exited early after %d events: %s", len(ids), stderr.String())
	}
	if len(ids) < 100 {
		t.Fatalf("only %d events before the kill", len(ids))
	}
	// Reopen for writing (recovers the WAL) and read everything back.
	s, err := sqlite.Open(path, nil)
	if err != nil {
		t.Fatalf("reopening after kill: %v", err)
	}
	evs, err := s.Query(t.Context(), sqlite.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stored := make(map[string]bool, len(evs))
	for _, e := range evs {
		stored[e.ID] = true
	}
	lost := 0
	for _, id := range ids {
		if !stored[id] {
			lost++
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d events reported as recorded were lost", lost, len(ids))
	}
	t.Logf("killed the writer after %d reported events; %d stored", len(ids), len(evs))
}

const crashEnv = "TOOLGATE_AUDIT_CRASH_DB"

func readJSONLFile(t *testing.T, path string) []audit.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, err := audit.ReadJSONL(f)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// v1Schema is the schema as version 1 of the sink wrote it, for the
// migration test (the sink's own copy must never change).
const v1Schema = `CREATE TABLE events (
	seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, time_ns INTEGER NOT NULL,
	session TEXT NOT NULL DEFAULT '', agent TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL,
	outcome TEXT NOT NULL, asked INTEGER NOT NULL DEFAULT 0, input_digest TEXT NOT NULL DEFAULT '',
	input TEXT, rewritten TEXT, reasons TEXT, mode TEXT NOT NULL DEFAULT '',
	revision TEXT NOT NULL DEFAULT '', eval_ns INTEGER NOT NULL DEFAULT 0);
CREATE INDEX events_time ON events(time_ns);
INSERT INTO events (id, time_ns, tool, outcome, input_digest) VALUES ('old-1', 1000, 'Bash', 'deny', 'd1');
PRAGMA user_version = 1;`

// TestMigrateFromVersion1: a database written by version 1 (no server, no
// latency) is read as it is, and upgraded in place by the first Open —
// by several processes' Opens at once too — losing no event.
func TestMigrateFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// Version 1 created its databases in WAL mode too.
	if _, err := db.Exec("PRAGMA journal_mode = WAL;\n" + v1Schema); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// Read-only, before any upgrade.
	evs, err := sqlite.Query(t.Context(), path, sqlite.Filter{})
	if err != nil || len(evs) != 1 || evs[0].ID != "old-1" || evs[0].Server != "" || evs[0].Latency != 0 {
		t.Fatalf("version-1 database read: %v %+v", err, evs)
	}
	if evs, err := sqlite.Query(t.Context(), path, sqlite.Filter{Server: "db"}); err != nil || len(evs) != 0 {
		t.Fatalf("server filter on a version-1 database: %v %+v", err, evs)
	}

	var wg sync.WaitGroup
	sinks := make([]*sqlite.Sink, 4)
	errs := make([]error, len(sinks))
	for i := range sinks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sinks[i], errs[i] = sqlite.Open(path, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d of a version-1 database: %v", i, err)
		}
	}
	e := audittest.Event(2) // server "db", with a latency
	e.Latency = 123456
	if err := sinks[0].Record(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	for _, s := range sinks {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	evs = queryAll(t, path)
	if len(evs) != 2 || evs[0].ID != "old-1" || evs[1].ID != e.ID {
		t.Fatalf("after the upgrade: %+v", evs)
	}
	if evs[1].Server != "db" || evs[1].Latency != 123456 {
		t.Errorf("the new event's server %q latency %v", evs[1].Server, evs[1].Latency)
	}
	if got, err := sqlite.Query(t.Context(), path, sqlite.Filter{Server: "db"}); err != nil || len(got) != 1 || got[0].ID != e.ID {
		t.Errorf("server filter after the upgrade: %v %+v", err, got)
	}
	db, err = sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 2 {
		t.Errorf("user_version after the upgrade: %d %v", v, err)
	}
}
