// Package jsondoc edits and compares decoded JSON documents: RFC 6901 JSON
// Pointers, setting and removing the value a pointer names, and equality of
// two encoded values.
//
// Documents are the values encoding/json decodes into an any with
// UseNumber: map[string]any, []any, string, json.Number, bool and nil.
// Numbers stay json.Number, so that no edit or comparison loses a digit.
package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// ParsePointer splits a JSON Pointer into its reference tokens, unescaping
// ~1 to "/" and ~0 to "~". The empty pointer names the whole document and
// has no tokens.
func ParsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, errors.New(`a JSON Pointer must be empty or start with "/"`)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("bad escape in JSON Pointer token %q: only ~0 and ~1", t)
			}
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// Decode decodes one JSON value, keeping numbers as json.Number. Anything
// after the value but blanks is an error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// Equal reports whether a and b encode the same JSON value: the same
// members in any order, the same elements in order, and numbers written
// alike (1 and 1.0 differ, so a change of representation counts as a
// change). Either not being valid JSON makes them unequal.
func Equal(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return json.Valid(a)
	}
	x, err := Decode(a)
	if err != nil {
		return false
	}
	y, err := Decode(b)
	if err != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Set sets the value p names to v and returns the document, which it may
// change in place. Missing parent members are created as objects; the token
// "-" appends to an array; any other array token must be the index of an
// element. The empty pointer replaces the whole document.
func Set(doc any, p string, v any) (any, error) {
	toks, err := ParsePointer(p)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return v, nil
	}
	return setAt(doc, toks, v)
}

func setAt(cur any, toks []string, v any) (any, error) {
	t, last := toks[0], len(toks) == 1
	switch n := cur.(type) {
	case map[string]any:
		if last {
			n[t] = v
			return n, nil
		}
		child, ok := n[t]
		if !ok || child == nil {
			child = map[string]any{}
		}
		nc, err := setAt(child, toks[1:], v)
		if err != nil {
			return nil, err
		}
		n[t] = nc
		return n, nil
	case []any:
		if t == "-" {
			if !last {
				return nil, errors.New(`"-" must be the last token`)
			}
			return append(n, v), nil
		}
		i, ok := arrayIndex(t, len(n))
		if !ok {
			return nil, fmt.Errorf("array index %q out of range", t)
		}
		if last {
			n[i] = v
			return n, nil
		}
		nc, err := setAt(n[i], toks[1:], v)
		if err != nil {
			return nil, err
		}
		n[i] = nc
		return n, nil
	}
	return nil, fmt.Errorf("cannot set %q inside %s", t, kindOf(cur))
}

// Remove removes the value p names and returns the document, which it may
// change in place. Removing what is not there changes nothing; the empty
// pointer is an error, since the whole document cannot be removed.
func Remove(doc any, p string) (any, error) {
	toks, err := ParsePointer(p)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("cannot remove the whole document")
	}
	return removeAt(doc, toks), nil
}

func removeAt(cur any, toks []string) any {
	t, last := toks[0], len(toks) == 1
	switch n := cur.(type) {
	case map[string]any:
		child, ok := n[t]
		switch {
		case !ok:
		case last:
			delete(n, t)
		default:
			n[t] = removeAt(child, toks[1:])
		}
		return n
	case []any:
		i, ok := arrayIndex(t, len(n))
		switch {
		case !ok:
		case last:
			return append(n[:i:i], n[i+1:]...)
		default:
			n[i] = removeAt(n[i], toks[1:])
		}
		return n
	}
	return cur
}

// arrayIndex reads t as the index of one of n elements: decimal digits
// without a leading zero (RFC 6901 §4), below n.
func arrayIndex(t string, n int) (int, bool) {
	if t == "" || len(t) > 1 && t[0] == '0' || len(t) > 18 {
		return 0, false
	}
	i := 0
	for j := 0; j < len(t); j++ {
		if t[j] < '0' || t[j] > '9' {
			return 0, false
		}
		i = i*10 + int(t[j]-'0')
	}
	return i, i < n
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}
