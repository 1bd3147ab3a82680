package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/toolgate/toolgate"
)

// Run is one hook invocation: it reads the client's payload from stdin,
// decodes it, decides it with decide, records it with opts.Audit, and
// writes the client's answer. It returns the process's exit status.
//
// It fails closed: an unreadable or oversized stdin, a payload [Decode]
// refuses, an error from decide (a configuration that does not load: its
// text, holding every diagnostic, goes to stderr), a panic anywhere, or ctx
// ending before the decision, all give exit status 2 with the reason on
// stderr and nothing on stdout. With exit status 0, stdout holds exactly
// one JSON object.
//
// Where the client cannot put a question to a person ([CanAsk]: the ask
// policy is deny, or the client's mode would not ask), the call is decided
// with NonInteractive set, so the engine's reasons say why an ask became a
// deny.
//
// When ctx can end, decide runs on its own goroutine and Run returns when
// ctx ends even if decide does not; that goroutine is then abandoned (the
// hook process is about to exit).
func Run(ctx context.Context, c Client, stdin io.Reader, stdout, stderr io.Writer, decide func(toolgate.Call) (toolgate.Decision, error), opts *Options) (exit int) {
	out, errText, exit := run(ctx, c, stdin, decide, opts.value())
	if errText != "" {
		if !strings.HasSuffix(errText, "\n") {
			errText += "\n"
		}
		io.WriteString(stderr, errText)
	}
	if exit != 0 {
		return exit
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "toolgate: cannot write the answer (%v); the call is blocked\n", err)
		return 2
	}
	return 0
}

// blocked formats a fail-closed answer.
func blocked(format string, args ...any) ([]byte, string, int) {
	return nil, "toolgate: " + fmt.Sprintf(format, args...) + "; the call is blocked", 2
}

func run(ctx context.Context, c Client, stdin io.Reader, decide func(toolgate.Call) (toolgate.Decision, error), opts Options) (out []byte, errText string, exit int) {
	defer func() {
		if r := recover(); r != nil {
			out, errText, exit = blocked("internal error: panic: %v", r)
		}
	}()
	if _, err := ParseClient(string(c)); err != nil {
		return blocked("%v", err)
	}
	if decide == nil {
		return blocked("internal error: no decision function")
	}
	payload, err := readPayload(stdin)
	if err != nil {
		return blocked("cannot read the %s hook payload: %v", c, err)
	}
	call, meta, err := Decode(c, payload)
	if err != nil {
		return blocked("cannot read the call: %v", err)
	}
	if opts.Home != "" {
		call.Home = opts.Home
	}
	if ok, _ := CanAsk(c, meta, &opts); !ok {
		call.NonInteractive = true
	}
	d, err := decideCtx(ctx, decide, call)
	if err != nil {
		return blocked("cannot decide: %v", err)
	}
	if opts.Audit != nil {
		opts.Audit(call, d)
	}
	return Encode(c, d, meta, &opts)
}

// readPayload reads stdin up to MaxPayload bytes; more is an error.
func readPayload(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no standard input")
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxPayload {
		return nil, fmt.Errorf("larger than %d bytes", MaxPayload)
	}
	return b, nil
}

type result struct {
	d     toolgate.Decision
	err   error
	panic any
}

// decideCtx calls decide, stopping at ctx's end when ctx can end.
func decideCtx(ctx context.Context, decide func(toolgate.Call) (toolgate.Decision, error), call toolgate.Call) (toolgate.Decision, error) {
	if ctx == nil || ctx.Done() == nil {
		return decide(call)
	}
	if err := ctx.Err(); err != nil {
		return toolgate.Decision{}, err
	}
	ch := make(chan result, 1)
	go func() {
		var res result
		defer func() {
			if r := recover(); r != nil {
				res = result{panic: r}
			}
			ch <- res
		}()
		res.d, res.err = decide(call)
	}()
	select {
	case res := <-ch:
		if res.panic != nil {
			return toolgate.Decision{}, fmt.Errorf("internal error: panic: %v", res.panic)
		}
		return res.d, res.err
	case <-ctx.Done():
		return toolgate.Decision{}, fmt.Errorf("no decision in time: %w", ctx.Err())
	}
}
