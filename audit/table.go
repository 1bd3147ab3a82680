package audit

import (
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"io"
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
			cols[j] = visible(c)
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

// visible escapes characters that a terminal would not show as themselves,
// and tabs (the column separator).
func visible(s string) string {
	clean := true
	for _, r := range s {
		if hidden(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hidden(r rune) bool {
	return r == '\t' || !unicode.IsPrint(r) || unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar
}
