package config

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate"
)

// nodeKind is the kind of a decoded value, common to all three formats.
type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindString
	kindInt
	kindFloat
	kindBool
	kindTime // a TOML or YAML date/time; its text is kept
	kindMap
	kindList
)

func (k nodeKind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindString:
		return "a string"
	case kindInt, kindFloat:
		return "a number"
	case kindBool:
		return "a boolean"
	case kindTime:
		return "a date/time"
	case kindMap:
		return "an object"
	case kindList:
		return "a list"
	}
	return "a value"
}

// node is one value of a configuration file with the position where it was
// written. Strings hold their decoded text, and their position is that of
// their first character (inside the quotes). Numbers hold their text in JSON
// syntax.
type node struct {
	kind    nodeKind
	pos     toolgate.Position
	text    string   // string value, number text, "true"/"false", time text
	entries []*entry // kindMap, in file order
	items   []*node  // kindList
}

// entry is one key of a map.
type entry struct {
	key    string
	keyPos toolgate.Position
	value  *node
}

// get returns the entry for key, or nil.
func (n *node) get(key string) *entry {
	if n == nil || n.kind != kindMap {
		return nil
	}
	for _, e := range n.entries {
		if e.key == key {
			return e
		}
	}
	return nil
}

// sortEntries orders map entries by position (TOML tables can be reopened).
func (n *node) sortEntries() {
	sort.SliceStable(n.entries, func(i, j int) bool { return posLess(n.entries[i].keyPos, n.entries[j].keyPos) })
}

func posLess(a, b toolgate.Position) bool {
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Column < b.Column
}

// toJSON renders a node as JSON. Values JSON cannot hold (infinities, NaN)
// are errors, reported at their position.
func (n *node) toJSON() (json.RawMessage, *toolgate.Diagnostic) {
	var b strings.Builder
	if d := n.writeJSON(&b); d != nil {
		return nil, d
	}
	return json.RawMessage(b.String()), nil
}

func (n *node) writeJSON(b *strings.Builder) *toolgate.Diagnostic {
	switch n.kind {
	case kindNull:
		b.WriteString("null")
	case kindString, kindTime:
		q, _ := json.Marshal(n.text)
		b.Write(q)
	case kindBool:
		b.WriteString(n.text)
	case kindInt:
		b.WriteString(n.text)
	case kindFloat:
		f, err := strconv.ParseFloat(n.text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return &toolgate.Diagnostic{Pos: n.pos, Code: "value", Message: fmt.Sprintf("number %s cannot be represented in JSON", n.text)}
		}
		b.WriteString(n.text)
	case kindMap:
		b.WriteByte('{')
		for i, e := range n.entries {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(e.key)
			b.Write(q)
			b.WriteByte(':')
			if d := e.value.writeJSON(b); d != nil {
				return d
			}
		}
		b.WriteByte('}')
	case kindList:
		b.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				b.WriteByte(',')
			}
			if d := it.writeJSON(b); d != nil {
				return d
			}
		}
		b.WriteByte(']')
	}
	return nil
}

// lineIndex turns byte offsets of a file into 1-based line and character
// columns. Offsets are usually asked for in increasing order, so it keeps a
// cursor and counts forward from it.
type lineIndex struct {
	file string
	src  string
	// cursor
	off, line, col int
}

func newLineIndex(file, src string) *lineIndex {
	return &lineIndex{file: file, src: src, line: 1, col: 1}
}

// pos returns the position of byte offset off.
func (x *lineIndex) pos(off int) toolgate.Position {
	if off > len(x.src) {
		off = len(x.src)
	}
	if off < x.off {
		x.off, x.line, x.col = 0, 1, 1
	}
	for x.off < off {
		c := x.src[x.off]
		switch {
		case c == '\n':
			x.line++
			x.col = 1
			x.off++
		case c < utf8.RuneSelf:
			x.col++
			x.off++
		default:
			_, n := utf8.DecodeRuneInString(x.src[x.off:])
			x.col++
			x.off += n
		}
	}
	return toolgate.Position{File: x.file, Line: x.line, Column: x.col}
}

// lineCol returns the byte offset of a 1-based line and character column, or
// -1.
func lineOffset(src string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	for c := 1; c < col && off < len(src); c++ {
		if src[off] == '\n' {
			return -1
		}
		_, n := utf8.DecodeRuneInString(src[off:])
		off += n
	}
	return off
}
