// Package rule parses and prints toolgate rules: `Tool`, `Tool(specifier)`.
//
// This package knows the grammar only — where the tool pattern ends and the
// specifier begins, and which characters are allowed. What a specifier means
// depends on the kind of tool the rule names; the engine compiles it.
//
//	rule = toolpattern [ "(" specifier ")" ]
//
// The rule text is trimmed. The tool pattern is everything before the first
// "("; the specifier is everything between that "(" and the final character,
// which must then be an unescaped ")". "Tool(*)" equals "Tool".
//
// Inside the parentheses the rule is read as Claude Code 2.1 reads it: its
// escapes are removed ("\(" is "(", "\)" is ")", then "\\" is "\"), and
// spaces are kept as written. [Rule.Trimmed] gives the reading without the
// spaces that Claude keeps, which deny and ask rules also match.
package rule

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Rule is a parsed rule.
type Rule struct {
	// Text is the rule text exactly as written, trimmed.
	Text string
	// Tool is the tool pattern: a tool name, possibly with "*" globs.
	Tool string
	// Specifier is the text between the parentheses with Claude Code's
	// escapes removed ("\(" is "(", "\)" is ")", "\\" is "\"); "" when
	// there is none or when it was "*". Spaces are kept as written.
	Specifier string
	// Raw is the text between the parentheses exactly as written.
	Raw string
	// Lead is the number of bytes trimmed from the front of the original
	// text; offsets in errors count from the original text.
	Lead int
}

// HasSpecifier reports whether the rule narrows the tool with a specifier.
func (r Rule) HasSpecifier() bool { return r.Specifier != "" }

// String prints the rule in its canonical form: "Tool" or "Tool(spec)",
// with the specifier escaped as Claude Code writes it ([Escape]).
func (r Rule) String() string {
	if r.Specifier == "" {
		return r.Tool
	}
	return r.Tool + "(" + Escape(r.Specifier) + ")"
}

// SpecOffset returns the byte offset of the specifier's first character in
// the original (untrimmed) text.
func (r Rule) SpecOffset() int { return r.Lead + len(r.Tool) + 1 }

// Error is a malformed rule. Offset is the byte offset of the problem in the
// original rule text.
type Error struct {
	Offset int
	Msg    string
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// Column converts a byte offset in text into a 0-based character count, for
// positions counted in characters.
func Column(text string, offset int) int {
	if offset > len(text) {
		offset = len(text)
	}
	if offset < 0 {
		return 0
	}
	return utf8.RuneCountInString(text[:offset])
}

// ValidToolChar reports whether c may appear in a tool pattern.
func ValidToolChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '_', '.', ':', '/', '-', '*':
		return true
	}
	return false
}

// Parse parses one rule. Every malformed rule is an error with its offset:
// an empty rule, an empty specifier, a "(" without a final ")", a tool
// pattern with characters outside [A-Za-z0-9_.:/*-].
func Parse(text string) (Rule, error) {
	trimmed := strings.TrimLeft(text, " \t\r\n")
	lead := len(text) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, " \t\r\n")
	if trimmed == "" {
		return Rule{}, &Error{Offset: 0, Msg: "empty rule"}
	}
	r := Rule{Text: trimmed, Lead: lead}
	open := strings.IndexByte(trimmed, '(')
	tool := trimmed
	if open >= 0 {
		tool = trimmed[:open]
	}
	if tool == "" {
		return Rule{}, &Error{Offset: lead, Msg: "missing tool name before \"(\""}
	}
	for i := 0; i < len(tool); i++ {
		if !ValidToolChar(tool[i]) {
			c, _ := utf8.DecodeRuneInString(tool[i:])
			what := fmt.Sprintf("%q", c)
			if c == ' ' || c == '\t' {
				what = "a space"
			}
			if c == ')' {
				return Rule{}, &Error{Offset: lead + i, Msg: "\")\" without a matching \"(\""}
			}
			return Rule{}, &Error{Offset: lead + i, Msg: fmt.Sprintf("tool name contains %s; allowed are letters, digits and _ . : / - *", what)}
		}
	}
	r.Tool = tool
	if open < 0 {
		return r, nil
	}
	if trimmed[len(trimmed)-1] != ')' {
		return Rule{}, &Error{Offset: lead + len(trimmed), Msg: "rule with \"(\" must end with \")\""}
	}
	if escaped(trimmed, len(trimmed)-1) {
		// Claude Code reads "\)" as a literal parenthesis, so the rule
		// has no closing one.
		return Rule{}, &Error{Offset: lead + len(trimmed) - 2, Msg: "rule ends with an escaped \"\\)\", which is a literal parenthesis; close the rule with an unescaped \")\""}
	}
	raw := trimmed[open+1 : len(trimmed)-1]
	if strings.TrimSpace(raw) == "" {
		return Rule{}, &Error{Offset: lead + open + 1, Msg: "empty specifier; write the tool name alone to cover every call"}
	}
	r.Raw = raw
	if raw != "*" {
		r.Specifier = Unescape(raw)
	}
	return r, nil
}

// escaped reports whether s[i] is preceded by an odd number of backslashes.
func escaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// Unescape removes the escapes Claude Code writes inside a rule's
// parentheses, exactly as Claude Code 2.1 reads them: "\(" becomes "(",
// "\)" becomes ")", then "\\" becomes "\". Any other backslash is kept
// (so "\;" and "\*" reach the specifier's own grammar unchanged).
func Unescape(spec string) string {
	if !strings.Contains(spec, "\\") {
		return spec
	}
	spec = strings.ReplaceAll(spec, "\\(", "(")
	spec = strings.ReplaceAll(spec, "\\)", ")")
	return strings.ReplaceAll(spec, "\\\\", "\\")
}

// Escape is the inverse of [Unescape] as Claude Code writes rules: every
// backslash doubled and every parenthesis escaped.
func Escape(spec string) string {
	if !strings.ContainsAny(spec, "\\()") {
		return spec
	}
	var b strings.Builder
	for i := 0; i < len(spec); i++ {
		switch spec[i] {
		case '\\', '(', ')':
			b.WriteByte('\\')
		}
		b.WriteByte(spec[i])
	}
	return b.String()
}

// Padded reports whether the specifier, as written, carries spaces that
// Claude Code keeps and that make it mean something else than its trimmed
// reading: spaces next to the parentheses, or before a trailing ":*".
func (r Rule) Padded() bool {
	s := r.Specifier
	if s == "" {
		return false
	}
	return s != strings.TrimSpace(s) || strings.HasSuffix(strings.TrimRight(s, " \t"), ":*") && hasSpaceBeforePrefixStar(strings.TrimRight(s, " \t"))
}

func hasSpaceBeforePrefixStar(s string) bool {
	s = strings.TrimSuffix(s, ":*")
	return s != strings.TrimRight(s, " \t")
}

// Trimmed returns the specifier's trimmed reading: spaces next to the
// parentheses and before a trailing ":*" removed, and, when paths is set,
// spaces around each "/" too (" ** /*token*" reads "**/*token*"). It is the
// reading a deny or ask rule also matches, so that a mistyped deny does not
// fail open.
func (r Rule) Trimmed(paths bool) string {
	s := strings.TrimSpace(r.Specifier)
	if head, ok := strings.CutSuffix(s, ":*"); ok {
		if t := strings.TrimRight(head, " \t"); len(t) != len(head) {
			s = t + ":*"
		}
	}
	// Only a space can be trimmed next to a "/" (most specifiers have none:
	// they are returned as they are).
	if paths && strings.Contains(s, "/") && strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		parts := strings.Split(s, "/")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		s = strings.Join(parts, "/")
	}
	return s
}
