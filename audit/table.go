package audit

import (
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolgate/toolgate/internal/visible"
)

// WriteTable writes events as an aligned table for a person, one event per
// line: time (UTC), decision id, session, agent, tool, outcome (with "*" when
// a person was asked) and the deciding reason. Control, invisible and
// bidirectional characters in any field are shown escaped, so an event
// cannot rewrite the terminal.
func WriteTable(w io.Writer, events []Event) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	if _, err := io.WriteString(tw, "TIME\tID\tSESSION\tAGENT\tTOOL\tOUTCOME\tREASON\n"); err != nil {
		return err
	}
	for i := range events {
		e := &events[i]
		outcome := e.Outcome.String()
		if e.Asked {
			outcome += "*"
		}
		reason := ""
		if len(e.Reasons) > 0 {
			reason = e.Reasons[0].String()
		}
		cols := []string{
			e.Time.UTC().Format(time.RFC3339Nano),
			e.ID,
			orDash(e.Session),
			orDash(e.Agent),
			e.Tool,
			outcome,
			reason,
		}
		for j, c := range cols {
			cols[j] = visible.Escape(c)
		}
		if _, err := io.WriteString(tw, strings.Join(cols, "\t")+"\n"); err != nil {
			return err
		}
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
