// Package jsonin is a fast, validating, single-pass JSON parser for tool-call
// inputs.
//
// [Parse] checks the whole input once and records a flat "tape" of its
// values (offsets into the source plus links to the next sibling); lookups
// then walk the tape without re-reading the text. String content is validated
// during the scan but decoded only when asked for, so a large string the
// engine never reads (a Write call's content) costs one pass over its bytes
// and nothing more.
//
// Parse fails closed. Besides every RFC 8259 syntax error it rejects what the
// standard library's encoding/json lets through: invalid UTF-8 anywhere, a
// lone UTF-16 surrogate escape, a duplicate key in any object (keys are
// compared after decoding, so {"a":1,"\u0061":2} is a duplicate), and
// nesting deeper than [MaxDepth]. Every error is an [*Error] carrying the
// byte offset of the problem.
//
// The size of the input is the caller's to limit (toolgate reads at most
// toolgate.MaxInputSize bytes of call input); Parse itself only refuses
// inputs whose offsets would not fit its 32-bit tape (2 GiB and more).
//
// A [Doc] and its [Value]s refer into the source bytes: the source must not
// be modified after parsing. A Doc is immutable and safe for concurrent use.
package jsonin

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects that Parse accepts.
// Only containers count: [[1]] has depth 2, a bare number depth 0.
const MaxDepth = 1000

// Kind is the kind of a JSON value.
type Kind uint8

// The kinds of JSON values. The zero Kind is Null; a missing [Value] also
// reports Null, so check [Value.Exists] first.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{
	Null:   "null",
	Bool:   "bool",
	Number: "number",
	String: "string",
	Array:  "array",
	Object: "object",
}

// String returns the kind's name as used in messages: "null", "bool",
// "number", "string", "array" or "object".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is a problem found by [Parse]: malformed JSON or input that toolgate
// refuses to read.
type Error struct {
	// Offset is the 0-based byte offset in the input at which the problem
	// was found.
	Offset int
	// Msg describes the problem.
	Msg string
}

// Error returns "offset N: msg".
func (e *Error) Error() string {
	return "offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

func errAt(off int, msg string) *Error { return &Error{Offset: off, Msg: msg} }

func errf(off int, format string, args ...any) *Error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// node is one entry of the tape. Every value is a node; an object member is
// two consecutive nodes, its key (a String with flagKey) and its value. The
// subtree of a container node at index i occupies indexes i+1 .. skip-1.
type node struct {
	start int32 // offset of the value's first byte (the quote of a string)
	end   int32 // offset just after the value's last byte
	skip  int32 // tape index just after this node's subtree
	n     int32 // elements of an array, members of an object
	kind  Kind
	flags uint8
}

// Node flags.
const (
	flagEscaped uint8 = 1 << iota // string contains a backslash escape
	flagControl                   // decoded string holds a control character other than \t \n \r
	flagKey                       // string is an object key
)

// smallTape is the number of tape nodes stored inside the Doc itself, so that
// a typical small input is parsed with a single allocation.
const smallTape = 16

// Doc is a parsed, validated JSON document. Its values refer into the source
// bytes, which must not be modified after parsing. A parsed Doc is
// immutable and safe for concurrent use; it must not be copied (a small
// document's tape lives inside the Doc).
type Doc struct {
	data  []byte
	tape  []node
	small [smallTape]node
}

// Parse validates data as exactly one JSON value (surrounded by optional
// whitespace) and returns the parsed document. On failure the error is an
// [*Error].
func Parse(data []byte) (*Doc, error) {
	d := new(Doc)
	if err := d.Parse(data); err != nil {
		return nil, err
	}
	return d, nil
}

// Parse is the package's Parse into a Doc the caller holds (one embedded in
// a larger struct, say), so that parsing a small input allocates nothing.
// It replaces what d held; on failure d is empty. A Doc being parsed must
// not be in use by anyone else.
func (d *Doc) Parse(data []byte) error {
	// A tape that outgrew the embedded one is kept for the next parse:
	// its nodes hold offsets only, no reference to the data.
	tape := d.tape[:0]
	if cap(tape) <= smallTape {
		tape = d.small[:0]
	}
	d.data, d.tape = nil, nil
	if len(data) >= math.MaxInt32 {
		return errAt(0, "input too large ("+strconv.Itoa(len(data))+" bytes)")
	}
	p := parser{s: data, tape: tape}
	i := p.ws(0)
	if i == len(data) {
		return errAt(i, "empty input: expected a JSON value")
	}
	i, err := p.value(i, 0)
	if err != nil {
		return err
	}
	if i = p.ws(i); i != len(data) {
		return errf(i, "unexpected %s after the top-level value", describe(data, i))
	}
	d.data, d.tape = data, p.tape
	return nil
}

// Reset empties d, so that a Doc kept for reuse (in a pool, say) no longer
// refers to the last source it parsed.
func (d *Doc) Reset() {
	d.data = nil
	if cap(d.tape) > smallTape {
		d.tape = d.tape[:0] // kept for the next Parse; it holds offsets only
	} else {
		d.tape = nil
	}
}

// Root returns the document's top-level value. The Root of a nil Doc, or
// of one that holds no document (zero, or after a failed Parse), is
// missing.
func (d *Doc) Root() Value {
	if d == nil || len(d.tape) == 0 {
		return Value{}
	}
	return Value{d: d}
}

type parser struct {
	s    []byte
	tape []node
}

func (p *parser) ws(i int) int {
	for i < len(p.s) {
		switch p.s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value parses the value starting at s[i] (not whitespace); depth is the
// number of containers enclosing it.
func (p *parser) value(i, depth int) (int, error) {
	if i >= len(p.s) {
		return i, errAt(i, "unexpected end of input: expected a value")
	}
	switch p.s[i] {
	case '{':
		return p.object(i, depth+1)
	case '[':
		return p.array(i, depth+1)
	case '"':
		return p.str(i, 0)
	case 't':
		return p.literal(i, "true", Bool)
	case 'f':
		return p.literal(i, "false", Bool)
	case 'n':
		return p.literal(i, "null", Null)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.number(i)
	}
	return i, p.unexpected(i, "expected a value")
}

// unexpected reports the character at s[i], with a hint for the usual
// non-JSON habits.
func (p *parser) unexpected(i int, want string) *Error {
	hint := ""
	switch p.s[i] {
	case '\'':
		hint = " (strings must use double quotes)"
	case '/':
		hint = " (comments are not allowed)"
	case 'N', 'I':
		hint = " (NaN and Infinity are not JSON)"
	case '+', '.':
		hint = " (numbers start with '-' or a digit)"
	}
	return errf(i, "unexpected %s: %s%s", describe(p.s, i), want, hint)
}

// describe names the character at s[i] for an error message.
func describe(s []byte, i int) string {
	c := s[i]
	switch {
	case c >= 0x20 && c < 0x7f:
		return "character " + strconv.QuoteRune(rune(c))
	case c < utf8.RuneSelf:
		return fmt.Sprintf("character U+%04X", c)
	}
	r, size := utf8.DecodeRune(s[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x (invalid UTF-8)", c)
	}
	return fmt.Sprintf("character %q (U+%04X)", r, r)
}

func (p *parser) literal(i int, lit string, k Kind) (int, error) {
	end := i + len(lit)
	if end > len(p.s) || string(p.s[i:end]) != lit {
		return i, errf(i, "invalid literal: expected %q", lit)
	}
	p.tape = append(p.tape, node{start: int32(i), end: int32(end), skip: int32(len(p.tape) + 1), kind: k})
	return end, nil
}

func isDigit(c byte) bool { return c-'0' < 10 }

func (p *parser) number(i int) (int, error) {
	s, start := p.s, i
	if s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s) || !isDigit(s[i]):
		return i, p.numErr(i, "expected a digit")
	case s[i] == '0':
		i++
		if i < len(s) && isDigit(s[i]) {
			return i, errAt(i-1, "invalid number: leading zero")
		}
	default:
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return i, p.numErr(i, "expected a digit after the decimal point")
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return i, p.numErr(i, "expected a digit in the exponent")
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	p.tape = append(p.tape, node{start: int32(start), end: int32(i), skip: int32(len(p.tape) + 1), kind: Number})
	return i, nil
}

func (p *parser) numErr(i int, want string) *Error {
	if i >= len(p.s) {
		return errAt(i, "invalid number: unexpected end of input, "+want)
	}
	return errf(i, "invalid number: unexpected %s, %s", describe(p.s, i), want)
}

func (p *parser) eof(i int, in string) *Error {
	return errAt(i, "unexpected end of input in "+in)
}

func (p *parser) array(i, depth int) (int, error) {
	if depth > MaxDepth {
		return i, errf(i, "nesting deeper than %d", MaxDepth)
	}
	s := p.s
	idx := len(p.tape)
	p.tape = append(p.tape, node{start: int32(i), kind: Array})
	n := 0
	i = p.ws(i + 1)
	if i < len(s) && s[i] == ']' {
		i++
	} else {
		for {
			if i >= len(s) {
				return i, p.eof(i, "array")
			}
			if s[i] == ']' && n > 0 {
				return i, errAt(i, "trailing comma in array")
			}
			var err error
			if i, err = p.value(i, depth); err != nil {
				return i, err
			}
			n++
			if i = p.ws(i); i >= len(s) {
				return i, p.eof(i, "array: expected ',' or ']'")
			}
			if s[i] == ',' {
				i = p.ws(i + 1)
				continue
			}
			if s[i] == ']' {
				i++
				break
			}
			return i, p.unexpected(i, "expected ',' or ']' after an array element")
		}
	}
	t := &p.tape[idx]
	t.end, t.skip, t.n = int32(i), int32(len(p.tape)), int32(n)
	return i, nil
}

// dupMapAt is the member count from which an object's keys are checked for
// duplicates with a map instead of by comparing each new key with the
// earlier ones.
const dupMapAt = 16

func (p *parser) object(i, depth int) (int, error) {
	if depth > MaxDepth {
		return i, errf(i, "nesting deeper than %d", MaxDepth)
	}
	s := p.s
	idx := len(p.tape)
	p.tape = append(p.tape, node{start: int32(i), kind: Object})
	n := 0
	var seen map[string]struct{} // decoded keys, once the object is large
	i = p.ws(i + 1)
	if i < len(s) && s[i] == '}' {
		i++
	} else {
		for {
			if i >= len(s) {
				return i, p.eof(i, "object: expected a key")
			}
			if s[i] != '"' {
				if s[i] == '}' && n > 0 {
					return i, errAt(i, "trailing comma in object")
				}
				return i, p.unexpected(i, "expected a string key")
			}
			key := len(p.tape)
			var err error
			if i, err = p.str(i, flagKey); err != nil {
				return i, err
			}
			// Check the new key against the earlier ones now, so that the
			// first duplicate in text order is the one reported.
			switch {
			case n < dupMapAt:
				// Two keys without escapes are equal only if their lengths
				// are: most pairs are told apart without comparing text.
				kt := &p.tape[key]
				klen, kesc := kt.end-kt.start, kt.flags&flagEscaped
				for k := idx + 1; k < key; k = int(p.tape[k+1].skip) {
					if t := &p.tape[k]; kesc|t.flags&flagEscaped == 0 && t.end-t.start != klen {
						continue
					}
					if p.keyEq(k, key) {
						return i, p.dupErr(key)
					}
				}
			default:
				if seen == nil {
					seen = make(map[string]struct{}, 2*dupMapAt)
					for k := idx + 1; k < key; k = int(p.tape[k+1].skip) {
						seen[p.keyString(k)] = struct{}{}
					}
				}
				ks := p.keyString(key)
				if _, dup := seen[ks]; dup {
					return i, p.dupErr(key)
				}
				seen[ks] = struct{}{}
			}
			if i = p.ws(i); i >= len(s) {
				return i, p.eof(i, "object: expected ':'")
			}
			if s[i] != ':' {
				return i, p.unexpected(i, "expected ':' after an object key")
			}
			if i, err = p.value(p.ws(i+1), depth); err != nil {
				return i, err
			}
			n++
			if i = p.ws(i); i >= len(s) {
				return i, p.eof(i, "object: expected ',' or '}'")
			}
			if s[i] == ',' {
				i = p.ws(i + 1)
				continue
			}
			if s[i] == '}' {
				i++
				break
			}
			return i, p.unexpected(i, "expected ',' or '}' after an object member")
		}
	}
	t := &p.tape[idx]
	t.end, t.skip, t.n = int32(i), int32(len(p.tape)), int32(n)
	return i, nil
}

// content returns the bytes between a string node's quotes.
func content(s []byte, t node) []byte { return s[t.start+1 : t.end-1] }

// keyEq reports whether the string nodes at tape indexes a and b decode to
// the same text.
func (p *parser) keyEq(a, b int) bool {
	ta, tb := p.tape[a], p.tape[b]
	ra, rb := content(p.s, ta), content(p.s, tb)
	ea, eb := ta.flags&flagEscaped != 0, tb.flags&flagEscaped != 0
	switch {
	case !ea && !eb:
		return string(ra) == string(rb)
	case !ea:
		return eqDecoded(rb, ra)
	case !eb:
		return eqDecoded(ra, rb)
	}
	return eqEscaped(ra, rb)
}

func (p *parser) keyString(k int) string {
	t := p.tape[k]
	if t.flags&flagEscaped != 0 {
		return decode(content(p.s, t))
	}
	return string(content(p.s, t))
}

func (p *parser) dupErr(k int) *Error {
	key := p.keyString(k)
	if len(key) > 80 {
		key = strings.ToValidUTF8(key[:80], "") + "…"
	}
	return errf(int(p.tape[k].start), "duplicate key %s in object", strconv.Quote(key))
}

// str scans the string starting at the quote s[i] and appends its node.
func (p *parser) str(i int, flags uint8) (int, error) {
	end, fl, err := scanString(p.s, i+1)
	if err != nil {
		return end, err
	}
	p.tape = append(p.tape, node{start: int32(i), end: int32(end), skip: int32(len(p.tape) + 1), kind: String, flags: flags | fl})
	return end, nil
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialMask flags, in the top bit of each byte, the bytes of the eight in w
// (little-endian) that need a closer look inside a string: a control
// character, '"', '\\', DEL or a non-ASCII byte. Bytes above a flagged one
// may be flagged spuriously, but the lowest flag is exact.
func specialMask(w uint64) uint64 {
	hasZero := func(v uint64) uint64 { return (v - lsb) & ^v & msb }
	return (w & msb) | ((w - 0x20*lsb) & ^w & msb) | hasZero(w^('"'*lsb)) | hasZero(w^('\\'*lsb)) | hasZero(w^(0x7f*lsb))
}

// scanString validates string content starting at s[i], just after the
// opening quote, and returns the offset just after the closing quote.
func scanString(s []byte, i int) (int, uint8, error) {
	open := i - 1
	var fl uint8
	for {
		for i+8 <= len(s) {
			if m := specialMask(binary.LittleEndian.Uint64(s[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(s) {
			return i, 0, errf(i, "unexpected end of input in the string that starts at offset %d", open)
		}
		switch c := s[i]; {
		case c == '"':
			return i + 1, fl, nil
		case c == '\\':
			fl |= flagEscaped
			if i+1 < len(s) {
				switch s[i+1] {
				case 'n', 't', '"', '\\', '/', 'r':
					i += 2
					continue
				}
			}
			n, ctl, err := scanEscape(s, i)
			if err != nil {
				return i, 0, err
			}
			if ctl {
				fl |= flagControl
			}
			i += n
		case c < 0x20:
			return i, 0, errf(i, "control character U+%04X in string (it must be escaped)", c)
		case c < 0x7f:
			i++
		case c == 0x7f:
			fl |= flagControl
			i++
		case c >= 0xc2 && c < 0xe0 && i+1 < len(s) && s[i+1]&0xc0 == 0x80:
			// A two-byte sequence, decoded inline: U+0080–U+07FF.
			if c == 0xc2 && s[i+1] <= 0x9f {
				fl |= flagControl // C1 control
			}
			i += 2
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, 0, errf(i, "invalid UTF-8 (byte 0x%02x) in string", c)
			}
			if isC1(r) {
				fl |= flagControl
			}
			i += size
		}
	}
}

// isC1 reports whether r is a C1 control character.
func isC1(r rune) bool { return r >= 0x80 && r <= 0x9f }

// isControl reports whether r counts for [Value.HasControl].
func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f || isC1(r)
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			c = c | 0x20 - 'a' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// scanEscape validates the escape sequence at s[i] == '\\' and returns its
// length and whether it decodes to a control character.
func scanEscape(s []byte, i int) (n int, ctl bool, err error) {
	if i+1 >= len(s) {
		return 0, false, errAt(i+1, "unexpected end of input in a string escape")
	}
	switch s[i+1] {
	case '"', '\\', '/', 'n', 'r', 't':
		return 2, false, nil
	case 'b', 'f':
		return 2, true, nil
	case 'u':
	default:
		c := s[i+1]
		if c >= 0x20 && c < 0x7f {
			return 0, false, errf(i, "invalid escape sequence \\%c in string", c)
		}
		return 0, false, errf(i, "invalid escape sequence in string: backslash followed by %s", describe(s, i+1))
	}
	r, ok := hex4(s, i+2)
	if !ok {
		return 0, false, errAt(i, "invalid \\u escape in string: expected four hex digits")
	}
	switch {
	case r >= 0xd800 && r < 0xdc00:
		if i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
			if lo, ok := hex4(s, i+8); ok && lo >= 0xdc00 && lo < 0xe000 {
				return 12, false, nil
			}
		}
		return 0, false, errf(i, "lone UTF-16 surrogate \\u%04x in string: not followed by a low-surrogate escape", r)
	case r >= 0xdc00 && r < 0xe000:
		return 0, false, errf(i, "lone UTF-16 surrogate \\u%04x in string: low surrogate without a high surrogate", r)
	}
	return 6, isControl(r), nil
}

// decodeEscape decodes the validated escape sequence at raw[i] == '\\'.
func decodeEscape(raw []byte, i int) (rune, int) {
	switch raw[i+1] {
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, _ := hex4(raw, i+2)
		if r >= 0xd800 && r < 0xdc00 {
			lo, _ := hex4(raw, i+8)
			return 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00), 12
		}
		return r, 6
	}
	return rune(raw[i+1]), 2 // '"', '\\', '/'
}

// decode returns the text of validated string content with its escapes
// decoded.
func decode(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); {
		j := i
		for j < len(raw) && raw[j] != '\\' {
			j++
		}
		b.Write(raw[i:j])
		if j == len(raw) {
			break
		}
		r, n := decodeEscape(raw, j)
		b.WriteRune(r)
		i = j + n
	}
	return b.String()
}

// eqDecoded reports whether validated string content raw, once decoded,
// equals want.
func eqDecoded[T string | []byte](raw []byte, want T) bool {
	if len(want) > len(raw) {
		return false // decoding never lengthens
	}
	j := 0
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			if j >= len(want) || want[j] != c {
				return false
			}
			i++
			j++
			continue
		}
		r, n := decodeEscape(raw, i)
		var buf [utf8.UTFMax]byte
		m := utf8.EncodeRune(buf[:], r)
		if len(want)-j < m || string(want[j:j+m]) != string(buf[:m]) {
			return false
		}
		i += n
		j += m
	}
	return j == len(want)
}

// unescaper yields the bytes of validated string content decoded, one at a
// time, without allocating.
type unescaper struct {
	raw    []byte
	i      int
	buf    [utf8.UTFMax]byte
	bi, bn int
}

func (u *unescaper) next() (byte, bool) {
	if u.bi < u.bn {
		u.bi++
		return u.buf[u.bi-1], true
	}
	if u.i >= len(u.raw) {
		return 0, false
	}
	c := u.raw[u.i]
	if c != '\\' {
		u.i++
		return c, true
	}
	r, n := decodeEscape(u.raw, u.i)
	u.i += n
	u.bn, u.bi = utf8.EncodeRune(u.buf[:], r), 1
	return u.buf[0], true
}

// eqEscaped reports whether two validated string contents decode to the same
// text.
func eqEscaped(a, b []byte) bool {
	if string(a) == string(b) {
		return true
	}
	ua, ub := unescaper{raw: a}, unescaper{raw: b}
	for {
		ca, oka := ua.next()
		cb, okb := ub.next()
		if oka != okb || ca != cb {
			return false
		}
		if !oka {
			return true
		}
	}
}
