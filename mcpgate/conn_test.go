package mcpgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets the test binary play an MCP server over stdio
// (benchUpstream's one tool, echo) when MCPGATE_TEST_SERVER is set: a real
// command server for TestCommandServer.
func TestMain(m *testing.M) {
	if os.Getenv("MCPGATE_TEST_SERVER") == "1" {
		if err := benchUpstream().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCommandServer runs a call through the proxy to a server it starts as
// a command (commandTransport and lineConn on the proxy's side, the SDK's
// stdio transport on the server's), and checks that Close ends the
// server's process.
func TestCommandServer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(&Options{Engine: newEngine(t, testPolicy), Pin: PinOff, Cwd: "/work",
		Servers: []ServerSpec{{Name: "up", Command: []string{exe, "-test.run=^$"}, Env: map[string]string{"MCPGATE_TEST_SERVER": "1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tr, err := serveInMemory(context.Background(), p.Server())
	if err != nil {
		t.Fatal(err)
	}
	client, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	f := &fixture{proxy: p, cs: client}
	text, isErr, err := f.call(t, "mcp__up__echo", map[string]any{"text": "hi"})
	if err != nil || isErr || text != "hello" {
		t.Fatalf("call: %q %v %v", text, isErr, err)
	}
	cs, err := p.byName["up"].session()
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the server's session did not end after Close")
	}
}

// messageCases are JSON-RPC messages, good and bad, that decodeMessage
// must read as the SDK's jsonrpc.DecodeMessage does.
var messageCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":null}`,
	`{"jsonrpc":"2.0","id":7,"method":""}`,
	`{"jsonrpc":"2.0","id":2.0,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":3,"result":null}`,
	`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"bad","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":5,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled","params":{}}`,
	`  {"jsonrpc":"2.0","id":6,"result":{}}  `,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	// Member names are exact, as the SDK reads them: "Method" is not "method".
	`{"jsonrpc":"2.0","id":8,"Method":"tools/call","result":{}}`,
	`{"JSONRPC":"2.0","id":8,"method":"x"}`,
	`{"jsonrpc":"2.0","ID":9,"method":"x"}`,
	// Refused by both.
	`{"jsonrpc":"1.0","id":1,"method":"x"}`,
	`{"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":true,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1e19,"method":"x"}`,
	`{"jsonrpc":"2.0","id":"\u00e9\ud800","method":"x\u0000"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":3}`,
	`{"jsonrpc":"2.0","id":1,"error":"no"}`,
	`{"jsonrpc":"2.0","id":4,"error":{"Code":1,"Message":"m","Data":2}}`,
	`{"jsonrpc":"2.0","id":4,"error":{"code":1.5,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":4,"error":{"code":1,"data":null}}`,
	`null`,
	`"2.0"`,
	`{"jsonrpc":2,"id":1,"method":"x"}`,
	// Batches.
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"}]`,
	`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`[]`,
	`[[]]`,
	`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":1.0,"method":"b"}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"1.0","id":2,"method":"b"}]`,
}

// TestDecodeMessageLikeSDK checks the proxy's decoder against the SDK's on
// every case: both refuse, or both read the same message.
func TestDecodeMessageLikeSDK(t *testing.T) {
	for _, c := range messageCases {
		checkDecodeLikeSDK(t, []byte(c))
	}
}

func checkDecodeLikeSDK(t *testing.T, raw []byte) {
	t.Helper()
	if b := bytes.TrimLeft(raw, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		checkBatchLikeSDK(t, raw)
		return
	}
	want, werr := jsonrpc.DecodeMessage(raw)
	got, gerr := decodeMessage(raw)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s:\n the SDK: %#v, %v\n the proxy: %#v, %v", raw, want, werr, got, gerr)
	}
	if werr != nil {
		return
	}
	if !sameMessage(want, got) {
		t.Fatalf("%s:\n the SDK: %#v\n the proxy: %#v", raw, want, got)
	}
}

// checkBatchLikeSDK checks a batch: read when it is not empty, each of
// its messages is one the SDK reads, and no call id is repeated; read as
// the SDK reads each message.
func checkBatchLikeSDK(t *testing.T, raw []byte) {
	t.Helper()
	got, gerr := new(lineConn).decodeFrame(raw)
	var raws []json.RawMessage
	ok := json.Unmarshal(raw, &raws) == nil && len(raws) > 0
	var want []jsonrpc.Message
	ids := map[jsonrpc.ID]bool{}
	for _, r := range raws {
		m, err := jsonrpc.DecodeMessage(r)
		if err != nil || bytes.HasPrefix(bytes.TrimLeft(r, " \t\r\n"), []byte("[")) {
			ok = false
			break
		}
		if req, isReq := m.(*jsonrpc.Request); isReq && req.IsCall() {
			if ids[req.ID] {
				ok = false
			}
			ids[req.ID] = true
		}
		want = append(want, m)
	}
	if ok != (gerr == nil) {
		t.Fatalf("%s: read %v (%v), want read %v", raw, gerr == nil, gerr, ok)
	}
	if !ok {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d", raw, len(got), len(want))
	}
	for i := range got {
		if !sameMessage(want[i], got[i]) {
			t.Fatalf("%s: message %d:\n the SDK: %#v\n the proxy: %#v", raw, i, want[i], got[i])
		}
	}
}

// sameMessage compares two messages by what they mean: raw JSON is
// compared compacted, an error by its code, message and data.
func sameMessage(a, b jsonrpc.Message) bool {
	compact := func(r []byte) string {
		var buf bytes.Buffer
		if json.Compact(&buf, r) != nil {
			return string(r)
		}
		return buf.String()
	}
	switch a := a.(type) {
	case *jsonrpc.Request:
		b, ok := b.(*jsonrpc.Request)
		return ok && a.ID == b.ID && a.Method == b.Method && compact(a.Params) == compact(b.Params)
	case *jsonrpc.Response:
		b, ok := b.(*jsonrpc.Response)
		if !ok || a.ID != b.ID || compact(a.Result) != compact(b.Result) || (a.Error == nil) != (b.Error == nil) {
			return false
		}
		if a.Error == nil {
			return true
		}
		ae, aok := a.Error.(*jsonrpc.Error)
		be, bok := b.Error.(*jsonrpc.Error)
		return aok && bok && ae.Code == be.Code && ae.Message == be.Message && compact(ae.Data) == compact(be.Data)
	}
	return false
}

// TestLineConn runs messages both ways between the proxy's connection and
// the SDK's stdio connection, and checks how a bad stream ends it.
func TestLineConn(t *testing.T) {
	ctx := context.Background()
	a, b := net.Pipe()
	sdk, err := (&mcp.IOTransport{Reader: a, Writer: a}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	own := newLineConn(b)
	defer own.Close()
	id, _ := jsonrpc.MakeID(float64(41))
	call := &jsonrpc.Request{ID: id, Method: "tools/call", Params: []byte(`{"name":"echo"}`)}
	go sdk.Write(ctx, call)
	got, err := own.Read(ctx)
	if err != nil || !sameMessage(call, got) {
		t.Fatalf("read %#v, %v; want %#v", got, err, call)
	}
	resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no"}}
	go own.Write(ctx, resp)
	back, err := sdk.Read(ctx)
	if err != nil || !sameMessage(resp, back) {
		t.Fatalf("the SDK read %#v, %v; want %#v", back, err, resp)
	}
	sdk.Close()
	if _, err := own.Read(ctx); err == nil {
		t.Fatal("a read after the peer closed succeeded")
	}

	for _, bad := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}} x` + "\n",
		"[]\n",
		`[{"jsonrpc":"2.0","id":1,"result":{}}, 1]` + "\n",
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":1,"method":"b"}]` + "\n",
		`{"jsonrpc":"2.0","id":1,"Result"` + "\n",
	} {
		a, b := net.Pipe()
		c := newLineConn(b)
		go func() { io.WriteString(a, bad); a.Close() }()
		if m, err := c.Read(ctx); err == nil {
			t.Errorf("%q: read %#v", bad, m)
		}
		c.Close()
	}
}

// TestLineConnBatch: a batch is read message by message, and the answers
// to its calls go back together, in the calls' order, once all are there.
func TestLineConnBatch(t *testing.T) {
	ctx := context.Background()
	a, b := net.Pipe()
	c := newLineConn(b)
	defer c.Close()
	go io.WriteString(a, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"two","method":"tools/list"}]`+"\n")
	var calls []*jsonrpc.Request
	for i := range 3 {
		m, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if req := m.(*jsonrpc.Request); req.IsCall() {
			calls = append(calls, req)
		}
	}
	if len(calls) != 2 || calls[0].Method != "ping" || calls[1].Method != "tools/list" {
		t.Fatalf("calls %v", calls)
	}
	done := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(a).ReadString('\n')
		done <- line
	}()
	// Answered in the other order: nothing is written until both are.
	if err := c.Write(ctx, &jsonrpc.Response{ID: calls[1].ID, Result: []byte(`{"tools":[]}`)}); err != nil {
		t.Fatal(err)
	}
	if err := c.Write(ctx, &jsonrpc.Response{ID: calls[0].ID, Result: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	want := `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"two","result":{"tools":[]}}]` + "\n"
	if got := <-done; got != want {
		t.Fatalf("wrote %s\nwant %s", got, want)
	}
}

// TestLineConnClose checks that Close unblocks a Read waiting for input.
func TestLineConnClose(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	c := newLineConn(b)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	c.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Read returned no error after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked after Close")
	}
	if err := c.Write(context.Background(), &jsonrpc.Request{Method: "x"}); err == nil {
		t.Fatal("Write after Close succeeded")
	}
}

// TestLineConnLimit checks that a message larger than maxMessageSize ends
// the connection instead of being buffered.
func TestLineConnLimit(t *testing.T) {
	a, b := net.Pipe()
	c := newLineConn(b)
	defer c.Close()
	go func() {
		io.WriteString(a, `{"jsonrpc":"2.0","id":1,"result":"`)
		io.Copy(a, io.LimitReader(zeros{}, maxMessageSize))
		a.Close()
	}()
	if _, err := c.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("got %v, want a message too large", err)
	}
}

// zeros reads as an endless run of '0'.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// FuzzDecodeMessage checks the proxy's JSON-RPC decoder against the SDK's
// on any JSON value: both refuse it, or both read the same message (or
// batch of messages). Only
// single JSON values are tried: lineConn hands decodeMessage what
// encoding/json's stream decoder read, never anything else (the SDK's
// decoder, given more, reads the first value and ignores the rest).
func FuzzDecodeMessage(f *testing.F) {
	for _, c := range messageCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		checkDecodeLikeSDK(t, raw)
	})
}
