package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/toolgate/toolgate"
)

// maxDepth bounds the nesting of values in a configuration file.
const maxDepth = 64

// jsonDecoder builds a node tree from JSON text with encoding/json's token
// stream; positions come from Decoder.InputOffset.
type jsonDecoder struct {
	data  []byte
	dec   *json.Decoder
	idx   *lineIndex
	diags *toolgate.Diagnostics
}

var jsonCharRE = regexp.MustCompile(`^invalid character '(.+?)' `)

// errStop aborts decoding after a syntax error has been reported.
var errStop = errors.New("stop")

func decodeJSON(file string, data []byte, diags *toolgate.Diagnostics) *node {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		// Claude Code does not read such a file either: JSON.parse rejects
		// a leading U+FEFF ("Unrecognized token"), and Claude's own checks
		// name it "UTF-8 BOM at start of file". An error, not a warning: a
		// settings file Claude ignores must not be half-trusted here.
		diags.Errorf(toolgate.Position{File: file, Line: 1, Column: 1}, "syntax",
			"the file starts with a UTF-8 byte-order mark (BOM, bytes EF BB BF), which JSON does not allow and Claude Code rejects too; save the file as UTF-8 without a BOM")
		return nil
	}
	d := &jsonDecoder{data: data, dec: json.NewDecoder(bytes.NewReader(data)), idx: newLineIndex(file, string(data)), diags: diags}
	d.dec.UseNumber()
	n, err := d.value(0)
	if err != nil {
		return nil
	}
	if _, err := d.dec.Token(); err != io.EOF {
		diags.Errorf(d.idx.pos(d.start()), "syntax", "JSON syntax error: unexpected data after the top-level value")
		return nil
	}
	return n
}

// start is the offset where the next token begins: InputOffset is the end of
// the previous token, and separators are consumed with the next one.
func (d *jsonDecoder) start() int {
	off := int(d.dec.InputOffset())
	for off < len(d.data) {
		switch d.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (d *jsonDecoder) syntax(err error) error {
	var se *json.SyntaxError
	off := len(d.data)
	msg := err.Error()
	if errors.As(err, &se) {
		off = min(max(int(se.Offset), 0), len(d.data))
		msg = se.Error()
		// Offset is the start of the value being read when the scanner
		// fails inside it; the message names the offending character.
		if m := jsonCharRE.FindStringSubmatch(msg); m != nil {
			if c, err := strconv.Unquote(`"` + m[1] + `"`); err == nil && c != "" {
				if i := bytes.Index(d.data[off:], []byte(c)); i >= 0 {
					off += i
				}
			}
		}
	} else if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of input"
	}
	d.diags.Errorf(d.idx.pos(off), "syntax", "JSON syntax error: %s", msg)
	return errStop
}

func (d *jsonDecoder) value(depth int) (*node, error) {
	off := d.start()
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.syntax(err)
	}
	pos := d.idx.pos(off)
	if depth > maxDepth {
		d.diags.Errorf(pos, "syntax", "values nested more than %d deep", maxDepth)
		return nil, errStop
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: kindMap, pos: pos}
			seen := map[string]bool{}
			for d.dec.More() {
				koff := d.start()
				kt, err := d.dec.Token()
				if err != nil {
					return nil, d.syntax(err)
				}
				key, ok := kt.(string)
				if !ok {
					d.diags.Errorf(d.idx.pos(koff), "syntax", "JSON syntax error: object key must be a string")
					return nil, errStop
				}
				kpos := d.idx.pos(koff + 1)
				v, err := d.value(depth + 1)
				if err != nil {
					return nil, err
				}
				if seen[key] {
					d.diags.Errorf(kpos, "duplicate-key", "duplicate key %q", key)
					continue
				}
				seen[key] = true
				n.entries = append(n.entries, &entry{key: key, keyPos: kpos, value: v})
			}
			if _, err := d.dec.Token(); err != nil {
				return nil, d.syntax(err)
			}
			return n, nil
		case '[':
			n := &node{kind: kindList, pos: pos}
			for d.dec.More() {
				v, err := d.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			if _, err := d.dec.Token(); err != nil {
				return nil, d.syntax(err)
			}
			return n, nil
		}
		d.diags.Errorf(pos, "syntax", "JSON syntax error: unexpected %q", rune(t))
		return nil, errStop
	case string:
		return &node{kind: kindString, pos: d.idx.pos(off + 1), text: t}, nil
	case json.Number:
		k := kindInt
		if bytes.ContainsAny([]byte(t), ".eE") {
			k = kindFloat
		}
		return &node{kind: k, pos: pos, text: string(t)}, nil
	case bool:
		return &node{kind: kindBool, pos: pos, text: fmt.Sprint(t)}, nil
	case nil:
		return &node{kind: kindNull, pos: pos}, nil
	}
	d.diags.Errorf(pos, "syntax", "JSON syntax error: unexpected token")
	return nil, errStop
}
