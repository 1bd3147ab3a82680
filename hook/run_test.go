package hook

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
)

const claudeBash = `{"session_id":"s","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t"}`

func allow(toolgate.Call) (toolgate.Decision, error) {
	return toolgate.Decision{Outcome: toolgate.Allow, Reasons: []toolgate.Reason{{Kind: toolgate.KindReadOnly}}}, nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// TestFailClosed checks that every failure is answered with the blocking
// form: exit 2, nothing on stdout, the reason on stderr.
func TestFailClosed(t *testing.T) {
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		client Client
		stdin  func() *bytes.Reader
		reader bool // use errReader
		decide func(toolgate.Call) (toolgate.Decision, error)
		opts   Options
		want   string // in stderr
		// timeout, when set, is the deadline of the call, started when the
		// subtest starts (a context made with the table would run out on a
		// slow machine before the subtest reached it).
		timeout time.Duration
	}{
		{name: "decide error", decide: func(toolgate.Call) (toolgate.Decision, error) {
			return toolgate.Decision{}, errors.New("/p/.toolgate/policy.yaml:3:7: deny must be a list\n/p/.toolgate/policy.yaml:9:1: unknown precedence")
		}, want: "policy.yaml:9:1: unknown precedence"},
		{name: "decide panics", decide: func(toolgate.Call) (toolgate.Decision, error) { panic("boom") }, want: "panic: boom"},
		{name: "decide panics under a deadline", ctx: withTimeout(time.Minute), decide: func(toolgate.Call) (toolgate.Decision, error) { panic("boom") }, want: "panic: boom"},
		{name: "audit panics", decide: allow, opts: Options{Audit: func(toolgate.Call, toolgate.Decision) { panic("disk full") }}, want: "disk full"},
		{name: "stdin error", reader: true, decide: allow, want: "broken pipe"},
		{name: "oversized", stdin: func() *bytes.Reader {
			return bytes.NewReader([]byte(`{"tool_name":"Bash","tool_input":{"command":"` + strings.Repeat("a", MaxPayload) + `"}}`))
		}, decide: allow, want: "larger than 1048576 bytes"},
		{name: "nil decide", want: "no decision function"},
		{name: "unknown client", client: "copilot", decide: allow, want: "unknown client"},
		{name: "context done", ctx: expired, decide: allow, want: "context canceled"},
		{name: "too slow", timeout: 200 * time.Millisecond, decide: func(toolgate.Call) (toolgate.Decision, error) {
			time.Sleep(time.Second)
			return toolgate.Decision{Outcome: toolgate.Allow}, nil
		}, want: "no decision in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.client
			if c == "" {
				c = Claude
			}
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			var stdin interface{ Read([]byte) (int, error) } = strings.NewReader(claudeBash)
			if tt.stdin != nil {
				stdin = tt.stdin()
			}
			if tt.reader {
				stdin = errReader{}
			}
			var stdout, stderr bytes.Buffer
			exit := Run(ctx, c, stdin, &stdout, &stderr, tt.decide, &tt.opts)
			if exit != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), tt.want) || !strings.Contains(stderr.String(), "blocked") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr with %q", exit, stdout.String(), stderr.String(), tt.want)
			}
		})
	}
}

// withTimeout returns a context that ends after d (the timer frees it).
func withTimeout(d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	time.AfterFunc(d, cancel)
	return ctx
}

func TestStdoutWriteError(t *testing.T) {
	var stderr bytes.Buffer
	if exit := Run(context.Background(), Claude, strings.NewReader(claudeBash), errWriter{}, &stderr, allow, nil); exit != 2 {
		t.Errorf("exit %d, want 2", exit)
	}
	if !strings.Contains(stderr.String(), "cannot write") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// TestNonInteractive checks that a deny ask policy reaches the engine as a
// non-interactive call, and an ask policy does not.
func TestNonInteractive(t *testing.T) {
	for _, tt := range []struct {
		c    Client
		p    AskPolicy
		want bool
	}{
		{Claude, AskDefault, false}, {Claude, AskDeny, true}, {Gemini, AskDefault, true}, {Gemini, AskAsk, false},
		{Codex, AskDefault, true}, {Codex, AskAsk, true}, {Cursor, AskDefault, false}, {Cursor, AskDeny, true},
	} {
		payload := map[Client]string{
			Claude: claudeBash,
			Codex:  claudeBash,
			Gemini: `{"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
			Cursor: `{"cwd":"/p","hook_event_name":"beforeShellExecution","command":"ls"}`,
		}[tt.c]
		var got toolgate.Call
		decide := func(c toolgate.Call) (toolgate.Decision, error) { got = c; return allow(c) }
		var stdout, stderr bytes.Buffer
		if exit := Run(context.Background(), tt.c, strings.NewReader(payload), &stdout, &stderr, decide, &Options{AskPolicy: tt.p}); exit != 0 {
			t.Fatalf("%s: exit %d: %s", tt.c, exit, stderr.String())
		}
		if got.NonInteractive != tt.want {
			t.Errorf("%s with policy %q: NonInteractive %v, want %v", tt.c, tt.p, got.NonInteractive, tt.want)
		}
	}
}

// TestEncodeNeverPermissiveOnInvalid checks every client answers an invalid
// outcome and an unknown outcome as a deny.
func TestEncodeNeverPermissiveOnInvalid(t *testing.T) {
	metas := map[Client]Meta{
		Claude: {Client: Claude, Event: "PreToolUse", Tool: "Bash"},
		Codex:  {Client: Codex, Event: "PreToolUse", Tool: "Bash"},
		Gemini: {Client: Gemini, Event: "BeforeTool", Tool: "run_shell_command"},
		Cursor: {Client: Cursor, Event: cursorShell, Tool: "Bash"},
	}
	for _, c := range Clients {
		for _, o := range []toolgate.Outcome{toolgate.Invalid, toolgate.Outcome(99), toolgate.Deny} {
			out, _, exit := Encode(c, toolgate.Decision{Outcome: o}, metas[c], nil)
			if exit != 0 || !bytes.Contains(out, []byte(`deny`)) || bytes.Contains(out, []byte(`allow`)) {
				t.Errorf("%s, outcome %d: %s (exit %d)", c, o, out, exit)
			}
		}
	}
	if _, _, exit := Encode("nope", toolgate.Decision{Outcome: toolgate.Allow}, Meta{}, nil); exit != 2 {
		t.Errorf("unknown client: exit %d, want 2", exit)
	}
}

func TestExplain(t *testing.T) {
	d := toolgate.Decision{Outcome: toolgate.Deny, Reasons: []toolgate.Reason{
		{Kind: toolgate.KindRule, Rule: "Bash(rm:*)", Effect: "deny", Source: "project", File: "/p/.toolgate/policy.yaml", Line: 4, Column: 5, Part: "rm x", Message: "no removals"},
		{Kind: toolgate.KindSafety}, {Kind: toolgate.KindDefault},
	}}
	want := `toolgate: denied: no removals on "rm x" (deny rule "Bash(rm:*)" in project /p/.toolgate/policy.yaml:4:5); a safety check applies; and 1 more`
	if got := Explain(d); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
