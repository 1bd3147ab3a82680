// Package store keeps what the replicas of a toolgate decision service
// share: durable approvals, session rules and the decision log.
//
// One interface, [Store], has two implementations over one SQL schema:
// SQLite ([OpenSQLite], embedded, for a single replica) and PostgreSQL
// ([OpenPostgres], for several replicas behind a load balancer). The schema
// is versioned; migrations are applied in order when a store is opened,
// under a lock, so replicas starting together apply each one once.
//
// Webhook deliveries are rows too ([Delivery]): recorded with the approval
// they announce, in its transaction, then leased by one replica at a time
// ([Store.ClaimDeliveries], [Store.SaveDelivery]), so that a delivery
// survives a restart and only its current holder sends it.
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
	Agent   string `json:"agent"`
	Session string `json:"session"`
	Caller  string `json:"caller"`
	// Server is the MCP server the call named ("" when it named none, and
	// in records made before schema version 3).
	Server      string    `json:"server,omitempty"`
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

// Key names the call an approval is for: the digest, who made it and the
// MCP server it named. Consume, Peek and FindPending match every field
// exactly, so an approval for one server's tool never lets through the
// same tool name on another server.
type Key struct {
	Digest, Agent, Session, Caller, Server string
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
	Event string    `json:"event"` // decision, answer, expire or session_rule
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

// EntryFilter selects decision log entries for [Store.QueryEntries]. Every
// string field that is not empty must match exactly.
type EntryFilter struct {
	// Since (inclusive) and Until (exclusive) bound the entries' time; zero
	// means unbounded.
	Since, Until                                time.Time
	Event, Caller, Agent, Session, Tool, Server string
	Outcome, Approval                           string
	// Newest returns the newest entries first (and Limit keeps the newest).
	Newest bool
	// Limit is the most entries returned; 0 = all.
	Limit int
}

// Pruned counts what [Store.Prune] deleted.
type Pruned struct {
	Entries, Approvals, Deliveries int64
}

// DeliveryState is the state of a webhook delivery.
type DeliveryState string

// Delivery states. Pending is the only state that changes: a delivery is
// Delivered once a receiver accepted it, and Failed when it was refused,
// ran out of attempts or time, or its approval was no longer waiting.
const (
	DeliveryPending   DeliveryState = "pending"
	DeliveryDelivered DeliveryState = "delivered"
	DeliveryFailed    DeliveryState = "failed"
)

// Delivery is one webhook delivery: an event about an approval, posted to
// a URL until it is delivered or given up. A pending delivery is held by at
// most one replica at a time: Owner holds it until LeaseUntil.
type Delivery struct {
	ID       string `json:"id"` // the same in every attempt
	Approval string `json:"approval"`
	Event    string `json:"event"` // approval.requested
	URL      string `json:"url"`
	// Body is the request body, exactly as every attempt sends it.
	Body  string        `json:"-"`
	State DeliveryState `json:"state"`
	// Attempts counts the requests made, across restarts and replicas.
	Attempts int `json:"attempts"`
	// LastStatus is the HTTP status of the last attempt (0 when it got no
	// answer), LastError what went wrong with it ("" when it worked).
	LastStatus  int       `json:"last_status,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	Created     time.Time `json:"created"`
	LastAttempt time.Time `json:"last_attempt,omitzero"`
	// Next is when a pending delivery may be attempted again.
	Next time.Time `json:"next_attempt,omitzero"`
	// Expires is when a pending delivery stops being worth sending (its
	// approval's expiry): then it fails.
	Expires   time.Time `json:"expires"`
	Delivered time.Time `json:"delivered,omitzero"`
	// Owner names the replica that holds (or last held) the delivery, and
	// LeaseUntil is when its hold ends; zero means no one holds it.
	Owner      string    `json:"owner,omitempty"`
	LeaseUntil time.Time `json:"lease_until,omitzero"`
}

// Claim asks [Store.ClaimDeliveries] for due deliveries.
type Claim struct {
	// URL is the webhook the claimer posts to: only deliveries to it are
	// claimed.
	URL string
	// Owner is the claimer's name; Until is when its lease ends.
	Owner string
	Now   time.Time
	Until time.Time
	// Limit is the most deliveries claimed (0 = 10).
	Limit int
}

// DeliveryFilter selects webhook deliveries.
type DeliveryFilter struct {
	State    DeliveryState // "" = every state
	Approval string        // "" = every approval
	Limit    int           // 0 = 100
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
	// CreateApproval records a new pending approval and, in the same
	// transaction, the webhook deliveries that announce it.
	CreateApproval(ctx context.Context, a Approval, announce ...Delivery) error
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
	// QueryEntries returns the decision log entries f selects, oldest
	// first unless f.Newest.
	QueryEntries(ctx context.Context, f EntryFilter) ([]Entry, error)
	// Prune deletes the decision log entries from before before, the
	// approvals that are final (used, denied or expired) and expired before
	// it, and the final (delivered or failed) webhook deliveries created
	// before it. Pending and approved approvals and pending deliveries are
	// never pruned.
	Prune(ctx context.Context, before time.Time) (Pruned, error)

	// ClaimDeliveries leases to c.Owner, until c.Until, the pending
	// deliveries to c.URL that are due (Next not after c.Now) and that no
	// one holds (LeaseUntil not after c.Now), oldest due first, and returns
	// them with their bodies. Two claimers never get the same delivery
	// while its lease runs.
	ClaimDeliveries(ctx context.Context, c Claim) ([]Delivery, error)
	// SaveDelivery writes the progress of a pending delivery — state,
	// attempts, last status and error, last attempt, next attempt,
	// delivered time and lease — if d.Owner still holds it. ok is false,
	// and nothing is written, when the delivery is no longer pending or
	// another owner claimed it since.
	SaveDelivery(ctx context.Context, d Delivery) (ok bool, err error)
	// Deliveries lists deliveries, newest first, without their bodies.
	Deliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, error)
	// ExpireDeliveries fails every pending delivery whose expiry is not
	// after now and that no one holds, returning how many.
	ExpireDeliveries(ctx context.Context, now time.Time) (int64, error)
	// CountDeliveries returns how many deliveries are in state s.
	CountDeliveries(ctx context.Context, s DeliveryState) (int, error)

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

// NewDeliveryID returns a fresh random webhook delivery id.
func NewDeliveryID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return "dl_" + hex.EncodeToString(b[:])
}
