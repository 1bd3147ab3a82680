package jsonin

import "strings"

// Value is one value of a parsed [Doc]. It is small and cheap to copy. The
// zero Value is "missing": it is what lookups return when nothing is there,
// [Value.Exists] reports false, and every other method returns its zero
// result (Kind reports Null).
type Value struct {
	d *Doc
	i int32
}

func (v Value) node() *node { return &v.d.tape[v.i] }

// Exists reports whether v is a value of the document, not a missing one.
func (v Value) Exists() bool { return v.d != nil }

// Kind returns the kind of v. A missing value reports Null; use Exists to
// tell the two apart.
func (v Value) Kind() Kind {
	if v.d == nil {
		return Null
	}
	return v.node().kind
}

// Offset returns the byte offset of v's first character in the source, for
// messages; -1 if v is missing.
func (v Value) Offset() int {
	if v.d == nil {
		return -1
	}
	return int(v.node().start)
}

// Raw returns the exact source bytes of v (a string with its quotes and
// escapes as written), or nil if v is missing. The slice aliases the
// source: do not modify it.
func (v Value) Raw() []byte {
	if v.d == nil {
		return nil
	}
	t := v.node()
	return v.d.data[t.start:t.end:t.end]
}

// Get returns the member of object v whose decoded key is key. It returns the
// missing Value if v is not an object or has no such member.
func (v Value) Get(key string) Value {
	if v.d == nil {
		return Value{}
	}
	tape, s := v.d.tape, v.d.data
	t := &tape[v.i]
	if t.kind != Object {
		return Value{}
	}
	for k := v.i + 1; k < t.skip; k = tape[k+1].skip {
		kt := &tape[k]
		raw := s[kt.start+1 : kt.end-1]
		if kt.flags&flagEscaped == 0 {
			if string(raw) == key {
				return Value{v.d, k + 1}
			}
		} else if eqDecoded(raw, key) {
			return Value{v.d, k + 1}
		}
	}
	return Value{}
}

// Lookup follows a dotted path of object keys: v.Lookup("a.b.c") is
// v.Get("a").Get("b").Get("c"). Each dot separates two keys, so a key that
// itself contains a dot cannot be reached this way; see [Value.LookupAll].
func (v Value) Lookup(dotted string) Value {
	for {
		key, rest, more := strings.Cut(dotted, ".")
		v = v.Get(key)
		if !more || !v.Exists() {
			return v
		}
		dotted = rest
	}
}

// LookupAll calls fn for every value that dotted can name, reading each dot
// either as a separator or as part of a key: for "a.b" it visits
// v.Get("a").Get("b") and v.Get("a.b") when they exist, in that order. It
// stops when fn returns false. Deny rules use it to see every reading of a
// parameter name.
func (v Value) LookupAll(dotted string, fn func(Value) bool) {
	v.lookupAll(dotted, fn)
}

func (v Value) lookupAll(dotted string, fn func(Value) bool) bool {
	if v.d == nil || v.node().kind != Object {
		return true
	}
	for i := 0; i < len(dotted); i++ {
		if dotted[i] != '.' {
			continue
		}
		if sub := v.Get(dotted[:i]); sub.Exists() && !sub.lookupAll(dotted[i+1:], fn) {
			return false
		}
	}
	if w := v.Get(dotted); w.Exists() {
		return fn(w)
	}
	return true
}

// Str returns the decoded text of string v and true, or "" and false if v is
// not a string. A string without escapes costs one copy; escapes
// (including \uXXXX and surrogate pairs) are decoded to UTF-8.
func (v Value) Str() (string, bool) {
	if v.d == nil {
		return "", false
	}
	t := v.node()
	if t.kind != String {
		return "", false
	}
	return v.d.str(t), true
}

func (d *Doc) str(t *node) string {
	raw := d.data[t.start+1 : t.end-1]
	if t.flags&flagEscaped == 0 {
		return string(raw)
	}
	return decode(raw)
}

// HasControl reports whether string v, decoded, holds a control character
// other than tab, newline and carriage return: NUL and the rest of U+0000–
// U+001F, DEL (U+007F) and the C1 controls U+0080–U+009F. It is false for a
// value that is not a string. The answer was recorded during Parse, so it
// costs nothing.
func (v Value) HasControl() bool {
	if v.d == nil {
		return false
	}
	t := v.node()
	return t.kind == String && t.flags&flagControl != 0
}

// Len returns the number of elements of array v or members of object v, and
// 0 for any other value.
func (v Value) Len() int {
	if v.d == nil {
		return 0
	}
	return int(v.node().n)
}

// Index returns element i of array v, or the missing Value if v is not an
// array or i is out of range. It walks the elements before i; use
// [Value.Each] to visit them all.
func (v Value) Index(i int) Value {
	if v.d == nil || i < 0 {
		return Value{}
	}
	t := v.node()
	if t.kind != Array || i >= int(t.n) {
		return Value{}
	}
	k := v.i + 1
	for ; i > 0; i-- {
		k = v.d.tape[k].skip
	}
	return Value{v.d, k}
}

// Each calls fn for each element of array v in order, with its index, until
// fn returns false. It does nothing if v is not an array.
func (v Value) Each(fn func(i int, elem Value) bool) {
	if v.d == nil {
		return
	}
	t := v.node()
	if t.kind != Array {
		return
	}
	for i, k := 0, v.i+1; k < t.skip; i, k = i+1, v.d.tape[k].skip {
		if !fn(i, Value{v.d, k}) {
			return
		}
	}
}

// Members calls fn for each member of object v in source order, with its
// decoded key, until fn returns false. It does nothing if v is not an
// object.
func (v Value) Members(fn func(key string, val Value) bool) {
	if v.d == nil {
		return
	}
	t := v.node()
	if t.kind != Object {
		return
	}
	for k := v.i + 1; k < t.skip; k = v.d.tape[k+1].skip {
		if !fn(v.d.str(&v.d.tape[k]), Value{v.d, k + 1}) {
			return
		}
	}
}

// MemberKeys is Members for callers that only compare keys: fn gets each
// key's bytes (decoded when the key holds escapes), valid only until fn
// returns, so that an object's keys are read without allocating. Convert
// with string(key) to keep one.
func (v Value) MemberKeys(fn func(key []byte, val Value) bool) {
	if v.d == nil {
		return
	}
	t := v.node()
	if t.kind != Object {
		return
	}
	for k := v.i + 1; k < t.skip; k = v.d.tape[k+1].skip {
		kt := &v.d.tape[k]
		key := v.d.data[kt.start+1 : kt.end-1]
		if kt.flags&flagEscaped != 0 {
			key = []byte(decode(key))
		}
		if !fn(key, Value{v.d, k + 1}) {
			return
		}
	}
}

// Strings calls fn with the decoded text of every string value inside v,
// at any depth and in source order, until fn returns false. Object keys are
// not visited. If v is itself a string, fn sees just that string.
func (v Value) Strings(fn func(s string) bool) {
	if v.d == nil {
		return
	}
	tape := v.d.tape
	for k := v.i; k < tape[v.i].skip; k++ {
		if t := &tape[k]; t.kind == String && t.flags&flagKey == 0 {
			if !fn(v.d.str(t)) {
				return
			}
		}
	}
}

// Text returns the JSON text of a scalar as parameter rules match it: a
// number, true, false or null as written in the source, a string decoded.
// For an array or object it returns the raw source text; for a missing
// value, "".
func (v Value) Text() string {
	if v.d == nil {
		return ""
	}
	t := v.node()
	if t.kind == String {
		return v.d.str(t)
	}
	return string(v.d.data[t.start:t.end])
}
