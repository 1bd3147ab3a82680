package mcpgate

// The proxy's own stdio framing: for the servers it starts, and for a
// client on its standard input and output. The SDK's stdio connection
// reads each message with encoding/json and then decodes it twice or three
// times more (as a batch, as a message, a request's method name), each
// time through a decoder that allocates a 32 KB buffer: most of the bytes,
// and much of the garbage collection, of a relayed call. lineConn reads
// each message once more, with encoding/json, into the SDK's own message
// types, so the SDK sees what it would have decoded.
// It is a transport (mcp.Transport and mcp.Connection are the SDK's public
// extension points), not a second MCP implementation: sessions,
// requests and results are still the SDK's.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessageSize bounds one message read from a server, as the SDK's
// DefaultMaxLineLength does for its own stdio connections.
const maxMessageSize = mcp.DefaultMaxLineLength

// commandTransport starts a server's command and speaks newline-delimited
// JSON-RPC with it over its standard input and output, as the SDK's
// CommandTransport does, closing it the same way: standard input closed,
// then SIGTERM after terminate, then SIGKILL.
type commandTransport struct {
	cmd       *exec.Cmd
	terminate time.Duration
}

// Connect starts the command.
func (t *commandTransport) Connect(context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	return newLineConn(&processRWC{cmd: t.cmd, stdout: stdout, stdin: stdin, terminate: t.terminate}), nil
}

// processRWC is a started command's standard output and input; Close ends
// the process.
type processRWC struct {
	cmd       *exec.Cmd
	stdout    io.Reader
	stdin     io.WriteCloser
	terminate time.Duration
}

func (p *processRWC) Read(b []byte) (int, error)  { return p.stdout.Read(b) }
func (p *processRWC) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close closes the command's standard input and waits for it to exit:
// terminate, then again after SIGTERM, then it is killed. Standard output
// is not closed here: Wait closes it once the process has exited.
func (p *processRWC) Close() error {
	if err := p.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-exited:
			return err, true
		case <-time.After(p.terminate):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if p.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("the server's process does not exit")
}

// NewIOTransport returns a transport that speaks newline-delimited
// JSON-RPC over r and w, as mcp.IOTransport does, with the proxy's own
// framing (it reads each message with fewer decodes than the SDK's): for
// serving the proxy to a client on standard input and output. Closing the
// connection closes r and w. It may be connected once.
func NewIOTransport(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
	return pipeTransport{readWriteCloser{r, w}}
}

// readWriteCloser joins a reader and a writer; Close closes both.
type readWriteCloser struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (c readWriteCloser) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c readWriteCloser) Write(p []byte) (int, error) { return c.w.Write(p) }
func (c readWriteCloser) Close() error                { return errors.Join(c.r.Close(), c.w.Close()) }

// pipeTransport is a lineConn over an existing stream.
type pipeTransport struct{ rwc io.ReadWriteCloser }

func (t pipeTransport) Connect(context.Context) (mcp.Connection, error) {
	return newLineConn(t.rwc), nil
}

// lineConn is a JSON-RPC connection over newline-delimited JSON. A
// message that cannot be read ends the connection, as it does the SDK's.
// A batch (a JSON array of messages, which MCP allowed before 2025-06-18)
// is read message by message, and the responses to its calls are written
// together as one array once the last is ready, as the SDK's connection
// does; unlike it, a batch is read whatever protocol the session speaks
// (the connection is not told), and a notification in a batch waits for no
// response. Each message of a batch is handled, and each call decided, on
// its own.
type lineConn struct {
	rwc       io.ReadWriteCloser
	incoming  chan frame
	queue     []jsonrpc.Message // the rest of the last batch (Read only)
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
	writeMu   sync.Mutex

	batchMu sync.Mutex
	batches map[jsonrpc.ID]*batch // a batch's calls not yet answered
}

// frame is what one line held: a message, a batch, or why it is neither.
type frame struct {
	msgs []jsonrpc.Message
	err  error
}

// batch gathers the responses to the calls of one batch read.
type batch struct {
	index     map[jsonrpc.ID]int // call id → its place in responses
	left      int
	responses []*jsonrpc.Response
}

func newLineConn(rwc io.ReadWriteCloser) *lineConn {
	c := &lineConn{rwc: rwc, incoming: make(chan frame), closed: make(chan struct{})}
	// Reads happen in their own goroutine so that Close unblocks Read.
	go c.readLoop()
	return c
}

func (c *lineConn) readLoop() {
	lim := &limitReader{r: c.rwc, left: maxMessageSize}
	dec := json.NewDecoder(lim)
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == nil {
			// A message ends its line (the SDK's own rule).
			var next [1]byte
			if n, rerr := dec.Buffered().Read(next[:]); n > 0 && next[0] != '\n' && next[0] != '\r' {
				err = errors.New("invalid trailing data after a message")
			} else if n == 0 && rerr != nil && rerr != io.EOF {
				err = rerr
			}
		}
		var msgs []jsonrpc.Message
		if err == nil {
			msgs, err = c.decodeFrame(raw)
		}
		select {
		case c.incoming <- frame{msgs, err}:
		case <-c.closed:
			return
		}
		if err != nil {
			return
		}
		lim.left = maxMessageSize
	}
}

// Read returns the next message.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	default:
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case f := <-c.incoming:
		if f.err != nil {
			return nil, f.err
		}
		c.queue = f.msgs[1:]
		return f.msgs[0], nil
	case <-c.closed:
		return nil, io.EOF
	}
}

// decodeFrame reads one line's value: a message, or a batch of them (whose
// calls it records, to answer them together).
func (c *lineConn) decodeFrame(raw []byte) ([]jsonrpc.Message, error) {
	if b := bytes.TrimLeft(raw, " \t\r\n"); len(b) == 0 || b[0] != '[' {
		m, err := decodeMessage(raw)
		if err != nil {
			return nil, err
		}
		return []jsonrpc.Message{m}, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc batch: %v", err)
	}
	if len(raws) == 0 {
		return nil, errors.New("empty batch")
	}
	msgs := make([]jsonrpc.Message, 0, len(raws))
	b := &batch{index: map[jsonrpc.ID]int{}}
	for _, r := range raws {
		m, err := decodeMessage(r)
		if err != nil {
			return nil, err
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := b.index[req.ID]; dup {
				return nil, fmt.Errorf("duplicate message ID %v in a batch", req.ID.Raw())
			}
			b.index[req.ID] = len(b.responses)
			b.responses = append(b.responses, nil)
		}
		msgs = append(msgs, m)
	}
	if b.left = len(b.responses); b.left > 0 {
		c.batchMu.Lock()
		defer c.batchMu.Unlock()
		for id := range b.index {
			if _, ok := c.batches[id]; ok {
				return nil, fmt.Errorf("a batch repeats the ID %v of a call not yet answered", id.Raw())
			}
		}
		if c.batches == nil {
			c.batches = map[jsonrpc.ID]*batch{}
		}
		for id := range b.index {
			c.batches[id] = b
		}
	}
	return msgs, nil
}

// inBatch records a response to a call read in a batch. It reports whether
// it was one, and returns the batch's responses once all are there.
func (c *lineConn) inBatch(resp *jsonrpc.Response) ([]*jsonrpc.Response, bool) {
	c.batchMu.Lock()
	defer c.batchMu.Unlock()
	b, ok := c.batches[resp.ID]
	if !ok {
		return nil, false
	}
	delete(c.batches, resp.ID)
	b.responses[b.index[resp.ID]] = resp
	if b.left--; b.left > 0 {
		return nil, true
	}
	return b.responses, true
}

// Write sends one message on its own line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	var data []byte
	var err error
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if all, in := c.inBatch(resp); in {
			if all == nil {
				return nil // the batch's other calls are not answered yet
			}
			raws := make([]json.RawMessage, len(all))
			for i, r := range all {
				if raws[i], err = jsonrpc.EncodeMessage(r); err != nil {
					return fmt.Errorf("marshaling message: %v", err)
				}
			}
			data, err = json.Marshal(raws)
		}
	}
	if data == nil && err == nil {
		data, err = jsonrpc.EncodeMessage(msg)
	}
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	data = append(data, '\n')
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.rwc.Write(data)
	return err
}

// Close closes the stream; it may be called more than once.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.rwc.Close()
		close(c.closed)
	})
	return c.closeErr
}

// SessionID is "": a stdio connection has no session id.
func (c *lineConn) SessionID() string { return "" }

// errMessageTooLarge ends a connection whose peer sent a message larger
// than maxMessageSize.
var errMessageTooLarge = fmt.Errorf("a message larger than %d bytes", maxMessageSize)

// limitReader fails once left bytes have been read (reset per message).
type limitReader struct {
	r    io.Reader
	left int
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, errMessageTooLarge
	}
	if len(p) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= n
	return n, err
}

// decodeMessage reads one JSON-RPC message as the SDK's
// jsonrpc.DecodeMessage does: exact (case-sensitive) member names, the
// version "2.0", an id that is a number, a string or absent, a request when
// "method" is present and a response otherwise. An array is not a message
// (decodeFrame reads batches).
func decodeMessage(raw []byte) (jsonrpc.Message, error) {
	if b := bytes.TrimLeft(raw, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		return nil, errors.New("unmarshaling jsonrpc message: an array is not a message")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %v", err)
	}
	if m == nil {
		return nil, errors.New("unmarshaling jsonrpc message: not an object")
	}
	var version string
	if err := json.Unmarshal(m["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %s; expected \"2.0\"", m["jsonrpc"])
	}
	var idv any
	if raw, ok := m["id"]; ok {
		if err := json.Unmarshal(raw, &idv); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message id: %v", err)
		}
	}
	id, err := jsonrpc.MakeID(idv)
	if err != nil {
		return nil, err
	}
	if rawMethod, ok := m["method"]; ok {
		var method string
		if err := json.Unmarshal(rawMethod, &method); err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: method: %v", err)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: m["params"]}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("invalid request: a response without an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: m["result"]}
	if rawErr, ok := m["error"]; ok && string(bytes.TrimSpace(rawErr)) != "null" {
		we, err := decodeError(rawErr)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: error: %v", err)
		}
		resp.Error = we
	}
	return resp, nil
}

// decodeError reads a response's error object with exact member names.
func decodeError(raw []byte) (*jsonrpc.Error, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var we jsonrpc.Error
	for k, dst := range map[string]any{"code": &we.Code, "message": &we.Message} {
		if v, ok := m[k]; ok {
			if err := json.Unmarshal(v, dst); err != nil {
				return nil, fmt.Errorf("%s: %v", k, err)
			}
		}
	}
	we.Data = m["data"]
	return &we, nil
}
