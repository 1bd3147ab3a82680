// Package tomltext writes TOML text by hand, for the code that edits
// configuration files in place (hook's Codex installer, mcpwrap) and so
// cannot re-encode them.
package tomltext

import (
	"fmt"
	"strings"
)

// Quote quotes s as a TOML basic string: quotes and backslashes escaped,
// control characters as \uXXXX.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
