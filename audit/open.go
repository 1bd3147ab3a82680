package audit

import (
	"encoding/json"
	"time"

	"github.com/toolgate/toolgate"
)

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
		Server:      c.Server,
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
