package mcpwrap

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jkind is the kind of a JSON value.
type jkind int

const (
	jInvalid jkind = iota
	jObject
	jArray
	jString
	jNumber
	jBool
	jNull
)

// jnode is one JSON value of a source text with its byte span, so an edit
// can replace exactly that value's text and leave every other byte of the
// file — spacing, key order, comments — as it was.
type jnode struct {
	kind       jkind
	start, end int // the value's text is src[start:end]
	str        string
	lit        string // a number's or literal's text
	members    []jmember
	elems      []*jnode
}

// jmember is one member of a JSON object.
type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

// get returns the value of the member named k.
func (n *jnode) get(k string) (*jnode, bool) {
	if n == nil || n.kind != jObject {
		return nil, false
	}
	for _, m := range n.members {
		if m.key == k {
			return m.val, true
		}
	}
	return nil, false
}

// generic converts n to plain Go values (map[string]any, []any, string,
// json.Number, bool, nil) for comparisons.
func (n *jnode) generic() any {
	switch n.kind {
	case jObject:
		m := make(map[string]any, len(n.members))
		for _, mem := range n.members {
			m[mem.key] = mem.val.generic()
		}
		return m
	case jArray:
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			a[i] = e.generic()
		}
		return a
	case jString:
		return n.str
	case jNumber:
		return json.Number(n.lit)
	case jBool:
		return n.lit == "true"
	}
	return nil
}

// syntaxError is a parse error at a byte offset of the text.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

// position renders a byte offset of src as "line:col" (1-based; the column
// counts bytes).
func position(src string, off int) string {
	if off > len(src) {
		off = len(src)
	}
	line := 1 + strings.Count(src[:off], "\n")
	col := off - strings.LastIndexByte(src[:off], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// jparser parses JSON, and with comments set, JSON with // and /* */
// comments (what Gemini CLI reads in settings.json). Duplicate keys are an
// error: clients keep the last one, and an edit of the first would change
// nothing they see.
type jparser struct {
	src      string
	pos      int
	comments bool
	depth    int
}

// maxDepth bounds nesting, so a hostile file cannot exhaust the stack.
const maxDepth = 512

// parseJSONText parses src as one JSON value.
func parseJSONText(src string, comments bool) (*jnode, error) {
	if !utf8.ValidString(src) {
		i := 0
		for i < len(src) {
			r, size := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return nil, &syntaxError{i, "the file is not UTF-8 text"}
	}
	p := &jparser{src: src, comments: comments}
	if strings.HasPrefix(src, "\uFEFF") {
		p.pos = len("\uFEFF")
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %q after the JSON value", p.src[p.pos])
	}
	return n, nil
}

func (p *jparser) errorf(format string, args ...any) error {
	return &syntaxError{p.pos, fmt.Sprintf(format, args...)}
}

// space skips white space and, when allowed, comments.
func (p *jparser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.comments && strings.HasPrefix(p.src[p.pos:], "//"):
			i := strings.IndexByte(p.src[p.pos:], '\n')
			if i < 0 {
				p.pos = len(p.src)
			} else {
				p.pos += i + 1
			}
		case c == '/' && p.comments && strings.HasPrefix(p.src[p.pos:], "/*"):
			i := strings.Index(p.src[p.pos+2:], "*/")
			if i < 0 {
				return p.errorf("unterminated /* comment")
			}
			p.pos += 2 + i + 2
		case c == '/':
			return p.errorf("a comment, which this file may not hold (it is read as plain JSON)")
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value() (*jnode, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of the file")
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, start: start, end: p.pos, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(p.src[p.pos:], lit) {
				p.pos += len(lit)
				k := jBool
				if lit == "null" {
					k = jNull
				}
				return &jnode{kind: k, start: start, end: p.pos, lit: lit}, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *jparser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("nested more than %d levels deep", maxDepth)
	}
	return nil
}

func (p *jparser) object() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jObject, start: p.pos}
	p.pos++ // {
	seen := map[string]bool{}
	for first := true; ; first = false {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' && first {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("expected a quoted member name")
		}
		keyStart := p.pos
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		if seen[k] {
			p.pos = keyStart
			return nil, p.errorf("duplicate key %q", k)
		}
		seen[k] = true
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expected ':' after the member name")
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: k, keyStart: keyStart, val: v})
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of the file in an object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errorf("expected ',' or '}' in an object")
		}
	}
}

func (p *jparser) array() (*jnode, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &jnode{kind: jArray, start: p.pos}
	p.pos++ // [
	for first := true; ; first = false {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' && first {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of the file in an array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errorf("expected ',' or ']' in an array")
		}
	}
}

func (p *jparser) number() (*jnode, error) {
	start := p.pos
	i := p.pos
	if i < len(p.src) && p.src[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(p.src) && p.src[i] == '0' {
		i++
	} else if digits() == 0 {
		p.pos = i
		return nil, p.errorf("invalid number")
	}
	if i < len(p.src) && p.src[i] == '.' {
		i++
		if digits() == 0 {
			p.pos = i
			return nil, p.errorf("invalid number")
		}
	}
	if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
		i++
		if i < len(p.src) && (p.src[i] == '+' || p.src[i] == '-') {
			i++
		}
		if digits() == 0 {
			p.pos = i
			return nil, p.errorf("invalid number")
		}
	}
	p.pos = i
	return &jnode{kind: jNumber, start: start, end: i, lit: p.src[start:i]}, nil
}

// string decodes the string literal at p.pos. An escaped lone surrogate is
// an error: it has no UTF-8 form, so it could not be written back as it was.
func (p *jparser) string() (string, error) {
	p.pos++ // "
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return "", p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.errorf("a control character in a string")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.src) {
			return "", p.errorf("unterminated string")
		}
		e := p.src[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				if !strings.HasPrefix(p.src[p.pos:], `\u`) {
					return "", p.errorf("a lone UTF-16 surrogate escape")
				}
				p.pos += 2
				r2, err := p.hex4()
				if err != nil {
					return "", err
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", p.errorf("a lone UTF-16 surrogate escape")
				}
			}
			b.WriteRune(r)
		default:
			p.pos -= 2
			return "", p.errorf("invalid escape \\%c", e)
		}
	}
}

func (p *jparser) hex4() (rune, error) {
	if p.pos+4 > len(p.src) {
		return 0, p.errorf("invalid \\u escape")
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, p.errorf("invalid \\u escape")
	}
	p.pos += 4
	return rune(v), nil
}

// quoteJSON renders s as a JSON string literal without HTML escaping.
func quoteJSON(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
