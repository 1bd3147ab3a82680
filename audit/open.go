package audit

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolgate/toolgate"
)

// Open opens the audit log at path for recording: an SQLite database when
// the name ends in .db, .sqlite or .sqlite3, otherwise a JSON Lines file
// that events are appended to.
func Open(path string) (Sink, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".db", ".sqlite", ".sqlite3":
		return OpenSQLite(path, nil)
	}
	return CreateJSONL(path, true)
}

// NewEvent builds the event for one decision: a fresh id, the time, the
// input's digest and a redacted copy (DefaultRedactor when red is nil), the
// outcome and reasons, the mode and the policy revision.
func NewEvent(c toolgate.Call, d toolgate.Decision, eval time.Duration, revision string, red Redactor) *Event {
	if red == nil {
		red = DefaultRedactor
	}
	in := c.Input
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	e := &Event{
		ID:          NewID(),
		Time:        time.Now().UTC(),
		Session:     c.Session,
		Agent:       c.Agent,
		Tool:        c.Tool,
		InputDigest: Digest(in),
		Input:       red(c.Tool, in),
		Outcome:     d.Outcome.Effective(),
		Reasons:     d.Reasons,
		Revision:    revision,
		EvalTime:    eval,
	}
	if d.Input != nil {
		e.Rewritten = red(c.Tool, d.Input)
	}
	if c.Mode != nil {
		e.Mode = c.Mode.String()
	}
	return e
}
