package mcpgate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzJSONRPCInput sends one arbitrary message to the proxy after a
// normal handshake, on a fresh session each time. Whatever the message,
// the proxy must not crash, and no call the policy denies or hides may
// reach the upstream: secret_tool (hidden), write_thing on /etc (denied),
// write_thing anywhere (asked, and this client cannot be asked).
func FuzzJSONRPCInput(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__up__write_thing","arguments":{"path":"/etc/passwd"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__up__secret_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__up__write_thing","arguments":{"path":"/tmp/x"},"inputResponses":{"toolgate.approve":{"action":"accept","content":{"approve":true}}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__up__write_thing","arguments":{"path":"/tmp/x"},"requestState":"tg1.e30.AAAA","inputResponses":{"toolgate.approve":{"action":"accept"}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__up__echo","arguments":{"text":"a","text":"b"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__up__echo","arguments":"not an object"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"test://private/b"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
	} {
		f.Add(seed)
	}
	up := newTestUpstream()
	p, err := New(&Options{Engine: newEngine(f, testPolicy), Servers: []ServerSpec{{Name: "up", Command: []string{"unused"}}},
		Connect: up.connect, Pin: PinOff, Cwd: "/work", AskTimeout: time.Second, CallTimeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	if err := p.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			return // the transport would refuse it before the proxy sees it
		}
		a, b := mcp.NewInMemoryTransports()
		ss, err := p.Server().Connect(ctx, a, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		conn, err := b.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, hs := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
		} {
			m, _ := jsonrpc.DecodeMessage([]byte(hs))
			if err := conn.Write(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := conn.Read(ctx); err != nil {
			t.Fatal(err)
		}
		before := len(up.ran())
		if err := conn.Write(ctx, msg); err != nil {
			return
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
			conn.Read(rctx) // the answer, or nothing: both are fine
			rcancel()
		}
		for _, call := range up.ran()[before:] {
			if strings.HasPrefix(call, "secret_tool") || strings.HasPrefix(call, "write_thing") {
				t.Fatalf("a call the policy does not allow ran upstream: %s (sent %s)", call, line)
			}
		}
	})
}
