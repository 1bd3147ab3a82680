package mcpgate

import (
	"context"
	"errors"
	"net"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/audit"
)

// The call benchmarks measure one tools/call on the SDK's in-memory
// transports, against an upstream that answers at once:
//
//   - BenchmarkCallDirect: a client calling the upstream, nothing between;
//   - BenchmarkCallRelay: a client calling a bare relay built on the same
//     SDK (one tool that passes the call on, no decision, no audit), which
//     calls the upstream: the floor of any proxy built on the SDK;
//   - BenchmarkCallProxied: a client calling the proxy, which calls the
//     upstream; both hops as over stdio, with the proxy's own framing on
//     its ends (NewIOTransport, commandTransport) and the SDK's on the
//     client's and the server's.
//
// Proxied minus Direct is the proxy's own cost; Relay minus Direct is the
// part of it that is the SDK's second JSON-RPC hop, Proxied minus Relay the
// part that is toolgate's (the decision, the audit event, the checks).

// benchUpstream is a server with one tool, echo, that answers at once:
// a raw handler (no schema inference or validation by the SDK), which reads
// nothing and records nothing.
func benchUpstream() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-upstream"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes text", InputSchema: objSchema(map[string]string{"text": "string"}, "text")},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil
		})
	return s
}

// serveInMemory connects s to a new in-memory transport and returns the
// transport of the other end.
func serveInMemory(ctx context.Context, s *mcp.Server) (mcp.Transport, error) {
	a, b := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, a, nil); err != nil {
		return nil, err
	}
	return b, nil
}

// serveOverPipe connects s, on the SDK's stdio transport, to one end of a
// pipe and returns the proxy's stdio transport on the other end.
func serveOverPipe(ctx context.Context, s *mcp.Server) (mcp.Transport, error) {
	a, b := net.Pipe()
	if _, err := s.Connect(ctx, &mcp.IOTransport{Reader: a, Writer: a}, nil); err != nil {
		return nil, err
	}
	return pipeTransport{b}, nil
}

// benchClient connects a client to s in memory.
func benchClient(b *testing.B, s *mcp.Server) *mcp.ClientSession {
	ctx := context.Background()
	tr, err := serveInMemory(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

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
	reportLatency(b, lat)
}

// reportLatency reports the median and the 99th percentile of lat, in µs.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1000, "p99-µs")
}

// BenchmarkCallDirect is the baseline: a client calling the upstream with
// no proxy between them.
func BenchmarkCallDirect(b *testing.B) {
	benchCalls(b, benchClient(b, benchUpstream()), "echo")
}

// BenchmarkCallRelay is a call through a bare relay on the same SDK: what
// the second JSON-RPC hop costs without any of toolgate's work.
func BenchmarkCallRelay(b *testing.B) {
	ctx := context.Background()
	tr, err := serveInMemory(ctx, benchUpstream())
	if err != nil {
		b.Fatal(err)
	}
	up, err := mcp.NewClient(&mcp.Implementation{Name: "relay"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { up.Close() })
	relay := mcp.NewServer(&mcp.Implementation{Name: "relay"}, nil)
	relay.AddTool(&mcp.Tool{Name: "echo", InputSchema: objSchema(map[string]string{"text": "string"}, "text")},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return up.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: req.Params.Arguments})
		})
	benchCalls(b, benchClient(b, relay), "echo")
}

// BenchmarkCallProxied is a call through the proxy (an allow decided by a
// rule, audited to a sink that keeps nothing).
func BenchmarkCallProxied(b *testing.B) {
	f := newBenchFixture(b)
	benchCalls(b, f.cs, "mcp__up__echo")
}

// BenchmarkIdleSession reports the memory one idle downstream session
// holds, heap and goroutine stacks, with the SDK's own server for
// comparison ("sdk-KiB/session": the same client on a server with no
// toolgate in it).
func BenchmarkIdleSession(b *testing.B) {
	f := newBenchFixture(b)
	sdk := idleSessions(b, benchUpstream())
	proxy := idleSessions(b, f.proxy.Server())
	for b.Loop() {
	}
	// Both ends of each session live in this process: the figure is an
	// upper bound of what the proxy's end holds.
	b.ReportMetric(proxy, "KiB/session")
	b.ReportMetric(sdk, "sdk-KiB/session")
}

// idleSessions connects clients to s and returns the memory each session
// holds, both ends, in KiB.
func idleSessions(b *testing.B, s *mcp.Server) float64 {
	const n = 200
	inUse := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc + m.StackInuse
	}
	before := inUse()
	var sessions []*mcp.ClientSession
	for range n {
		a, c := mcp.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), a, nil); err != nil {
			b.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "idle"}, nil).Connect(context.Background(), c, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	after := inUse()
	for _, cs := range sessions {
		cs.Close()
	}
	return float64(after-before) / n / 1024
}

// newBenchFixture is a proxy in front of benchUpstream, named "up", and
// a client of it. The upstream is reached as a command server is: the
// proxy's own stdio framing (commandTransport's) on its end of a pipe, the
// SDK's stdio transport on the server's.
func newBenchFixture(b *testing.B) *fixture {
	up := benchUpstream()
	p, err := New(&Options{Engine: newEngine(b, testPolicy), Servers: []ServerSpec{{Name: "up", Command: []string{"unused"}}},
		Connect: func(ctx context.Context, _ ServerSpec) (mcp.Transport, error) { return serveOverPipe(ctx, up) },
		Pin:     PinOff, Audit: discardSink{}, Cwd: "/work"})
	if err != nil {
		b.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	// The client reaches the proxy as a stdio client does: the proxy's
	// framing (NewIOTransport) on its end of a pipe, the SDK's on the
	// client's.
	x, y := net.Pipe()
	ctx := context.Background()
	if _, err := p.Server().Connect(ctx, NewIOTransport(x, x), nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.IOTransport{Reader: y, Writer: y}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return &fixture{proxy: p, cs: cs}
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
// JSON-RPC hops: the decision (with the annotations) and the audit event
// (with its argument digest and redacted copy).
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
		if v.outcome != outAllow || !f.proxy.audit(ctx, v, "s", false, start) {
			b.Fatal("not allowed")
		}
		lat = append(lat, time.Since(start))
	}
	reportLatency(b, lat)
}
