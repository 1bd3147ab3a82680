package toolgate

import (
	"fmt"
	"strings"

	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/internal/visible"
)

// prompt says what will happen if a person approves the call.
func (cc *callCtx) prompt() string {
	switch cc.info.Kind {
	case KindShell:
		// The command was read, and analysed, for the decision.
		s := cc.anText
		if cc.an == nil {
			s, _ = cc.shellCommand()
		}
		return fmt.Sprintf("%s wants to run: %s", cc.tool, visible.Escape(s))
	case KindRead, KindList, KindSearch:
		return fmt.Sprintf("%s wants to read: %s", cc.tool, visible.Escape(cc.pathsSummary()))
	case KindEdit:
		return fmt.Sprintf("%s wants to write: %s", cc.tool, visible.Escape(cc.pathsSummary()))
	case KindFetch:
		u, _ := cc.input.Get("url").Str()
		return fmt.Sprintf("%s wants to fetch: %s", cc.tool, visible.Escape(u))
	}
	in := string(cc.doc.Root().Raw())
	return fmt.Sprintf("%s wants to run with input: %s", cc.tool, visible.Escape(truncate(in, 2000)))
}

func (cc *callCtx) pathsSummary() string {
	items, d := cc.readPaths()
	if d != nil {
		return "(unreadable paths)"
	}
	parts := make([]string, 0, len(items))
	for i := range items {
		parts = append(parts, items[i].display())
	}
	return strings.Join(parts, ", ")
}

// escapeGlob escapes path pattern metacharacters so a suggested rule names
// exactly one path.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		switch r {
		case '*', '?', '[', ']', '\\', '{', '}', '!':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// suggestPath returns the narrowest rule allowing one path.
func suggestPath(k Kind, it *pathItem) string {
	if !it.placed {
		return ""
	}
	name := "Read"
	if k == KindEdit {
		name = "Edit"
	}
	return name + "(/" + escapeGlob(it.abs) + ")"
}

// suggestShell returns the narrowest rule allowing one simple command: its
// exact words. Commands with dynamic words get no suggestion.
func suggestShell(cmd *shell.Command) string {
	if cmd.Unanalysable != "" || len(cmd.Words) == 0 {
		return ""
	}
	parts := make([]string, 0, len(cmd.Words))
	for _, w := range cmd.Words {
		if !w.Static {
			return ""
		}
		q, err := shell.Quote(w.Value)
		if err != nil {
			return ""
		}
		if q != w.Value && strings.ContainsAny(w.Value, "*") {
			return ""
		}
		parts = append(parts, q)
	}
	return "Bash(" + strings.Join(parts, " ") + ")"
}
