package mcpgate

// The proxy's own stdio framing for the servers it starts. The SDK's
// CommandTransport reads each message with encoding/json and then decodes
// it twice or three times more (as a batch, as a message, a request's
// method name), each time through a decoder that allocates a 32 KB buffer:
// most of the bytes, and much of the garbage collection, of a relayed
// call. lineConn reads each message once more, with encoding/json, into
// the SDK's own message types, so the SDK sees what it would have decoded.
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

// pipeTransport is a lineConn over an existing stream (tests, and
// benchmarks, over net.Pipe).
type pipeTransport struct{ rwc io.ReadWriteCloser }

func (t pipeTransport) Connect(context.Context) (mcp.Connection, error) {
	return newLineConn(t.rwc), nil
}

// lineConn is a JSON-RPC connection over newline-delimited JSON. A
// message that cannot be read ends the connection, as it does the SDK's.
type lineConn struct {
	rwc       io.ReadWriteCloser
	incoming  chan frame
	closed    chan struct{}
	closeOnce sync.Once
	closeErr  error
	writeMu   sync.Mutex
}

// frame is one message read, or why none could be.
type frame struct {
	msg jsonrpc.Message
	err error
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
		var msg jsonrpc.Message
		if err == nil {
			msg, err = decodeMessage(raw)
		}
		select {
		case c.incoming <- frame{msg, err}:
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
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case f := <-c.incoming:
		return f.msg, f.err
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write sends one message on its own line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	data, err := jsonrpc.EncodeMessage(msg)
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
// "method" is present and a response otherwise. A batch (a JSON array) is
// refused: MCP has no batches since 2025-06-18, and a server has no reason
// to send one to its client.
func decodeMessage(raw []byte) (jsonrpc.Message, error) {
	if b := bytes.TrimLeft(raw, " \t\r\n"); len(b) > 0 && b[0] == '[' {
		return nil, errors.New("the server sent a JSON-RPC batch, which MCP does not allow")
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
