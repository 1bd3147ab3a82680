package config

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/toolgate/toolgate"
)

// TOML files are read twice. github.com/BurntSushi/toml checks the syntax
// and reports errors with their byte offset, but it keeps no positions for
// keys and values. A file it accepts is then read by tomlParser, a small
// recursive-descent reader that only needs to handle valid TOML and records
// the position of every key and value.

func decodeTOML(file string, data []byte, diags *toolgate.Diagnostics) *node {
	src := string(data)
	if off := tomlTooDeep(src); off >= 0 {
		diags.Errorf(newLineIndex(file, src).pos(off), "syntax", "values nested more than %d deep", maxDepth)
		return nil
	}
	var v map[string]any
	if _, err := toml.Decode(src, &v); err != nil {
		pos := toolgate.Position{File: file, Line: 1, Column: 1}
		msg := err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg = pe.Message
			if pe.Position.Start >= 0 && pe.Position.Start <= len(src) {
				pos = newLineIndex(file, src).pos(pe.Position.Start)
			} else if pe.Position.Line > 0 {
				pos.Line = pe.Position.Line
			}
		}
		diags.Errorf(pos, "syntax", "TOML syntax error: %s", msg)
		return nil
	}
	p := &tomlParser{src: src, idx: newLineIndex(file, src)}
	root, err := p.document()
	if err != nil {
		diags.Errorf(p.idx.pos(p.i), "syntax", "TOML syntax error: %v", err)
		return nil
	}
	return root
}

type tomlParser struct {
	src string
	i   int
	idx *lineIndex
}

var errTOML = errors.New("cannot read this TOML construct")

func (p *tomlParser) pos(off int) toolgate.Position { return p.idx.pos(off) }

func (p *tomlParser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *tomlParser) has(s string) bool { return strings.HasPrefix(p.src[p.i:], s) }

// skipWS skips spaces and tabs.
func (p *tomlParser) skipWS() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

// skipAll skips whitespace, newlines and comments.
func (p *tomlParser) skipAll() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		case '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *tomlParser) document() (*node, error) {
	root := &node{kind: kindMap, pos: p.pos(0)}
	cur := root
	for {
		p.skipAll()
		if p.i >= len(p.src) {
			break
		}
		if p.peek() == '[' {
			array := p.has("[[")
			hpos := p.pos(p.i)
			if array {
				p.i += 2
			} else {
				p.i++
			}
			keys, err := p.keyPath()
			if err != nil {
				return nil, err
			}
			p.skipWS()
			if array {
				if !p.has("]]") {
					return nil, errTOML
				}
				p.i += 2
			} else {
				if p.peek() != ']' {
					return nil, errTOML
				}
				p.i++
			}
			parent := root
			for _, k := range keys[:len(keys)-1] {
				if parent, err = descend(parent, k, true); err != nil {
					return nil, err
				}
			}
			last := keys[len(keys)-1]
			if array {
				e := parent.get(last.key)
				if e == nil {
					e = &entry{key: last.key, keyPos: last.pos, value: &node{kind: kindList, pos: hpos}}
					parent.entries = append(parent.entries, e)
				}
				if e.value.kind != kindList {
					return nil, errTOML
				}
				t := &node{kind: kindMap, pos: hpos}
				e.value.items = append(e.value.items, t)
				cur = t
			} else {
				t, err := descend(parent, last, false)
				if err != nil {
					return nil, err
				}
				t.pos = hpos
				cur = t
			}
			continue
		}
		if err := p.keyValue(cur); err != nil {
			return nil, err
		}
	}
	sortTree(root)
	return root, nil
}

// sortTree orders every map's entries by position: tables may be defined
// after the keys that follow them in the tree.
func sortTree(n *node) {
	switch n.kind {
	case kindMap:
		n.sortEntries()
		for _, e := range n.entries {
			sortTree(e.value)
		}
	case kindList:
		for _, it := range n.items {
			sortTree(it)
		}
	}
}

type tomlKey struct {
	key string
	pos toolgate.Position
}

// descend returns the table under key k of parent, creating it. Through an
// array of tables it goes to the last element when through is set.
func descend(parent *node, k tomlKey, through bool) (*node, error) {
	e := parent.get(k.key)
	if e == nil {
		t := &node{kind: kindMap, pos: k.pos}
		parent.entries = append(parent.entries, &entry{key: k.key, keyPos: k.pos, value: t})
		return t, nil
	}
	switch e.value.kind {
	case kindMap:
		return e.value, nil
	case kindList:
		if through && len(e.value.items) > 0 {
			if last := e.value.items[len(e.value.items)-1]; last.kind == kindMap {
				return last, nil
			}
		}
	}
	return nil, errTOML
}

func (p *tomlParser) keyPath() ([]tomlKey, error) {
	var keys []tomlKey
	for {
		p.skipWS()
		start := p.i
		var k string
		switch p.peek() {
		case '"':
			s, err := p.basicString()
			if err != nil {
				return nil, err
			}
			k = s
			start++
		case '\'':
			s, err := p.literalString()
			if err != nil {
				return nil, err
			}
			k = s
			start++
		default:
			for p.i < len(p.src) && isBareKey(p.src[p.i]) {
				p.i++
			}
			if p.i == start {
				return nil, errTOML
			}
			k = p.src[start:p.i]
		}
		keys = append(keys, tomlKey{key: k, pos: p.pos(start)})
		p.skipWS()
		if p.peek() != '.' {
			return keys, nil
		}
		p.i++
	}
}

func isBareKey(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// keyValue reads "key = value" into table t.
func (p *tomlParser) keyValue(t *node) error {
	keys, err := p.keyPath()
	if err != nil {
		return err
	}
	p.skipWS()
	if p.peek() != '=' {
		return errTOML
	}
	p.i++
	p.skipWS()
	v, err := p.value(0)
	if err != nil {
		return err
	}
	for _, k := range keys[:len(keys)-1] {
		if t, err = descend(t, k, false); err != nil {
			return err
		}
	}
	last := keys[len(keys)-1]
	if t.get(last.key) != nil {
		return errTOML
	}
	t.entries = append(t.entries, &entry{key: last.key, keyPos: last.pos, value: v})
	return nil
}

func (p *tomlParser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, errors.New("values nested too deep")
	}
	start := p.i
	switch c := p.peek(); {
	case c == '"':
		multi := p.has(`"""`)
		s, err := p.basicString()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindString, pos: p.stringStart(start, multi, 3), text: s}, nil
	case c == '\'':
		multi := p.has(`'''`)
		s, err := p.literalString()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindString, pos: p.stringStart(start, multi, 3), text: s}, nil
	case c == '[':
		p.i++
		n := &node{kind: kindList, pos: p.pos(start)}
		for {
			p.skipAll()
			if p.peek() == ']' {
				p.i++
				return n, nil
			}
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, v)
			p.skipAll()
			switch p.peek() {
			case ',':
				p.i++
			case ']':
			default:
				return nil, errTOML
			}
		}
	case c == '{':
		p.i++
		n := &node{kind: kindMap, pos: p.pos(start)}
		for {
			p.skipAll()
			if p.peek() == '}' {
				p.i++
				return n, nil
			}
			if err := p.keyValueDepth(n, depth+1); err != nil {
				return nil, err
			}
			p.skipAll()
			switch p.peek() {
			case ',':
				p.i++
			case '}':
			default:
				return nil, errTOML
			}
		}
	}
	return p.scalar(start)
}

func (p *tomlParser) keyValueDepth(t *node, depth int) error {
	if depth > maxDepth {
		return errors.New("values nested too deep")
	}
	return p.keyValue(t)
}

// stringStart is the position of a string's first character: after the
// quote, or for a multi-line string after a newline that directly follows
// the opening quotes.
func (p *tomlParser) stringStart(start int, multi bool, n int) toolgate.Position {
	if !multi {
		return p.pos(start + 1)
	}
	off := start + n
	if strings.HasPrefix(p.src[off:], "\n") {
		off++
	} else if strings.HasPrefix(p.src[off:], "\r\n") {
		off += 2
	}
	return p.pos(off)
}

func (p *tomlParser) scalar(start int) (*node, error) {
	end := p.i
	for end < len(p.src) && !strings.ContainsRune(" \t\r\n,]}#", rune(p.src[end])) {
		end++
	}
	tok := p.src[start:end]
	// A date-time may separate date and time with a space.
	if len(tok) == 10 && tok[4] == '-' && end+1 < len(p.src) && p.src[end] == ' ' && isDigit(p.src[end+1]) {
		e2 := end + 1
		for e2 < len(p.src) && !strings.ContainsRune(" \t\r\n,]}#", rune(p.src[e2])) {
			e2++
		}
		end = e2
		tok = p.src[start:end]
	}
	if tok == "" {
		return nil, errTOML
	}
	p.i = end
	pos := p.pos(start)
	switch tok {
	case "true", "false":
		return &node{kind: kindBool, pos: pos, text: tok}, nil
	case "inf", "+inf", "-inf", "nan", "+nan", "-nan":
		return &node{kind: kindFloat, pos: pos, text: tok}, nil
	}
	clean := strings.ReplaceAll(tok, "_", "")
	if i, err := strconv.ParseInt(clean, 0, 64); err == nil && !isOctalLooking(clean) {
		return &node{kind: kindInt, pos: pos, text: strconv.FormatInt(i, 10)}, nil
	}
	if !strings.ContainsAny(tok, ":") && (strings.Count(tok, "-") == 0 || strings.ContainsAny(tok, "eE")) {
		if f, err := strconv.ParseFloat(clean, 64); err == nil {
			return &node{kind: kindFloat, pos: pos, text: strconv.FormatFloat(f, 'g', -1, 64)}, nil
		}
	}
	return &node{kind: kindTime, pos: pos, text: tok}, nil
}

// isOctalLooking rejects Go's "0755" octal reading, which TOML does not have
// (TOML forbids leading zeros; BurntSushi has rejected such files already).
func isOctalLooking(s string) bool {
	s = strings.TrimLeft(s, "+-")
	return len(s) > 1 && s[0] == '0' && isDigit(s[1])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *tomlParser) literalString() (string, error) {
	if p.has("'''") {
		p.i += 3
		if p.has("\r\n") {
			p.i += 2
		} else if p.has("\n") {
			p.i++
		}
		end := strings.Index(p.src[p.i:], "'''")
		if end < 0 {
			return "", errTOML
		}
		end += p.i
		// Up to two quotes may directly precede the closing delimiter.
		for end+3 < len(p.src) && p.src[end+3] == '\'' {
			end++
		}
		s := p.src[p.i:end]
		p.i = end + 3
		return s, nil
	}
	p.i++
	end := strings.IndexAny(p.src[p.i:], "'\n")
	if end < 0 || p.src[p.i+end] != '\'' {
		return "", errTOML
	}
	s := p.src[p.i : p.i+end]
	p.i += end + 1
	return s, nil
}

func (p *tomlParser) basicString() (string, error) {
	multi := p.has(`"""`)
	if multi {
		p.i += 3
		if p.has("\r\n") {
			p.i += 2
		} else if p.has("\n") {
			p.i++
		}
	} else {
		p.i++
	}
	var b strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"' && !multi:
			p.i++
			return b.String(), nil
		case c == '"' && multi && p.has(`"""`):
			// Up to two quotes may directly precede the closing delimiter.
			n := 3
			for p.i+n < len(p.src) && p.src[p.i+n] == '"' && n < 5 {
				n++
			}
			b.WriteString(strings.Repeat(`"`, n-3))
			p.i += n
			return b.String(), nil
		case c == '\n' && !multi:
			return "", errTOML
		case c == '\\':
			p.i++
			if p.i >= len(p.src) {
				return "", errTOML
			}
			e := p.src[p.i]
			p.i++
			switch e {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case '"':
				b.WriteByte('"')
			case '\\':
				b.WriteByte('\\')
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if p.i+n > len(p.src) {
					return "", errTOML
				}
				r, err := strconv.ParseUint(p.src[p.i:p.i+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", errTOML
				}
				b.WriteRune(rune(r))
				p.i += n
			case ' ', '\t', '\r', '\n':
				if !multi {
					return "", errTOML
				}
				// A line-ending backslash trims the newline and the
				// whitespace that follows.
				p.i--
				for p.i < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.i]) >= 0 {
					p.i++
				}
			default:
				return "", errTOML
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", errTOML
}

// tomlTooDeep returns the offset where brackets and braces outside strings
// and comments nest deeper than maxDepth, or -1. It runs before the TOML
// library, whose recursion makes deeply nested input very slow.
func tomlTooDeep(src string) int {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case '[', '{':
			depth++
			if depth > maxDepth {
				return i
			}
		case ']', '}':
			depth--
		case '"', '\'':
			q := string(c)
			if strings.HasPrefix(src[i:], q+q+q) {
				end := strings.Index(src[i+3:], q+q+q)
				if c == '"' {
					// Skip escaped characters, which may hide a delimiter.
					j := i + 3
					for j < len(src) && !strings.HasPrefix(src[j:], `"""`) {
						if src[j] == '\\' {
							j++
						}
						j++
					}
					end = j - (i + 3)
				}
				if end < 0 {
					return -1
				}
				i += 3 + end + 2
				continue
			}
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if c == '"' && src[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}
