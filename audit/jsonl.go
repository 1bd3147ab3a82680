package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// JSONL is a Sink that writes one JSON object per line.
//
// Each Record writes its whole line with one Write call on the underlying
// writer, under a lock. For a file opened by [CreateJSONL], Record returns
// after the write system call: the event survives the process being killed.
// With Sync it also survives power loss (an fsync per event, much slower).
type JSONL struct {
	mu     sync.Mutex
	w      io.Writer
	file   *os.File // owned, closed by Close; nil for NewJSONL
	sync   bool
	closed bool
}

// NewJSONL returns a sink writing to w. Close does not close w.
func NewJSONL(w io.Writer) *JSONL { return &JSONL{w: w} }

// CreateJSONL opens (creating, appending) the file at path with mode 0600
// and returns a sink writing to it. With sync, every Record fsyncs the file
// before returning.
func CreateJSONL(path string, sync bool) (*JSONL, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return &JSONL{w: f, file: f, sync: sync}, nil
}

// Record writes e as one line.
func (s *JSONL) Record(ctx context.Context, e *Event) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if e == nil {
		return errNilEvent
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: encoding event: %w", err)
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if _, err := s.w.Write(line); err != nil {
		return fmt.Errorf("audit: writing event: %w", err)
	}
	if s.sync && s.file != nil {
		if err := s.file.Sync(); err != nil {
			return fmt.Errorf("audit: syncing: %w", err)
		}
	}
	return nil
}

// Close closes the file opened by CreateJSONL, if any.
func (s *JSONL) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.file != nil {
		return s.file.Close()
	}
	return nil
}

// WriteJSONL writes events as JSON Lines, the format of [JSONL] and of
// `toolgate audit --json`.
func WriteJSONL(w io.Writer, events []Event) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadJSONL reads events written as JSON Lines. A torn last line (a write
// cut short) is an error naming its line.
func ReadJSONL(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("audit: line %d: %w", n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
