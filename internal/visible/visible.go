// Package visible makes text safe to show a person: every character a
// terminal or a browser would not show as itself — controls, format and
// bidirectional characters, unusual spaces, private-use, unassigned and
// invalid code points — is written as an escape, so what is shown is what
// will run.
package visible

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with newlines and tabs as \n and \t and every other
// character that would not show as itself as \uXXXX or \UXXXXXXXX. A byte
// that is not UTF-8 is shown as \ufffd. Text that needs no escape is
// returned as it is, without allocating.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if hidden(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case hidden(r):
			writeEscape(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden reports whether r would not show as itself: anything not
// printable but the ASCII space (controls, Cf — bidirectional overrides,
// zero-width characters —, Zs other than the space, line and paragraph
// separators, private-use, surrogates, unassigned code points), and the
// replacement character that stands for bytes that are not UTF-8.
func hidden(r rune) bool {
	return r == utf8.RuneError || r != ' ' && !unicode.IsPrint(r)
}

func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	digits := 4
	if r > 0xffff {
		b.WriteString(`\U`)
		digits = 8
	} else {
		b.WriteString(`\u`)
	}
	for i := digits - 1; i >= 0; i-- {
		b.WriteByte(hex[r>>(4*i)&0xf])
	}
}
