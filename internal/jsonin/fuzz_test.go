package jsonin

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// toAny converts v to the value encoding/json produces when decoding into
// any with UseNumber, checking the Doc's other views of v on the way.
func toAny(t *testing.T, v Value) any {
	switch v.Kind() {
	case Null:
		return nil
	case Bool:
		return v.Text() == "true"
	case Number:
		return json.Number(v.Text())
	case String:
		s, ok := v.Str()
		if !ok {
			t.Fatalf("Str of a string failed")
		}
		if want := strings.ContainsFunc(s, refControl); v.HasControl() != want {
			t.Fatalf("HasControl(%q) = %v, want %v", s, v.HasControl(), want)
		}
		return s
	case Array:
		a := []any{}
		v.Each(func(i int, e Value) bool {
			if i != len(a) || v.Index(i) != e {
				t.Fatalf("Each/Index disagree at %d", i)
			}
			a = append(a, toAny(t, e))
			return true
		})
		if len(a) != v.Len() {
			t.Fatalf("array Len %d, Each saw %d", v.Len(), len(a))
		}
		return a
	case Object:
		m := map[string]any{}
		v.Members(func(k string, e Value) bool {
			if v.Get(k) != e {
				t.Fatalf("Get(%q) does not find the member Members saw", k)
			}
			m[k] = toAny(t, e)
			return true
		})
		if len(m) != v.Len() {
			t.Fatalf("object Len %d, Members saw %d keys", v.Len(), len(m))
		}
		return m
	}
	t.Fatalf("bad kind %v", v.Kind())
	return nil
}

func refControl(r rune) bool { return unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' }

// refStrings lists every string value (not key) in x, as Value.Strings
// should visit them. Map order is unknown, so the result is sorted by the
// caller.
func refStrings(x any, out *[]string) {
	switch x := x.(type) {
	case string:
		*out = append(*out, x)
	case []any:
		for _, e := range x {
			refStrings(e, out)
		}
	case map[string]any:
		for _, e := range x {
			refStrings(e, out)
		}
	}
}

// refDupAndDepth reports, using encoding/json's tokenizer, whether any object
// in valid JSON data repeats a decoded key, and the deepest nesting.
func refDupAndDepth(data []byte) (dup bool, depth int) {
	type frame struct {
		obj     bool
		wantKey bool
		keys    map[string]bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return dup, depth
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.obj && top.wantKey {
			dup = dup || top.keys[k]
			top.keys[k] = true
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, &frame{obj: tok == json.Delim('{'), wantKey: true, keys: map[string]bool{}})
			depth = max(depth, len(stack))
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].wantKey = true
			}
		default:
			if top != nil {
				top.wantKey = true
			}
		}
	}
}

// refLoneSurrogate reports whether valid JSON data holds a \u escape of a
// UTF-16 surrogate that is not part of a high-low pair.
func refLoneSurrogate(data []byte) bool {
	hex := func(i int) (uint64, bool) {
		if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
			return 0, false
		}
		r, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 32)
		return r, err == nil
	}
	in := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\':
			r, ok := hex(i)
			switch {
			case !ok:
				i++ // a two-character escape
			case r >= 0xd800 && r < 0xdc00:
				if lo, ok := hex(i + 6); ok && lo >= 0xdc00 && lo < 0xe000 {
					i += 11
					continue
				}
				return true
			case r >= 0xdc00 && r < 0xe000:
				return true
			default:
				i += 5
			}
		}
	}
	return false
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"file_path":"/home/u/p/src/main.go"}`,
		`{"command":"ls -la\n","timeout":120,"run_in_background":false,"x":null}`,
		`[1,-0.5e+3,"\u00e9\ud83d\ude00",{"a":[{}],"b":{"c":[]}}]`,
		`{"a":1,"\u0061":2}`,
		`"\ud800"`, `"\udc00\ud800"`, "\"\xff\"", "\"\x7f\u0085\"",
		`{"a":1,}`, `01`, `1.`, `[`, `{"a"}`, " \t\n\r", "",
		`{"a.b":{"c":"\"\\\/\b\f\n\r\t\u0000"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		valid := json.Valid(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(data) || e.Msg == "" {
				t.Fatalf("bad error %#v", err)
			}
			if !valid {
				return
			}
			// We reject more than encoding/json; each extra rejection must
			// have one of the documented reasons.
			dup, depth := refDupAndDepth(data)
			if utf8.Valid(data) && !refLoneSurrogate(data) && !dup && depth <= MaxDepth {
				t.Fatalf("rejected JSON that encoding/json accepts: %v", err)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted JSON that encoding/json rejects")
		}
		if !utf8.Valid(data) || refLoneSurrogate(data) {
			t.Fatalf("accepted invalid UTF-8 or a lone surrogate")
		}
		if dup, depth := refDupAndDepth(data); dup || depth > MaxDepth {
			t.Fatalf("accepted a duplicate key (%v) or depth %d", dup, depth)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		root := d.Root()
		got := toAny(t, root)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("value mismatch:\n got %#v\nwant %#v", got, want)
		}
		if raw := string(root.Raw()); raw != strings.Trim(string(data), " \t\r\n") {
			t.Fatalf("root Raw = %q", raw)
		}
		var gotS, wantS []string
		root.Strings(func(s string) bool {
			gotS = append(gotS, s)
			return true
		})
		refStrings(want, &wantS)
		if len(gotS) != len(wantS) {
			t.Fatalf("Strings visited %d strings, want %d", len(gotS), len(wantS))
		}
	})
}

func TestRefHelpers(t *testing.T) {
	for _, tt := range []struct {
		in         string
		dup, lone  bool
		depth      int
		ourOffset  int
		encAccepts bool
	}{
		{`{"a":1,"\u0061":2}`, true, false, 1, 7, true},
		{`[{"a":{"b":1,"b":[2]}}]`, true, false, 4, 13, true},
		{`{"a":{"a":1},"b":{"a":2}}`, false, false, 2, -1, true},
		{`"\ud800"`, false, true, 0, 1, true},
		{`"\\ud800"`, false, false, 0, -1, true},
		{`"\udc00"`, false, true, 0, 1, true},
		{`"\ud83d\ude00"`, false, false, 0, -1, true},
		{`"\ud83d\ude00\ude00"`, false, true, 0, 13, true},
		{"\"\xff\"", false, false, 0, 1, true},
		{nest("[", "]", MaxDepth+1, ""), false, false, MaxDepth + 1, MaxDepth, true},
	} {
		data := []byte(tt.in)
		if json.Valid(data) != tt.encAccepts {
			t.Errorf("json.Valid(%.40q) = %v", tt.in, !tt.encAccepts)
		}
		dup, depth := refDupAndDepth(data)
		if dup != tt.dup || depth != tt.depth || refLoneSurrogate(data) != tt.lone {
			t.Errorf("ref(%.40q) = dup %v depth %d lone %v", tt.in, dup, depth, refLoneSurrogate(data))
		}
		_, err := Parse(data)
		var e *Error
		switch {
		case tt.ourOffset < 0 && err != nil:
			t.Errorf("Parse(%.40q): %v", tt.in, err)
		case tt.ourOffset >= 0 && (!errors.As(err, &e) || e.Offset != tt.ourOffset):
			t.Errorf("Parse(%.40q) = %v, want an error at offset %d", tt.in, err, tt.ourOffset)
		}
	}
}
