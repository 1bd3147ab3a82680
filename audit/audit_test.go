package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
)

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

func queryAll(t *testing.T, path string) []audit.Event {
	t.Helper()
	evs, err := audit.Query(context.Background(), path, audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestDiscardConformance(t *testing.T) {
	audittest.Run(t, audittest.Harness{New: func(*testing.T, string) audit.Sink { return audit.Discard }})
}

func TestJSONLConformance(t *testing.T) {
	dir := t.TempDir()
	audittest.Run(t, audittest.Harness{
		New: func(t *testing.T, name string) audit.Sink {
			s, err := audit.CreateJSONL(filepath.Join(dir, name+".jsonl"), false)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Events: func(t *testing.T, name string) []audit.Event {
			return readJSONLFile(t, filepath.Join(dir, name+".jsonl"))
		},
	})
}

func TestJSONLWriterConformance(t *testing.T) {
	bufs := map[string]*bytes.Buffer{}
	var mu sync.Mutex
	audittest.Run(t, audittest.Harness{
		New: func(t *testing.T, name string) audit.Sink {
			mu.Lock()
			defer mu.Unlock()
			bufs[name] = &bytes.Buffer{}
			return audit.NewJSONL(bufs[name])
		},
		Events: func(t *testing.T, name string) []audit.Event {
			mu.Lock()
			defer mu.Unlock()
			evs, err := audit.ReadJSONL(bufs[name])
			if err != nil {
				t.Fatal(err)
			}
			return evs
		},
	})
}

func TestSQLiteConformance(t *testing.T) {
	dir := t.TempDir()
	audittest.Run(t, audittest.Harness{
		New: func(t *testing.T, name string) audit.Sink {
			s, err := audit.OpenSQLite(filepath.Join(dir, name+".db"), nil)
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
			s, err := audit.OpenSQLite(filepath.Join(dir, name+".db"), &audit.SQLiteOptions{Durable: true})
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

type failSink struct{ err error }

func (f failSink) Record(context.Context, *audit.Event) error { return f.err }
func (f failSink) Close() error                               { return f.err }

func TestMultiErrors(t *testing.T) {
	var buf bytes.Buffer
	boom := errors.New("boom")
	m := audit.Multi(audit.NewJSONL(&buf), failSink{boom}, nil)
	err := m.Record(t.Context(), audittest.Event(1))
	if !errors.Is(err, boom) {
		t.Errorf("Record: %v", err)
	}
	if buf.Len() == 0 {
		t.Error("a failing sink stopped the others")
	}
	if err := m.Close(); !errors.Is(err, boom) {
		t.Errorf("Close: %v", err)
	}
	if err := audit.Multi().Record(t.Context(), audittest.Event(1)); err != nil {
		t.Errorf("empty Multi: %v", err)
	}
}

func TestQueryFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.db")
	s, err := audit.OpenSQLite(path, nil)
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
	if evs, err := s.Query(t.Context(), audit.Filter{Limit: 5}); err != nil || len(evs) != 5 || evs[0].ID != all[0].ID {
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
		f    audit.Filter
		want int
	}{
		{"all", audit.Filter{}, 30},
		{"since", audit.Filter{Since: base.Add(10 * time.Minute)}, 20},
		{"range", audit.Filter{Since: base.Add(10 * time.Minute), Until: base.Add(15 * time.Minute)}, 5},
		{"session", audit.Filter{Session: "session-1"}, count(func(e *audit.Event) bool { return e.Session == "session-1" })},
		{"tool", audit.Filter{Tool: "Read"}, count(func(e *audit.Event) bool { return e.Tool == "Read" })},
		{"agent", audit.Filter{Agent: "reviewer"}, 15},
		{"outcome", audit.Filter{Outcome: toolgate.Deny}, count(func(e *audit.Event) bool { return e.Outcome == toolgate.Deny })},
		{"combined", audit.Filter{Tool: "Bash", Outcome: toolgate.Allow, Since: base.Add(3 * time.Minute)},
			count(func(e *audit.Event) bool {
				return e.Tool == "Bash" && e.Outcome == toolgate.Allow && !e.Time.Before(base.Add(3*time.Minute))
			})},
		{"limit", audit.Filter{Limit: 7}, 7},
		{"none", audit.Filter{Session: "nope"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := audit.Query(t.Context(), path, tc.f)
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
	newest, err := audit.Query(t.Context(), path, audit.Filter{Newest: true, Limit: 1})
	if err != nil || len(newest) != 1 || newest[0].ID != all[29].ID {
		t.Errorf("newest: %v %+v", err, newest)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.Query(t.Context(), filepath.Join(t.TempDir(), "missing.db"), audit.Filter{}); err == nil {
		t.Error("Query of a missing database succeeded")
	}
}

func TestSQLiteDuplicateIDIsolated(t *testing.T) {
	s, err := audit.OpenSQLite(filepath.Join(t.TempDir(), "a.db"), nil)
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

func TestWriteTable(t *testing.T) {
	e := audittest.Event(0)
	e.Tool = "evil\x1b[2J\u202etool"
	var b bytes.Buffer
	if err := audit.WriteTable(&b, []audit.Event{*e}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("table:\n%s", out)
	}
	for _, want := range []string{e.ID, "session-0", `evil\x1b[2J\u202etool`, "allow*", `rule: deny rule "Bash(rm *)"`, `\u202e removal`} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row lacks %q:\n%s", want, lines[1])
		}
	}
	if strings.ContainsRune(out, '\x1b') || strings.ContainsRune(out, '\u202e') {
		t.Error("control characters reached the table")
	}
	var j bytes.Buffer
	if err := audit.WriteJSONL(&j, []audit.Event{*e, *e}); err != nil {
		t.Fatal(err)
	}
	back, err := audit.ReadJSONL(&j)
	if err != nil || len(back) != 2 || !audittest.Equal(&back[0], e) {
		t.Errorf("JSONL round trip: %v %+v", err, back)
	}
}

func TestDefaultRedactor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{"password":"x","Api-Key":"k","nested":{"client_secret":"s","ok":"v"},"list":[{"token":7}]}`,
			`{"Api-Key":"[REDACTED]","list":[{"token":"[REDACTED]"}],"nested":{"client_secret":"[REDACTED]","ok":"v"},"password":"[REDACTED]"}`},
		{`{"command":"curl -H 'Authorization: Bearer abcdefghijkl' https://x"}`, `{"command":"curl -H 'Authorization: Bearer [REDACTED]' https://x"}`},
		{`{"command":"mysql --password=hunter22 db"}`, `{"command":"mysql --password=[REDACTED] db"}`},
		{`{"author":"ann","big":12345678901234567890}`, `{"author":"ann","big":12345678901234567890}`},
		{`{bad`, `"[REDACTED]"`},
	} {
		got := string(audit.DefaultRedactor("T", json.RawMessage(tc.in)))
		if got != tc.want {
			t.Errorf("redact %s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if audit.DefaultRedactor("T", nil) != nil {
		t.Error("nil input")
	}
	if !audit.SecretKey("AWS_SECRET_ACCESS_KEY") || audit.SecretKey("path") {
		t.Error("SecretKey")
	}
}

func TestIDAndDigest(t *testing.T) {
	a, b := audit.NewID(), audit.NewID()
	if len(a) != 32 || a == b {
		t.Errorf("ids %s %s", a, b)
	}
	if audit.Digest([]byte("abc")) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Error("digest")
	}
}

// --- crash safety ---

const crashEnv = "TOOLGATE_AUDIT_CRASH_DB"

// TestSQLiteCrashChild is the writer process of TestSQLiteCrashSafety. It
// records events from several goroutines forever, printing each event's id
// after Record returns nil.
func TestSQLiteCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("run by TestSQLiteCrashSafety")
	}
	s, err := audit.OpenSQLite(path, nil)
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
	s, err := audit.OpenSQLite(path, nil)
	if err != nil {
		t.Fatalf("reopening after kill: %v", err)
	}
	evs, err := s.Query(t.Context(), audit.Filter{})
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
