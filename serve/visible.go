package serve

import (
	"fmt"
	"strings"
	"unicode"
)

// Visible shows invisible, control and bidirectional characters as
// escapes (\u202e), as the engine's prompts do, so a person sees what will
// really run. Newlines and tabs become \n and \t.
func Visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == unicode.ReplacementChar, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			unicode.Is(unicode.Zs, r) && r != ' ', r == '\u2028', r == '\u2029',
			unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
			if r <= 0xffff {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
