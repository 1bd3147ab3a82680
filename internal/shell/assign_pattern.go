package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Patterns that begin with assignments.
//
// Claude Code writes "always allow" rules for a command such as
// `TZ=UTC npx vitest run` with the assignment in front:
// Bash(TZ=UTC npx vitest run:*). Claude Code 2.1 matches a prefix rule
// against the command text as written (and against readings with wrappers
// and known-safe variables stripped), so such a rule matches commands that
// start with exactly that text. Here the leading assignment words of a
// pattern are split off when it is compiled: an allow rule then needs the
// command's leading assignments to be exactly those (same names, values
// and order) and the rest of the pattern to match the command; a deny or
// ask rule matches the rest of the pattern alone, so it also matches the
// command with other assignments or none (deny widens).

// splitAssigns moves the pattern's leading assignment words into
// p.assigns and returns the words that remain. A pattern made only of
// assignments is left alone.
func (p *Pattern) splitAssigns(words []*syntax.Word, spec, src string) []*syntax.Word {
	n := 0
	for n < len(words) && isAssignPatternWord(words[n]) {
		n++
	}
	if n == 0 || n == len(words) {
		return words
	}
	a := &Pattern{spec: spec}
	for i, w := range words[:n] {
		if i > 0 {
			a.units = append(a.units, uSep)
		}
		a.units = appendPatternWord(a.units, w, src)
	}
	for _, u := range a.units {
		if u == uStar {
			a.wild = true
		}
	}
	a.lower = lowerUnits(a.units)
	p.assigns = a
	return words[n:]
}

// isAssignPatternWord reports whether a pattern word is an unquoted
// NAME=value (or NAME+=value) assignment.
func isAssignPatternWord(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	eq := strings.IndexByte(l.Value, '=')
	if eq <= 0 {
		return false
	}
	name := strings.TrimSuffix(l.Value[:eq], "+")
	return validName(name)
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// Assigns returns the pattern's leading assignments as written
// ("TZ=UTC"), or nil when it has none.
func (p *Pattern) Assigns() []string {
	if p == nil || p.assigns == nil {
		return nil
	}
	var out []string
	var b strings.Builder
	for _, u := range p.assigns.units {
		switch {
		case u == uSep:
			out = append(out, b.String())
			b.Reset()
		case u == uStar:
			b.WriteByte('*')
		case u < 256:
			b.WriteByte(byte(u))
		}
	}
	return append(out, b.String())
}

// MatchAllow reports whether the pattern, as an allow rule, matches the
// allow reading of a command: its words ([Command.Words]) and, when the
// pattern begins with assignments, exactly those leading assignments
// ([Command.AssignWords]). A wildcard inside a pattern's assignments never
// approves (a * there could span into the command).
func (p *Pattern) MatchAllow(c *Command) bool {
	if p == nil || c == nil {
		return false
	}
	if p.assigns == nil {
		return p.Match(c.Words, false)
	}
	if p.assigns.wild || len(c.AssignWords) == 0 || !p.assigns.Match(c.AssignWords, false) {
		return false
	}
	rest := *p
	rest.assigns = nil
	return rest.Match(c.Words, false)
}

// assignWord returns a leading assignment as one word, NAME=value after
// quote removal; it is not static when the value is not (or for an array).
func assignWord(a *syntax.Assign, src string) Word {
	if a.Name == nil {
		return Word{}
	}
	op := "="
	if a.Append {
		op = "+="
	}
	if a.Array != nil || a.Index != nil {
		return Word{Value: a.Name.Value + op + "(…)", Static: false}
	}
	if a.Value == nil {
		return Word{Value: a.Name.Value + op, Static: true}
	}
	v := evalWord(a.Value, src)
	return Word{Value: a.Name.Value + op + v.Value, Static: v.Static}
}
