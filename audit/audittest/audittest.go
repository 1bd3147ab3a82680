// Package audittest checks that an [audit.Sink] keeps the Sink contract, in
// the spirit of testing/slogtest.
//
// A sink's tests call [Run] with a [Harness]:
//
//	func TestSink(t *testing.T) {
//		dir := t.TempDir()
//		audittest.Run(t, audittest.Harness{
//			New: func(t *testing.T, name string) audit.Sink { ... open dir/name ... },
//			Events: func(t *testing.T, name string) []audit.Event { ... read it back ... },
//		})
//	}
package audittest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/audit"
)

// Harness tells [Run] how to make and read a sink.
type Harness struct {
	// New returns a new, empty sink. name is unique within one Run, so a
	// file-backed sink can put each sink in its own file.
	New func(t *testing.T, name string) audit.Sink
	// Events, if set, returns every event stored by the sink made under
	// name, in any order. It is called after the sink is closed. Nil for
	// sinks that store nothing readable (Discard): only the Record/Close
	// contract is checked then.
	Events func(t *testing.T, name string) []audit.Event
}

// Run checks the Sink contract: stored events read back unchanged; Record
// does not modify its event; concurrent Records and a concurrent Close are
// safe and lose no event whose Record succeeded; a done context is honoured;
// a nil event is an error, not a panic; Record after Close fails with
// audit.ErrClosed; Close twice is harmless. Run with -race.
func Run(t *testing.T, h Harness) {
	t.Helper()
	t.Run("RoundTrip", func(t *testing.T) { roundTrip(t, h) })
	t.Run("DoesNotModifyEvent", func(t *testing.T) { doesNotModify(t, h) })
	t.Run("Concurrent", func(t *testing.T) { concurrent(t, h) })
	t.Run("ConcurrentClose", func(t *testing.T) { concurrentClose(t, h) })
	t.Run("DoneContext", func(t *testing.T) { doneContext(t, h) })
	t.Run("NilEvent", func(t *testing.T) { nilEvent(t, h) })
	t.Run("Closed", func(t *testing.T) { closed(t, h) })
}

var seq struct {
	sync.Mutex
	n int
}

// Event returns a fully populated event with a fresh id, for sink tests.
func Event(i int) *audit.Event {
	seq.Lock()
	seq.n++
	n := seq.n
	seq.Unlock()
	input := json.RawMessage(fmt.Sprintf(`{"command":"echo %d","password":"[REDACTED]"}`, i))
	return &audit.Event{
		ID:          audit.NewID(),
		Time:        time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(n)*time.Millisecond + 123),
		Session:     fmt.Sprintf("session-%d", i%3),
		Agent:       []string{"", "reviewer"}[i%2],
		Server:      []string{"", "", "db"}[i%3],
		Tool:        []string{"Bash", "Read", "mcp__db__query"}[i%3],
		InputDigest: audit.Digest(input),
		Input:       input,
		Rewritten:   []json.RawMessage{nil, json.RawMessage(`{"command":"echo safe"}`)}[i%2],
		Outcome:     []toolgate.Outcome{toolgate.Allow, toolgate.Deny, toolgate.Modify}[i%3],
		Asked:       i%4 == 0,
		Reasons: []toolgate.Reason{{
			Kind: toolgate.KindRule, Rule: "Bash(rm *)", Effect: "deny", Source: "project",
			File: "/p/.toolgate/policy.yaml", Line: 3, Column: 7, Part: "rm -rf x", Message: "no \u202e removal",
		}, {Kind: toolgate.KindDefault}},
		Mode:     "default",
		Revision: "rev-abc",
		EvalTime: time.Duration(1500 + i),
		Latency:  []time.Duration{0, time.Duration(90000 + i)}[i%2],
	}
}

func newSink(t *testing.T, h Harness, name string) audit.Sink {
	t.Helper()
	s := h.New(t, name)
	if s == nil {
		t.Fatal("Harness.New returned nil")
	}
	return s
}

func read(t *testing.T, h Harness, name string) map[string]audit.Event {
	t.Helper()
	if h.Events == nil {
		return nil
	}
	m := map[string]audit.Event{}
	for _, e := range h.Events(t, name) {
		if _, dup := m[e.ID]; dup {
			t.Errorf("event %s stored twice", e.ID)
		}
		m[e.ID] = e
	}
	return m
}

// Equal reports whether two events hold the same values (times compared
// with time.Equal, JSON compared as values).
func Equal(a, b *audit.Event) bool {
	if !a.Time.Equal(b.Time) {
		return false
	}
	x, y := *a, *b
	x.Time, y.Time = time.Time{}, time.Time{}
	if !jsonSame(x.Input, y.Input) || !jsonSame(x.Rewritten, y.Rewritten) {
		return false
	}
	x.Input, y.Input, x.Rewritten, y.Rewritten = nil, nil, nil, nil
	if len(x.Reasons) == 0 && len(y.Reasons) == 0 {
		x.Reasons, y.Reasons = nil, nil
	}
	return reflect.DeepEqual(x, y)
}

func jsonSame(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return reflect.DeepEqual(x, y)
}

func roundTrip(t *testing.T, h Harness) {
	s := newSink(t, h, "roundtrip")
	var want []*audit.Event
	for i := range 6 {
		e := Event(i)
		if err := s.Record(t.Context(), e); err != nil {
			t.Fatalf("Record: %v", err)
		}
		want = append(want, e)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got := read(t, h, "roundtrip")
	if got == nil {
		return
	}
	if len(got) != len(want) {
		t.Errorf("stored %d events, want %d", len(got), len(want))
	}
	for _, w := range want {
		g, ok := got[w.ID]
		if !ok {
			t.Errorf("event %s missing", w.ID)
			continue
		}
		if !Equal(&g, w) {
			t.Errorf("event read back differs:\n got %+v\nwant %+v", g, *w)
		}
	}
}

func doesNotModify(t *testing.T, h Harness) {
	s := newSink(t, h, "nomodify")
	defer s.Close()
	e := Event(1)
	c := e.Clone()
	if err := s.Record(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e, c) {
		t.Errorf("Record modified its event:\n got %+v\nwant %+v", e, c)
	}
}

func concurrent(t *testing.T, h Harness) {
	s := newSink(t, h, "concurrent")
	const workers, each = 16, 40
	var mu sync.Mutex
	var ok []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				e := Event(w*each + i)
				if err := s.Record(t.Context(), e); err != nil {
					t.Errorf("Record: %v", err)
					continue
				}
				mu.Lock()
				ok = append(ok, e.ID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got := read(t, h, "concurrent")
	if got == nil {
		return
	}
	for _, id := range ok {
		if _, found := got[id]; !found {
			t.Errorf("recorded event %s missing", id)
		}
	}
	if len(got) != workers*each {
		t.Errorf("stored %d events, want %d", len(got), workers*each)
	}
}

func concurrentClose(t *testing.T, h Harness) {
	s := newSink(t, h, "concurrentclose")
	var mu sync.Mutex
	var ok []string
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range 8 {
		wg.Go(func() {
			<-start
			for i := range 50 {
				e := Event(w*50 + i)
				err := s.Record(t.Context(), e)
				if err == nil {
					mu.Lock()
					ok = append(ok, e.ID)
					mu.Unlock()
				} else if !errors.Is(err, audit.ErrClosed) {
					t.Errorf("Record during Close: %v (want nil or ErrClosed)", err)
				}
			}
		})
	}
	close(start)
	time.Sleep(time.Millisecond)
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	wg.Wait()
	got := read(t, h, "concurrentclose")
	if got == nil {
		return
	}
	for _, id := range ok {
		if _, found := got[id]; !found {
			t.Errorf("event %s recorded before Close is missing", id)
		}
	}
}

func doneContext(t *testing.T, h Harness) {
	s := newSink(t, h, "donectx")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	e := Event(0)
	err := s.Record(ctx, e)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Record with a canceled context: %v, want an error wrapping context.Canceled", err)
	}
	dctx, dcancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer dcancel()
	e2 := Event(1)
	if err := s.Record(dctx, e2); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Record past its deadline: %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got := read(t, h, "donectx")
	if _, found := got[e.ID]; found {
		t.Error("event recorded with an already canceled context was stored")
	}
	if _, found := got[e2.ID]; found {
		t.Error("event recorded past its deadline was stored")
	}
}

func nilEvent(t *testing.T, h Harness) {
	s := newSink(t, h, "nil")
	defer s.Close()
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("Record(nil) panicked: %v", r)
			}
		}()
		if err := s.Record(t.Context(), nil); err == nil {
			t.Error("Record(nil) succeeded")
		}
	}()
}

func closed(t *testing.T, h Harness) {
	s := newSink(t, h, "closed")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	err := s.Record(t.Context(), Event(0))
	if h.Events == nil && err == nil {
		return // a sink that stores nothing may accept events after Close
	}
	if !errors.Is(err, audit.ErrClosed) {
		t.Errorf("Record after Close: %v, want ErrClosed", err)
	}
}
