// Package store keeps what the replicas of a toolgate decision service
// share: durable approvals, session rules and the decision log.
//
// One interface, [Store], has two implementations over one SQL schema:
// SQLite ([OpenSQLite], embedded, for a single replica) and PostgreSQL
// ([OpenPostgres], for several replicas behind a load balancer). The schema
// is versioned; migrations are applied in order when a store is opened,
// under a lock, so replicas starting together apply each one once.
//
// # Consistency
//
// Every operation that decides something is one SQL statement, so it is
// atomic on both databases: [Store.Consume] marks an approved record used
// and returns it in one UPDATE, so two replicas racing for one approval
// cannot both get it. Changes are announced to [Store.Subscribe]rs: on
// PostgreSQL through LISTEN/NOTIFY (so a session rule added on one replica
// is seen by every other at once), on SQLite within the process.
//
// # Failing closed
//
// An error from any method means "no": no approval found, nothing
// consumed. Callers turn errors in the decision path into denials.
//
// # Concurrency
//
// A Store is safe for concurrent use. Methods take a context first and
// return when it is done.
package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"
)

// State is the state of an approval.
type State string

// Approval states. Pending is the only state that can be answered; only an
// Approved record before its expiry can be consumed, once, becoming Used.
const (
	Pending  State = "pending"
	Approved State = "approved"
	Denied   State = "denied"
	Used     State = "used"
	Expired  State = "expired"
)

// Approval is one ask waiting for, or answered by, a person.
type Approval struct {
	ID string `json:"id"`
	// Digest identifies the call: tool, canonical input, working directory.
	Digest string `json:"digest"`
	Tool   string `json:"tool"`
	Input  string `json:"input"` // the input as JSON
	Cwd    string `json:"cwd"`
	// Agent is the call's sub-agent name, Session its session id and
	// Caller the name of the token that asked.
	Agent       string    `json:"agent"`
	Session     string    `json:"session"`
	Caller      string    `json:"caller"`
	Revision    string    `json:"revision"`
	Prompt      string    `json:"prompt"`
	Suggestions []string  `json:"suggestions"`
	Created     time.Time `json:"created"`
	// Expires is when the record stops counting: a pending record expires
	// unanswered, an approved one can no longer be used.
	Expires  time.Time `json:"expires"`
	State    State     `json:"state"`
	Answered time.Time `json:"answered,omitzero"`
	Approver string    `json:"approver,omitempty"`
	Note     string    `json:"note,omitempty"`
	Used     time.Time `json:"used,omitzero"`
}

// Key names the call an approval is for: the digest and who made it.
// Consume and FindPending match every field exactly.
type Key struct {
	Digest, Agent, Session, Caller string
}

// Answer is a person's answer to a pending approval.
type Answer struct {
	Approve  bool
	Approver string
	Note     string
	// Now is the time of the answer; a record that expired by then cannot
	// be answered.
	Now time.Time
	// UseBy, for an approval, is the new expiry: the time by which the call
	// must be retried. Zero keeps the record's expiry.
	UseBy time.Time
}

// SessionRule is a rule added at run time to one session ("" = every
// session).
type SessionRule struct {
	Session string    `json:"session"`
	Effect  string    `json:"effect"`
	Rule    string    `json:"rule"`
	Author  string    `json:"author,omitempty"`
	Created time.Time `json:"created,omitzero"`
}

// Entry is one line of the decision log.
type Entry struct {
	Seq   int64     `json:"seq,omitempty"`
	Time  time.Time `json:"time"`
	Event string    `json:"event"` // decision, answer or expire
	// Caller is the token name of the request; Approver the token name of
	// an answer.
	Caller  string `json:"caller,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Tool    string `json:"tool,omitempty"`
	// Server is the MCP server the tool belongs to, as the request named
	// it: "" when it named none, and in entries written before schema
	// version 2.
	Server   string `json:"server,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Outcome  string `json:"outcome"`
	Kind     string `json:"kind,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Revision string `json:"revision,omitempty"`
	Approval string `json:"approval,omitempty"`
	Approver string `json:"approver,omitempty"`
	Message  string `json:"message,omitempty"`
	Micros   int64  `json:"micros,omitempty"` // evaluation time
}

// Pruned counts what [Store.Prune] deleted.
type Pruned struct {
	Entries, Approvals int64
}

// Filter selects approvals.
type Filter struct {
	State State // "" = every state
	Limit int   // 0 = 100
}

// Topics of change notifications.
const (
	TopicApprovals = "approvals"
	TopicRules     = "rules"
)

// Errors of Answer and Approval.
var (
	ErrNotFound   = errors.New("no such approval")
	ErrNotPending = errors.New("the approval was already answered")
	ErrExpired    = errors.New("the approval has expired")
)

// Store is the shared state of the decision service.
type Store interface {
	// CreateApproval records a new pending approval.
	CreateApproval(ctx context.Context, a Approval) error
	// FindPending returns the newest pending, unexpired approval for k.
	FindPending(ctx context.Context, k Key, now time.Time) (Approval, bool, error)
	// Peek reports, in one read, whether an approved, unexpired approval
	// for k waits to be consumed, and returns the newest pending one. It
	// decides nothing: only Consume uses an approval.
	Peek(ctx context.Context, k Key, now time.Time) (approved bool, pending Approval, hasPending bool, err error)
	// Approval returns one approval, or ErrNotFound.
	Approval(ctx context.Context, id string) (Approval, error)
	// Approvals lists approvals, newest first.
	Approvals(ctx context.Context, f Filter) ([]Approval, error)
	// Answer approves or denies a pending approval that has not expired;
	// otherwise it returns ErrNotFound, ErrNotPending or ErrExpired.
	Answer(ctx context.Context, id string, ans Answer) (Approval, error)
	// Consume marks one approved, unexpired approval for k used and returns
	// it; ok is false when there is none. Each approval is consumed once.
	Consume(ctx context.Context, k Key, now time.Time) (a Approval, ok bool, err error)
	// Expire marks every pending or approved record whose expiry is not
	// after now expired, returning them.
	Expire(ctx context.Context, now time.Time) ([]Approval, error)
	// Count returns how many approvals are in state s.
	Count(ctx context.Context, s State) (int, error)

	// SessionRules returns every session rule.
	SessionRules(ctx context.Context) ([]SessionRule, error)
	// AddSessionRule adds a rule; added is false when it was there.
	AddSessionRule(ctx context.Context, r SessionRule) (added bool, err error)
	// RemoveSessionRule removes the rule with exactly r's session, effect
	// and text.
	RemoveSessionRule(ctx context.Context, r SessionRule) (removed bool, err error)

	// Log appends entries to the decision log.
	Log(ctx context.Context, entries []Entry) error
	// Entries returns the decision log entries after seq, oldest first, at
	// most limit (0 = 1000).
	Entries(ctx context.Context, after int64, limit int) ([]Entry, error)
	// Prune deletes the decision log entries from before before, and the
	// approvals that are final (used, denied or expired) and expired before
	// it. Pending and approved approvals are never pruned.
	Prune(ctx context.Context, before time.Time) (Pruned, error)

	// Subscribe returns a channel that receives a value after changes of
	// topic (coalesced: one value may stand for several changes, and one
	// is sent when a lost database connection comes back, as changes may
	// have been missed). Cancel releases it.
	Subscribe(topic string) (ch <-chan struct{}, cancel func())
	// Ping reports whether the database is reachable.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// NewID returns a fresh random approval id.
func NewID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return "ap_" + hex.EncodeToString(b[:])
}
