package mcpgate

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/audit"
)

// benchCalls measures one tools/call through cs, reporting the median and
// the 99th percentile.
func benchCalls(b *testing.B, cs *mcp.ClientSession, name string) {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "hello"}}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(ctx, params)
		lat = append(lat, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("call: %v %v", err, res)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkCallDirect is the baseline: a client calling the upstream with
// no proxy between them.
func BenchmarkCallDirect(b *testing.B) {
	up := newTestUpstream()
	tr, err := up.connect(context.Background(), ServerSpec{})
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchCalls(b, cs, "echo")
}

// BenchmarkCallProxied is a call through the proxy (an allow decided by a
// rule, audited to a sink in memory); its difference from
// BenchmarkCallDirect is the proxy's own cost: the decision, the second
// JSON-RPC hop and the audit event.
func BenchmarkCallProxied(b *testing.B) {
	f := newBenchFixture(b)
	benchCalls(b, f.cs, "mcp__up__echo")
}

// BenchmarkIdleSession reports the memory one idle downstream session holds.
func BenchmarkIdleSession(b *testing.B) {
	f := newBenchFixture(b)
	const n = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var sessions []*mcp.ClientSession
	for range n {
		a, c := mcp.NewInMemoryTransports()
		if _, err := f.proxy.Server().Connect(context.Background(), a, nil); err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "idle"}, nil).Connect(context.Background(), c, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	for b.Loop() {
	}
	// Both ends of each session live in this process: the figure is an
	// upper bound of what the proxy's end holds.
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n/1024, "KiB/session")
	for _, cs := range sessions {
		cs.Close()
	}
}

// newBenchFixture is newFixture for a benchmark.
func newBenchFixture(b *testing.B) *fixture {
	up := newTestUpstream()
	p, err := New(&Options{Engine: newEngine(b, testPolicy), Servers: []ServerSpec{{Name: "up", Command: []string{"unused"}}},
		Connect: up.connect, Pin: PinOff, Audit: discardSink{}, Cwd: "/work"})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	a, c := mcp.NewInMemoryTransports()
	if _, err := p.Server().Connect(context.Background(), a, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), c, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return &fixture{up: up, proxy: p, cs: cs}
}

// discardSink stores nothing, and never fails.
type discardSink struct{}

func (discardSink) Record(_ context.Context, e *audit.Event) error {
	if e == nil {
		return errors.New("nil event")
	}
	return nil
}
func (discardSink) Close() error { return nil }

// BenchmarkGate is the proxy's own work on one allowed call, without the
// JSON-RPC hops: the decision (with the annotations), the argument digest
// and the audit event.
func BenchmarkGate(b *testing.B) {
	f := newBenchFixture(b)
	e := f.proxy.entry("mcp__up__echo")
	args := []byte(`{"text":"hello"}`)
	ctx := context.Background()
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		v := f.proxy.decide(e, args, "s")
		_ = argsDigest(args)
		if v.outcome != outAllow || !f.proxy.audit(ctx, v, "s", false, start) {
			b.Fatal("not allowed")
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
}
