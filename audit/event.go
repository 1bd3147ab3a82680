// Package audit records toolgate decisions.
//
// Every decision the gate resolves can become an [Event]: a decision id, the
// time, session, agent and tool, a digest and a redacted copy of the input,
// the outcome after asking, the reasons, the mode, the policy revision and
// the evaluation time.
//
// Events go to a [Sink], shaped like log/slog's Handler: a small interface
// with a documented concurrency contract, a [Discard] sink, a fan-out sink
// ([Multi]) and a JSON Lines sink ([JSONL]). The SQLite sink, which can be
// queried, is package audit/sqlite, so that importing audit brings in no
// database driver. Package audittest holds a conformance suite any Sink
// must pass.
//
// Auditing never makes a call more permissive: a sink that fails cannot turn
// a deny into an allow. Whether a failing sink also blocks calls is the
// gate's choice.
package audit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/toolgate/toolgate"
)

// Event records one resolved decision.
type Event struct {
	// ID is the decision id: 128 random bits in lower-case hex.
	ID string `json:"id"`
	// Time is when the call reached the gate.
	Time time.Time `json:"time"`
	// Session is the session id, if any.
	Session string `json:"session,omitempty"`
	// Agent names the sub-agent that made the call, if any.
	Agent string `json:"agent,omitempty"`
	// Server is the MCP server the tool belongs to, when the host knows it
	// (the MCP gateway always does).
	Server string `json:"server,omitempty"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// InputDigest is the SHA-256 of the input bytes as received, in hex.
	InputDigest string `json:"input_digest"`
	// Input is a redacted copy of the input (see [Redactor]).
	Input json.RawMessage `json:"input,omitempty"`
	// Rewritten is a redacted copy of the input the tool ran with, when a
	// rewrite (Modify) changed it.
	Rewritten json.RawMessage `json:"rewritten,omitempty"`
	// Outcome is the outcome after asking: Allow, Modify or Deny (Ask only
	// if a host records an unresolved decision).
	Outcome toolgate.Outcome `json:"outcome"`
	// Asked reports whether an approver was consulted (or would have been:
	// a non-interactive ask counts).
	Asked bool `json:"asked,omitempty"`
	// Reasons explain the outcome; the deciding reason is first.
	Reasons []toolgate.Reason `json:"reasons,omitempty"`
	// Mode is the session mode named by the call, if any.
	Mode string `json:"mode,omitempty"`
	// Revision identifies the policy that decided (given by the host, e.g.
	// a hash of the loaded configuration).
	Revision string `json:"revision,omitempty"`
	// EvalTime is how long checking took, excluding the wait for a person.
	EvalTime time.Duration `json:"eval_ns"`
	// Latency, when the host measures it, is the whole time the host spent
	// on the call: checking, asking and running it (for the MCP gateway,
	// the upstream server's answer included).
	Latency time.Duration `json:"latency_ns,omitempty"`
}

// NewID returns a new random decision id: 128 bits in lower-case hex.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+).
	return hex.EncodeToString(b[:])
}

// Digest returns the SHA-256 of input in lower-case hex.
func Digest(input []byte) string {
	sum := sha256.Sum256(input)
	return hex.EncodeToString(sum[:])
}

// Clone returns a deep copy of e.
func (e *Event) Clone() *Event {
	if e == nil {
		return nil
	}
	c := *e
	c.Input = append(json.RawMessage(nil), e.Input...)
	c.Rewritten = append(json.RawMessage(nil), e.Rewritten...)
	if e.Input == nil {
		c.Input = nil
	}
	if e.Rewritten == nil {
		c.Rewritten = nil
	}
	c.Reasons = append([]toolgate.Reason(nil), e.Reasons...)
	return &c
}
