package serve

import "github.com/toolgate/toolgate/internal/visible"

// Visible shows invisible, control and bidirectional characters as
// escapes (\u202e), as the engine's prompts do, so a person sees what will
// really run. Newlines and tabs become \n and \t.
func Visible(s string) string { return visible.Escape(s) }
