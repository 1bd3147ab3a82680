package serve

import (
	"sync"

	"github.com/toolgate/toolgate/store"
)

// logQueue holds the decision log entries not yet taken by the log writer.
// Requests append to it under a mutex and the writer takes all of it at
// once, so that an entry costs a request one uncontended lock and the
// writer is woken once per batch, not once per entry as a channel's
// receiver is. Safe for concurrent use.
type logQueue struct {
	mu      sync.Mutex
	notFull sync.Cond // broadcast when the writer takes the entries, and at close
	pending []store.Entry
	closed  bool
	// wake has a value when entries arrived in an empty queue; done is
	// closed by close.
	wake chan struct{}
	done chan struct{}
}

// logQueueMax is how many entries wait at most: put blocks beyond it, so
// that the log is never silently short, only slower to take more.
const logQueueMax = 8192

func newLogQueue() *logQueue {
	q := &logQueue{wake: make(chan struct{}, 1), done: make(chan struct{})}
	q.notFull.L = &q.mu
	return q
}

// put appends e, waiting while the queue is full. It reports false, and
// drops e, once the queue is closed.
func (q *logQueue) put(e store.Entry) bool {
	q.mu.Lock()
	for len(q.pending) >= logQueueMax && !q.closed {
		q.notFull.Wait()
	}
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.pending = append(q.pending, e)
	first := len(q.pending) == 1
	q.mu.Unlock()
	if first {
		select {
		case q.wake <- struct{}{}:
		default: // the writer is already told
		}
	}
	return true
}

// take returns the waiting entries and whether the queue is closed; buf
// (emptied) becomes the queue's storage for the next entries.
func (q *logQueue) take(buf []store.Entry) ([]store.Entry, bool) {
	q.mu.Lock()
	out := q.pending
	q.pending = buf[:0]
	closed := q.closed
	q.notFull.Broadcast()
	q.mu.Unlock()
	return out, closed
}

// close makes put refuse entries from now on; the writer takes what is
// left.
func (q *logQueue) close() {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.done)
		q.notFull.Broadcast()
	}
	q.mu.Unlock()
}
