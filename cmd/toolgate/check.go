package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/toolgate/toolgate"
)

const checkUsage = `Usage:

	toolgate check [--config [SOURCE=]FILE]... [--claude] [--mode MODE] [--cwd DIR] [--home DIR]
	               [--tool NAME [--input JSON] [--agent NAME] [--server NAME]] [--json] [--exit-code]

Check decides tool calls against the policy.

With --tool, one call is decided and explained for a person (--json prints
the JSON form instead). Without --tool, standard input is JSON Lines: one
request per line, {"tool": ..., "input": {...}, "cwd": ..., "home": ...,
"read_only": ..., "agent": ..., "session": ..., "server": ..., "mode": ...};
standard output gets one JSON object per line, in the same order:
{"decision", "input" (modify, and ask with a rewrite), "reason", "reasons",
"prompt" (ask), "suggestions" (ask)}. A malformed line — not JSON, an
unknown field, an invalid mode, a blank line — is answered with a deny of
kind "invalid", and processing continues. A request's cwd, home and mode win
over --cwd, --home and --mode, which win over the process's own.

Without --config, the standard files are discovered (/etc/toolgate, the
user config directory, the project's .toolgate folder) above the built-in
default policy (default ask, read-only calls inside the workspace allowed,
safety checks on).

Exit status: 0 when every call was answered; 1 on a runtime error (standard
input cannot be read, standard output cannot be written); 2 on a usage or
configuration error (every diagnostic is printed to standard error). With
--exit-code the status reports the outcome instead — of the single call, or
the strictest of all lines: 0 allow, 10 ask, 11 deny, 12 modify.

Flags:
`

func (c *cli) check(args []string) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var (
		pf       policyFlags
		tool     = fs.String("tool", "", "decide one call of tool `NAME`")
		input    = fs.String("input", "", "the call's input, a JSON object (with --tool; default {})")
		agent    = fs.String("agent", "", "the sub-agent `NAME` making the call (with --tool)")
		server   = fs.String("server", "", "the MCP server `NAME` of the tool (with --tool)")
		asJSON   = fs.Bool("json", false, "print the decision of --tool as JSON")
		exitCode = fs.Bool("exit-code", false, "exit with 0 (allow), 10 (ask), 11 (deny) or 12 (modify)")
	)
	pf.register(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), checkUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("check: unexpected argument %q (the call is given with --tool and --input, or on standard input)", fs.Arg(0))
		return exitUsage
	}
	if *tool == "" && (*input != "" || *agent != "" || *server != "") {
		c.errorf("check: --input, --agent and --server need --tool")
		return exitUsage
	}
	ld, code := c.load(&pf, true)
	if ld == nil {
		return code
	}
	def := defaults{cwd: ld.env.cwd, home: ld.env.home, mode: ld.env.mode}

	if *tool != "" {
		call, err := flagCall(def, *tool, *input, *agent, *server)
		if err != nil {
			c.errorf("check: %v", err)
			return exitUsage
		}
		d := ld.cfg.Decide(call)
		if *asJSON {
			b, err := marshalResponse(nil, d)
			if err != nil {
				c.errorf("check: %v", err)
				return exitFailure
			}
			c.stdout.Write(b)
		} else {
			writeHuman(c.stdout, d)
		}
		if *exitCode {
			return outcomeExit(d.Outcome)
		}
		return exitOK
	}

	st, err := checkLoop(ld.cfg, def, c.stdin, c.stdout, runtime.GOMAXPROCS(0))
	if err != nil {
		c.errorf("check: %v", err)
		return exitFailure
	}
	if *exitCode && st.lines > 0 {
		return outcomeExit(st.strictest)
	}
	return exitOK
}

// parseFlags parses args; done reports that the command should stop with
// code (after --help, or on a usage error).
func parseFlags(fs *flag.FlagSet, args []string) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return exitOK, true
	}
	return exitUsage, true
}

// parseInterspersed parses args allowing flags after positional arguments
// (as "toolgate test DIR -v" is often written); "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	for {
		if code, done := parseFlags(fs, args); done {
			return nil, code, true
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, false
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), 0, false
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagCall builds the call of check --tool or explain.
func flagCall(def defaults, tool, input, agent, server string) (toolgate.Call, error) {
	call := toolgate.Call{Tool: tool, Cwd: def.cwd, Home: def.home, Mode: def.mode, Agent: agent, Server: server}
	if input != "" {
		if !json.Valid([]byte(input)) {
			var v any
			err := json.Unmarshal([]byte(input), &v)
			return call, fmt.Errorf("--input is not valid JSON: %v", err)
		}
		call.Input = json.RawMessage(input)
	}
	return call, nil
}

// outcomeExit maps an outcome to the --exit-code status.
func outcomeExit(o toolgate.Outcome) int {
	switch o {
	case toolgate.Allow:
		return exitOK
	case toolgate.Ask:
		return exitAsk
	case toolgate.Modify:
		return exitModify
	}
	return exitDeny
}

// response is one answer of check, as SPEC §10 writes it.
type response struct {
	Decision    string            `json:"decision"`
	Input       json.RawMessage   `json:"input,omitempty"`
	Reason      toolgate.Reason   `json:"reason"`
	Reasons     []toolgate.Reason `json:"reasons"`
	Prompt      string            `json:"prompt,omitempty"`
	Suggestions []string          `json:"suggestions,omitempty"`
}

// marshalResponse appends the JSON line of d to buf.
func marshalResponse(buf []byte, d toolgate.Decision) ([]byte, error) {
	r := response{
		Decision:    d.Outcome.Effective().String(),
		Reason:      d.Reason(),
		Reasons:     d.Reasons,
		Prompt:      d.Prompt,
		Suggestions: d.Suggestions,
	}
	if d.Outcome == toolgate.Modify || d.Outcome == toolgate.Ask {
		r.Input = d.Input
	}
	if r.Reasons == nil {
		r.Reasons = []toolgate.Reason{}
	}
	b, err := json.Marshal(r)
	if err != nil {
		// Never leave a line unanswered: an unencodable decision is a deny.
		b, _ = json.Marshal(response{Decision: "deny",
			Reason:  toolgate.Reason{Kind: toolgate.KindError, Message: "cannot encode the decision: " + err.Error()},
			Reasons: []toolgate.Reason{{Kind: toolgate.KindError, Message: "cannot encode the decision: " + err.Error()}}})
	}
	buf = append(buf, b...)
	return append(buf, '\n'), nil
}

// maxLine is the longest request line read; a longer line is answered with
// an invalid deny. It leaves room for an input of toolgate.MaxInputSize
// bytes (whose own limit the engine reports) and the other fields.
const maxLine = 4 << 20

// checkStats summarise a check loop.
type checkStats struct {
	lines     int
	strictest toolgate.Outcome
}

// job is one request line and its answer.
type job struct {
	line    []byte
	tooLong int // length of an over-long line, else 0
	out     []byte
	outcome toolgate.Outcome
	done    chan struct{} // closed when out is ready
}

// queueLen is how many requests may be read ahead of the answers written.
const queueLen = 1024

// checkLoop answers the JSON Lines requests of in on out, one line each, in
// order, with the one compiled cfg. A reader goroutine reads ahead, workers
// goroutines decide, and the calling goroutine writes the answers in input
// order. Output is flushed whenever the writer would otherwise wait, so a
// client may send one request at a time and wait for its answer. It returns
// an error only when in cannot be read or out cannot be written.
func checkLoop(cfg *toolgate.Policy, def defaults, in io.Reader, out io.Writer, workers int) (checkStats, error) {
	st := checkStats{strictest: toolgate.Allow}
	workers = max(workers, 1)
	order := make(chan *job, queueLen) // every job, in input order
	work := make(chan *job, queueLen)  // jobs not yet decided
	quit := make(chan struct{})        // closed when the writer gives up
	var readErr error
	go func() {
		defer close(order)
		defer close(work)
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, tooLong, err := readLine(r)
			if err != nil && !errors.Is(err, io.EOF) {
				readErr = fmt.Errorf("reading standard input: %v", err)
				return
			}
			if line != nil || tooLong > 0 {
				j := &job{line: line, tooLong: tooLong, done: make(chan struct{})}
				select {
				case order <- j:
				case <-quit:
					return
				}
				work <- j // never blocks longer than order did: work drains as fast
			}
			if err != nil {
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range work {
				decideJob(cfg, def, j)
				close(j.done)
			}
		})
	}
	w := bufio.NewWriterSize(out, 64<<10)
	var writeErr error
	for writeErr == nil {
		var j *job
		var ok bool
		select {
		case j, ok = <-order:
		default:
			writeErr = w.Flush()
			j, ok = <-order
		}
		if !ok || writeErr != nil {
			break
		}
		select {
		case <-j.done:
		default:
			writeErr = w.Flush()
			<-j.done
		}
		if writeErr == nil {
			_, writeErr = w.Write(j.out)
		}
		st.lines++
		st.strictest = toolgate.Stricter(toolgate.Decision{Outcome: st.strictest}, toolgate.Decision{Outcome: j.outcome}).Outcome
	}
	if writeErr == nil {
		writeErr = w.Flush()
	}
	if writeErr != nil {
		close(quit)
		go func() { // let the reader and the workers finish
			for range order {
			}
		}()
		return st, fmt.Errorf("writing standard output: %v", writeErr)
	}
	wg.Wait()
	if readErr != nil {
		return st, readErr
	}
	return st, nil
}

// readLine reads one line without its line ending. A line longer than
// maxLine is consumed and reported by its length in tooLong, with a nil
// line. At the end of input it returns the last line (if any) and io.EOF.
func readLine(r *bufio.Reader) (line []byte, tooLong int, err error) {
	var buf []byte
	n := 0
	for {
		frag, err := r.ReadSlice('\n')
		n += len(frag)
		if n <= maxLine {
			buf = append(buf, frag...)
		} else {
			buf = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		if errors.Is(err, io.EOF) && n == 0 {
			return nil, 0, io.EOF
		}
		if n > maxLine {
			return nil, n, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if buf == nil {
			buf = []byte{}
		}
		return buf, 0, err
	}
}

// decideJob decides one request line.
func decideJob(cfg *toolgate.Policy, def defaults, j *job) {
	var d toolgate.Decision
	switch {
	case j.tooLong > 0:
		d = toolgate.Denial(toolgate.KindInvalid, fmt.Sprintf("request line is %d bytes, over the %d-byte limit", j.tooLong, maxLine))
	case len(bytes.TrimSpace(j.line)) == 0:
		d = toolgate.Denial(toolgate.KindInvalid, "empty request line")
	default:
		call, rerr := parseRequest(j.line, def)
		if rerr != nil {
			d = toolgate.Denial(toolgate.KindInvalid, rerr.Msg)
		} else {
			d = cfg.Decide(call)
		}
	}
	j.outcome = d.Outcome.Effective()
	j.out, _ = marshalResponse(j.out[:0], d)
}
