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
// which must then be ")". "Tool(*)" equals "Tool".
package rule

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Rule is a parsed rule.
type Rule struct {
	// Text is the rule text exactly as written, trimmed.
	Text string
	// Tool is the tool pattern: a tool name, possibly with "*" globs.
	Tool string
	// Specifier is the text between the parentheses; "" when there is none
	// or when it was "*".
	Specifier string
	// Lead is the number of bytes trimmed from the front of the original
	// text; offsets in errors count from the original text.
	Lead int
}

// HasSpecifier reports whether the rule narrows the tool with a specifier.
func (r Rule) HasSpecifier() bool { return r.Specifier != "" }

// String prints the rule in its canonical form: "Tool" or "Tool(spec)".
func (r Rule) String() string {
	if r.Specifier == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Specifier + ")"
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
	spec := trimmed[open+1 : len(trimmed)-1]
	if strings.TrimSpace(spec) == "" {
		return Rule{}, &Error{Offset: lead + open + 1, Msg: "empty specifier; write the tool name alone to cover every call"}
	}
	if spec != "*" {
		r.Specifier = spec
	}
	return r, nil
}
