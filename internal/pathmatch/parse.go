package pathmatch

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxAlternatives bounds the brace expansion of a pattern or a glob.
const maxAlternatives = 256

// MaxPatternLen is the longest pattern text Compile accepts, in bytes.
const MaxPatternLen = 4096

// maxGlobLen is the longest glob MayMatchGlob analyses; a longer one may
// match anything.
const maxGlobLen = 16 << 10

// PatternError is a malformed path pattern. Offset is the byte offset inside
// the pattern text of the problem; for a problem found only after "{a,b}"
// expansion (".." after a wildcard, "~user" inside braces) it is 0 and Msg
// names the alternative.
type PatternError struct {
	Offset int
	Msg    string
}

// Error implements error.
func (e *PatternError) Error() string {
	return "path pattern: offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

func perr(off int, msg string) *PatternError { return &PatternError{Offset: off, Msg: msg} }

// escapable reports whether a backslash may precede c in a pattern: ASCII
// punctuation (the glob characters among them) and space, but not '/'. A
// backslash before a letter or digit is most likely a Windows separator
// written by mistake, and a rule that silently means something else must not
// load.
func escapable(c byte) bool {
	switch {
	case c == ' ':
		return true
	case c == '/':
		return false
	case '!' <= c && c <= '/', ':' <= c && c <= '@', '[' <= c && c <= '`', '{' <= c && c <= '~':
		return true
	}
	return false
}

// validate checks the syntax of a whole pattern text (before brace expansion)
// and reports the first problem with its offset.
func validate(s string) *PatternError {
	var opens []int
	for i := 0; i < len(s); {
		switch s[i] {
		case 0:
			return perr(i, "NUL character in pattern")
		case '\\':
			if i+1 == len(s) {
				return perr(i, "trailing backslash")
			}
			if !escapable(s[i+1]) {
				return perr(i, "bad escape \\"+string(rune(s[i+1]))+": only punctuation (glob characters) can be escaped; paths use '/'")
			}
			i += 2
		case '[':
			_, end, err := parseClass(s, i, true)
			if err != nil {
				return err
			}
			i = end + 1
		case '{':
			opens = append(opens, i)
			i++
		case '}':
			if len(opens) > 0 {
				opens = opens[:len(opens)-1]
			}
			i++
		default:
			i++
		}
	}
	if len(opens) > 0 {
		return perr(opens[len(opens)-1], "unterminated {")
	}
	return nil
}

// classEnd returns the index of the ']' closing the bracket expression that
// starts at s[i], or -1.
func classEnd(s string, i int) int {
	_, end, err := parseClass(s, i, false)
	if err != nil {
		return -1
	}
	return end
}

// parseClass parses the bracket expression starting at s[i] == '['. It returns
// the class and the index of its closing ']'. strict applies the pattern
// rules (escapes, no '/', known [:name:] classes, ordered ranges).
func parseClass(s string, i int, strict bool) (*class, int, *PatternError) {
	c := &class{}
	j := i + 1
	if j < len(s) && (s[j] == '!' || s[j] == '^') {
		c.negated = true
		j++
	}
	first := true
	for {
		if j >= len(s) {
			return nil, -1, perr(i, "unterminated [")
		}
		ch := s[j]
		if ch == ']' && !first {
			return c, j, nil
		}
		first = false
		if ch == '/' {
			return nil, -1, perr(j, "'/' inside [...]: a class matches within one path component")
		}
		if ch == 0 {
			return nil, -1, perr(j, "NUL character in pattern")
		}
		if ch == '[' && j+1 < len(s) && s[j+1] == ':' {
			if k := strings.Index(s[j+2:], ":]"); k >= 0 {
				name := s[j+2 : j+2+k]
				f, ok := namedClasses[name]
				if !ok {
					if strict {
						return nil, -1, perr(j, "unknown character class [:"+name+":]")
					}
					f = func(rune) bool { return true }
				}
				c.named = append(c.named, f)
				j += 2 + k + 2
				continue
			}
		}
		lo, w, err := classRune(s, j, strict)
		if err != nil {
			return nil, -1, err
		}
		start := j
		j += w
		if j+1 < len(s) && s[j] == '-' && s[j+1] != ']' {
			hi, w2, err := classRune(s, j+1, strict)
			if err != nil {
				return nil, -1, err
			}
			if s[j+1] == '/' {
				return nil, -1, perr(j+1, "'/' inside [...]: a class matches within one path component")
			}
			j += 1 + w2
			if hi < lo {
				if strict {
					return nil, -1, perr(start, "invalid range in [...]")
				}
				lo, hi = hi, lo
			}
			c.ranges = append(c.ranges, runeRange{lo, hi})
			continue
		}
		c.ranges = append(c.ranges, runeRange{lo, lo})
	}
}

func classRune(s string, j int, strict bool) (rune, int, *PatternError) {
	if s[j] == '\\' {
		if j+1 >= len(s) {
			return 0, 0, perr(j, "trailing backslash")
		}
		if strict && !escapable(s[j+1]) {
			return 0, 0, perr(j, "bad escape \\"+string(rune(s[j+1]))+": only punctuation (glob characters) can be escaped")
		}
		r, w := utf8.DecodeRuneInString(s[j+1:])
		return r, 1 + w, nil
	}
	r, w := utf8.DecodeRuneInString(s[j:])
	return r, w, nil
}

// parseSeg compiles one path segment (no '/'). strict is for patterns; a
// lenient parse (bash globs) reads a malformed '[' or a lone trailing
// backslash literally.
func parseSeg(text string, strict bool) (seg, *PatternError) {
	if text == "**" {
		return seg{kind: sDStar}, nil
	}
	if !strings.ContainsAny(text, "\\*?[") && utf8.ValidString(text) {
		// Most segments are plain text: each rune a literal, the segment
		// itself (decoding an invalid byte would change it, so those take
		// the long way).
		return seg{kind: sLit, lit: text}, nil
	}
	toks := make([]token, 0, len(text))
	wild := false
	for i := 0; i < len(text); {
		switch ch := text[i]; ch {
		case '\\':
			if i+1 == len(text) {
				if strict {
					return seg{}, perr(i, "trailing backslash")
				}
				toks = append(toks, token{kind: tLit, r: '\\'})
				i++
				continue
			}
			r, w := utf8.DecodeRuneInString(text[i+1:])
			toks = append(toks, token{kind: tLit, r: r})
			i += 1 + w
		case '*':
			wild = true
			if len(toks) == 0 || toks[len(toks)-1].kind != tStar {
				toks = append(toks, token{kind: tStar})
			}
			i++
		case '?':
			wild = true
			toks = append(toks, token{kind: tAny})
			i++
		case '[':
			c, end, err := parseClass(text, i, strict)
			if err != nil {
				if strict {
					return seg{}, err
				}
				toks = append(toks, token{kind: tLit, r: '['})
				i++
				continue
			}
			wild = true
			toks = append(toks, token{kind: tClass, cls: c})
			i = end + 1
		default:
			r, w := utf8.DecodeRuneInString(text[i:])
			toks = append(toks, token{kind: tLit, r: r})
			i += w
		}
	}
	if !wild {
		var b strings.Builder
		for _, t := range toks {
			b.WriteRune(t.r)
		}
		return seg{kind: sLit, lit: b.String()}, nil
	}
	sg := seg{kind: sGlob, toks: toks}
	sg.setShape()
	return sg, nil
}

// expandBraces expands {a,b} alternations (nested ones too), honouring
// escapes and bracket expressions. In bash mode a group without a top-level
// comma is literal, and a sequence group ({1..3}) makes the result unsure
// (ok=false); otherwise {a} is the single alternative "a". ok is also false
// when there would be more than maxAlternatives results.
func expandBraces(s string, bash bool) ([]string, bool) {
	var out []string
	ok := expandInto(s, bash, &out)
	return out, ok
}

func expandInto(s string, bash bool, out *[]string) bool {
	open, close, commas, ok := findBraceGroup(s, bash)
	if !ok {
		return false
	}
	if open < 0 {
		if len(*out) >= maxAlternatives {
			return false
		}
		*out = append(*out, s)
		return true
	}
	prefix, suffix := s[:open], s[close+1:]
	start := open + 1
	for _, end := range append(commas, close) {
		if !expandInto(prefix+s[start:end]+suffix, bash, out) {
			return false
		}
		start = end + 1
	}
	return true
}

// findBraceGroup finds the first brace group to expand: the indexes of its
// braces and of its top-level commas; open < 0 when there is none.
func findBraceGroup(s string, bash bool) (open, close int, commas []int, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			if e := classEnd(s, i); e > 0 {
				i = e
			}
		case '{':
			end, cs := matchBrace(s, i)
			if end < 0 {
				continue // unbalanced: literal
			}
			if bash && len(cs) == 0 {
				if strings.Contains(s[i+1:end], "..") {
					return 0, 0, nil, false // {a..b}: a sequence we do not expand
				}
				continue // {a}: literal in bash
			}
			return i, end, cs, true
		}
	}
	return -1, -1, nil, true
}

// matchBrace returns the index of the '}' matching the '{' at s[i] and the
// top-level commas between them, or -1.
func matchBrace(s string, i int) (int, []int) {
	depth := 0
	var commas []int
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			if e := classEnd(s, j); e > 0 {
				j = e
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j, commas
			}
		case ',':
			if depth == 1 {
				commas = append(commas, j)
			}
		}
	}
	return -1, nil
}
