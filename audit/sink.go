package audit

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrClosed is returned (wrapped) by Record on a closed sink.
var ErrClosed = errors.New("audit: sink closed")

// Sink stores audit events.
//
// The contract, which package audittest checks:
//
//   - Record and Close are safe for concurrent use by multiple goroutines.
//   - Record stores e. When it returns nil, the event is stored as durably as
//     the sink documents (for the SQLite and JSON Lines sinks: it survives
//     the process being killed). An error means the event may or may not have
//     been stored; it never means anything about the call's permission.
//   - Record reads e and nothing else: it does not modify e, and does not
//     keep e or anything it points to after returning. The caller must not
//     modify e while Record runs.
//   - Record returns an error for a nil event.
//   - If ctx is already done when Record is called, Record stores nothing and
//     returns an error wrapping ctx.Err(). If ctx ends while Record waits
//     (for a batch, a lock, I/O), Record returns promptly with an error
//     wrapping ctx.Err(); the event may still be stored.
//   - Close flushes what was accepted and releases resources. After Close,
//     Record returns an error wrapping [ErrClosed]. Calling Close again
//     returns nil.
type Sink interface {
	Record(ctx context.Context, e *Event) error
	Close() error
}

// errNilEvent is returned by the sinks of this package for a nil event.
var errNilEvent = errors.New("audit: nil event")

// Discard is a Sink that stores nothing. It never closes: Record after Close
// still succeeds, so one value can be shared.
var Discard Sink = discard{}

type discard struct{}

func (discard) Record(ctx context.Context, e *Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if e == nil {
		return errNilEvent
	}
	return nil
}

func (discard) Close() error { return nil }

// Multi returns a Sink that records every event to every one of sinks,
// concurrently. Record succeeds only if every sink succeeded; otherwise it
// returns the sinks' errors joined. Close waits for Records in progress,
// then closes every sink, so the sinks see the same events.
func Multi(sinks ...Sink) Sink {
	s := make([]Sink, 0, len(sinks))
	for _, x := range sinks {
		if x != nil {
			s = append(s, x)
		}
	}
	return &multi{sinks: s}
}

type multi struct {
	sinks []Sink
	mu    sync.RWMutex // Record holds it shared for the whole fan-out
	done  bool
}

func (m *multi) Record(ctx context.Context, e *Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if e == nil {
		return errNilEvent
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.done {
		return ErrClosed
	}
	switch len(m.sinks) {
	case 0:
		return nil
	case 1:
		return m.sinks[0].Record(ctx, e)
	}
	errs := make([]error, len(m.sinks))
	var wg sync.WaitGroup
	for i, s := range m.sinks {
		wg.Go(func() { errs[i] = s.Record(ctx, e) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (m *multi) Close() error {
	m.mu.Lock()
	if m.done {
		m.mu.Unlock()
		return nil
	}
	m.done = true
	m.mu.Unlock()
	var errs []error
	for _, s := range m.sinks {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
