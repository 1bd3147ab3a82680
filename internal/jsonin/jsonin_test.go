package jsonin

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, in string) *Doc {
	t.Helper()
	d, err := Parse([]byte(in))
	if err != nil {
		t.Fatalf("Parse(%q): %v", in, err)
	}
	return d
}

func nest(open, close string, n int, mid string) string {
	return strings.Repeat(open, n) + mid + strings.Repeat(close, n)
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		off  int
		want string // substring of the message
	}{
		// Structure.
		{"", 0, "empty input"},
		{" \t\r\n", 4, "empty input"},
		{"1 2", 2, "after the top-level value"},
		{"{} {}", 3, "after the top-level value"},
		{"[1,]", 3, "trailing comma in array"},
		{`{"a":1,}`, 7, "trailing comma in object"},
		{"[,1]", 1, "expected a value"},
		{"[1 2]", 3, "expected ',' or ']'"},
		{`{"a" 1}`, 5, "expected ':'"},
		{`{"a":1 "b":2}`, 7, "expected ',' or '}'"},
		{`{a:1}`, 1, "expected a string key"},
		{`{1:1}`, 1, "expected a string key"},
		{`{"a":}`, 5, "expected a value"},
		{"[", 1, "unexpected end of input in array"},
		{"[1", 2, "unexpected end of input in array"},
		{"{", 1, "unexpected end of input in object"},
		{`{"a"`, 4, "unexpected end of input in object"},
		{`{"a":`, 5, "unexpected end of input: expected a value"},
		{`{"a":1`, 6, "unexpected end of input in object"},
		{"]", 0, "expected a value"},
		{"}", 0, "expected a value"},
		// Non-JSON habits.
		{"'a'", 0, "double quotes"},
		{"// c\n1", 0, "comments"},
		{"1 /* c */", 2, "after the top-level value"},
		{"NaN", 0, "NaN and Infinity"},
		{"Infinity", 0, "NaN and Infinity"},
		{"-Infinity", 1, "expected a digit"},
		{"\xef\xbb\xbf{}", 0, "U+FEFF"},
		{"\x00", 0, "U+0000"},
		// Literals.
		{"tru", 0, `expected "true"`},
		{"True", 0, "expected a value"},
		{"nul", 0, `expected "null"`},
		{"fals", 0, `expected "false"`},
		{"truex", 4, "after the top-level value"},
		{"[nulll]", 5, "expected ',' or ']'"},
		// Numbers.
		{"01", 0, "leading zero"},
		{"-01", 1, "leading zero"},
		{"00", 0, "leading zero"},
		{"-", 1, "expected a digit"},
		{"+1", 0, "numbers start with"},
		{".5", 0, "numbers start with"},
		{"1.", 2, "after the decimal point"},
		{"1.e5", 2, "after the decimal point"},
		{"1e", 2, "in the exponent"},
		{"1e+", 3, "in the exponent"},
		{"1E-x", 3, "in the exponent"},
		{"0x10", 1, "after the top-level value"},
		{"[1.5.2]", 4, "expected ',' or ']'"},
		// Strings.
		{`"abc`, 4, "string that starts at offset 0"},
		{`["abcdefghijklmnop`, 18, "string that starts at offset 1"},
		{"\"a\x01b\"", 2, "control character U+0001"},
		{"\"a\nb\"", 2, "control character U+000A"},
		{"\"0123456789\tb\"", 11, "control character U+0009"},
		{`"\x"`, 1, `invalid escape sequence \x`},
		{`"\'"`, 1, `invalid escape sequence \'`},
		{"\"\\\x00\"", 1, "backslash followed by character U+0000"},
		{`"\`, 2, "end of input in a string escape"},
		{`"\u12"`, 1, "four hex digits"},
		{`"\u12G4"`, 1, "four hex digits"},
		{`"\U0041"`, 1, `invalid escape sequence \U`},
		// UTF-8.
		{"\"\xff\"", 1, "invalid UTF-8 (byte 0xff)"},
		{"\"abc\xc3\"", 4, "invalid UTF-8"},
		{"\"\xc0\xaf\"", 1, "invalid UTF-8"},              // overlong
		{"\"\xed\xa0\x80\"", 1, "invalid UTF-8"},          // encoded surrogate
		{"\"\xf4\x90\x80\x80\"", 1, "invalid UTF-8"},      // above U+10FFFF
		{"\"01234567\x80\"", 9, "invalid UTF-8"},          // after a fast-path word
		{"[\"ok\"]\xff", 6, "byte 0xff (invalid UTF-8)"},  // outside strings
		{"{\"k\xfe\":1}", 3, "invalid UTF-8 (byte 0xfe)"}, // in a key
		{"\"\xe2\x82\"", 1, "invalid UTF-8"},              // truncated
		{"\"ok\" \xe2\x80\xa8", 5, "U+2028"},              // valid but not whitespace
		// Lone surrogates.
		{`"\ud800"`, 1, `lone UTF-16 surrogate \ud800`},
		{`"\uD800x"`, 1, `lone UTF-16 surrogate \ud800`},
		{`"\ud800\u0041"`, 1, "lone UTF-16 surrogate"},
		{`"\ud800\ud800"`, 1, "lone UTF-16 surrogate"},
		{`"\ud800\n"`, 1, "lone UTF-16 surrogate"},
		{`"ab\udc00"`, 3, `lone UTF-16 surrogate \udc00`},
		{`"\ud83d\ude00\ude00"`, 13, "low surrogate without a high surrogate"},
		{`{"\udfff":1}`, 2, "lone UTF-16 surrogate"},
		{`"\ud800`, 1, "lone UTF-16 surrogate"},
		// Duplicate keys, compared after decoding, at any depth.
		{`{"a":1,"a":2}`, 7, `duplicate key "a"`},
		{`{"a":1,"\u0061":2}`, 7, `duplicate key "a"`},
		{`{"\u0061":1,"a":2}`, 12, `duplicate key "a"`},
		{`{"\u0061":1,"\u0061":2}`, 12, `duplicate key "a"`},
		{`{"é":1,"\u00e9":2}`, 8, `duplicate key "é"`},
		{`{"😀":1,"\ud83d\ude00":2}`, 10, `duplicate key "😀"`},
		{`{"a\/b":1,"a/b":2}`, 10, `duplicate key "a/b"`},
		{`{"":1,"":2}`, 6, `duplicate key ""`},
		{`{"x":{"y":[{"a":1,"b":2,"a":3}]}}`, 24, `duplicate key "a"`},
		{`[{},{"k":{"k":1},"k":2}]`, 17, `duplicate key "k"`},
		{`{"a":1,"a":{"b":1,"b":2}}`, 7, `duplicate key "a"`}, // first in text order
		{`{"\u0000":1,"\u0000":2}`, 12, `duplicate key "\x00"`},
		{`{"\u0061\u00e9":1,"a\u00E9":2}`, 18, `duplicate key "aé"`},
		{`{"\ud83d\ude00\n":1,"😀\u000a":2}`, 20, `duplicate key "😀\n"`},
		// Depth.
		{nest("[", "]", MaxDepth+1, ""), MaxDepth, "nesting deeper than 1000"},
		{nest(`{"a":`, "}", MaxDepth+1, "1"), 5 * MaxDepth, "nesting deeper than 1000"},
		{nest("[", "]", 100000, ""), MaxDepth, "nesting deeper than 1000"},
	}
	for _, tt := range tests {
		d, err := Parse([]byte(tt.in))
		if err == nil {
			t.Errorf("Parse(%.60q) = %v, want error", tt.in, d.Root().Kind())
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%.60q): error %T is not *Error", tt.in, err)
			continue
		}
		if e.Offset != tt.off || !strings.Contains(e.Msg, tt.want) {
			t.Errorf("Parse(%.60q) = %q, want offset %d and %q", tt.in, err, tt.off, tt.want)
		}
	}
}

func TestDuplicateKeysLargeObject(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + string(rune('A'+i%26)) + string(rune('a'+i/26)) + `":0`)
	}
	ok := b.String() + "}"
	mustParse(t, ok)
	for _, dup := range []string{`"kCa"`, `"k\u0043a"`, `"\u006bZc"`} {
		in := b.String() + "," + dup + ":1}"
		_, err := Parse([]byte(in))
		var e *Error
		if !errors.As(err, &e) || e.Offset != len(b.String())+1 || !strings.Contains(e.Msg, "duplicate key") {
			t.Errorf("large object + %s: err = %v, want duplicate at %d", dup, err, len(b.String())+1)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	mustParse(t, nest("[", "]", MaxDepth, ""))
	mustParse(t, nest(`{"a":`, "}", MaxDepth, "1"))
	mustParse(t, nest(`[{"a":`, "}]", MaxDepth/2, "[]"[:0]+"1"))
}

func TestValid(t *testing.T) {
	for _, in := range []string{
		"0", "-0", "1", "-1", "10", "1.5", "-0.0e+0", "1E10", "1e-5", "123456789012345678901234567890",
		"1e400", "true", "false", "null", `""`, `"a"`, "[]", "{}", " [ ] ", "\t{\n}\r\n",
		`[1,"a",true,null,{},[]]`, `{"a":{"a":{"a":1}}}`, `{"a":1,"A":2,"a ":3}`,
		`"\"\\\/\b\f\n\r\t\u0000\uffff\uD83D\uDE00"`, "\"é€😀\u007f\"", `"\u00e9"`,
		`[{"a":1},{"a":2}]`, `{"a":[1],"b":{"a":2}}`,
		`{"\u0061":1,"\u0062":2,"\u00e9":3,"\u00e8":4,"\u00e9x":5,"é\n":6,"é\t":7}`,
	} {
		mustParse(t, in)
	}
}

func TestLookups(t *testing.T) {
	d := mustParse(t, `{
		"file_path": "/home/u/p/src/main.go",
		"n": -1.50e3, "t": true, "f": false, "z": null,
		"e\u0073c": "x\ty",
		"arr": [10, "two", [3], {"four": 4}],
		"obj": {"sub": {"deep": "yes", "a.b": "dotted"}, "a": {"b": "nested"}, "a.b": "flat"},
		"": "empty key"
	}`)
	root := d.Root()
	if root.Kind() != Object || root.Len() != 9 {
		t.Fatalf("root: %v with %d members", root.Kind(), root.Len())
	}
	str := func(v Value) string {
		s, ok := v.Str()
		if !ok {
			t.Errorf("Str of %s %q: not a string", v.Kind(), v.Raw())
		}
		return s
	}
	if got := str(root.Get("file_path")); got != "/home/u/p/src/main.go" {
		t.Errorf("file_path = %q", got)
	}
	if got := str(root.Get("esc")); got != "x\ty" {
		t.Errorf("esc = %q", got)
	}
	if got := str(root.Get("")); got != "empty key" {
		t.Errorf(`"" = %q`, got)
	}
	for _, tt := range []struct {
		path, text string
		kind       Kind
	}{
		{"n", "-1.50e3", Number},
		{"t", "true", Bool},
		{"f", "false", Bool},
		{"z", "null", Null},
		{"esc", "x\ty", String},
		{"obj.sub.deep", "yes", String},
		{"obj.a.b", "nested", String},
		{"arr", `[10, "two", [3], {"four": 4}]`, Array},
	} {
		v := root.Lookup(tt.path)
		if !v.Exists() || v.Kind() != tt.kind || v.Text() != tt.text {
			t.Errorf("Lookup(%q) = %v %v %q, want %v %q", tt.path, v.Exists(), v.Kind(), v.Text(), tt.kind, tt.text)
		}
	}
	for _, path := range []string{"missing", "file_path.x", "obj.sub.deep.x", "obj.sub.a.b", "arr.0", "obj.", ".obj", "n.x", "E"} {
		if v := root.Lookup(path); v.Exists() {
			t.Errorf("Lookup(%q) = %s, want missing", path, v.Raw())
		}
	}
	var all []string
	root.Get("obj").LookupAll("a.b", func(v Value) bool {
		all = append(all, v.Text())
		return true
	})
	if want := []string{"nested", "flat"}; !slices.Equal(all, want) {
		t.Errorf("LookupAll(a.b) = %q, want %q", all, want)
	}
	all = nil
	root.LookupAll("obj.sub.a.b", func(v Value) bool {
		all = append(all, v.Text())
		return true
	})
	if want := []string{"dotted"}; !slices.Equal(all, want) {
		t.Errorf("LookupAll(obj.sub.a.b) = %q, want %q", all, want)
	}

	arr := root.Get("arr")
	if arr.Len() != 4 {
		t.Errorf("arr.Len() = %d", arr.Len())
	}
	for i, want := range []string{"10", `two`, "[3]", `{"four": 4}`} {
		if got := arr.Index(i).Text(); got != want {
			t.Errorf("arr.Index(%d) = %q, want %q", i, got, want)
		}
	}
	if arr.Index(4).Exists() || arr.Index(-1).Exists() || root.Index(0).Exists() {
		t.Error("Index out of range or on an object exists")
	}
	if got := arr.Index(3).Get("four").Text(); got != "4" {
		t.Errorf("arr[3].four = %q", got)
	}
	var idx []int
	arr.Each(func(i int, v Value) bool {
		idx = append(idx, i)
		return i < 2
	})
	if !slices.Equal(idx, []int{0, 1, 2}) {
		t.Errorf("Each stopped after %v, want [0 1 2]", idx)
	}
	var keys []string
	root.Members(func(k string, v Value) bool {
		keys = append(keys, k)
		return true
	})
	if want := []string{"file_path", "n", "t", "f", "z", "esc", "arr", "obj", ""}; !slices.Equal(keys, want) {
		t.Errorf("Members keys = %q, want %q", keys, want)
	}
	if got := string(root.Get("obj").Get("a").Raw()); got != `{"b": "nested"}` {
		t.Errorf("Raw = %q", got)
	}
	if got := string(root.Get("esc").Raw()); got != `"x\ty"` {
		t.Errorf("Raw of string = %q", got)
	}
	if off := root.Get("t").Offset(); string(d.data[off:off+4]) != "true" {
		t.Errorf("Offset of t = %d", off)
	}
}

func TestMissingAndWrongKind(t *testing.T) {
	var zero Value
	d := mustParse(t, `{"s":"x","n":1,"a":[1],"o":{}}`)
	root := d.Root()
	for _, v := range []Value{zero, root.Get("nope"), (*Doc)(nil).Root()} {
		if v.Exists() || v.Kind() != Null || v.Raw() != nil || v.Text() != "" || v.Len() != 0 || v.HasControl() || v.Offset() != -1 {
			t.Errorf("missing value misbehaves: %#v", v)
		}
		if s, ok := v.Str(); ok || s != "" {
			t.Error("Str of missing")
		}
		if v.Get("a").Exists() || v.Lookup("a.b").Exists() || v.Index(0).Exists() {
			t.Error("lookup through missing")
		}
		v.Each(func(int, Value) bool { t.Error("Each of missing"); return true })
		v.Members(func(string, Value) bool { t.Error("Members of missing"); return true })
		v.Strings(func(string) bool { t.Error("Strings of missing"); return true })
		v.LookupAll("a", func(Value) bool { t.Error("LookupAll of missing"); return true })
	}
	if _, ok := root.Get("n").Str(); ok {
		t.Error("Str of a number")
	}
	if root.Get("s").Get("x").Exists() || root.Get("a").Get("0").Exists() {
		t.Error("Get on a non-object")
	}
	if root.Get("s").Len() != 0 || root.Get("n").Len() != 0 || root.Get("o").Len() != 0 {
		t.Error("Len of scalar or empty object")
	}
	root.Get("a").Members(func(string, Value) bool { t.Error("Members of array"); return true })
	root.Get("o").Each(func(int, Value) bool { t.Error("Each of object"); return true })
}

func TestStrDecoding(t *testing.T) {
	tests := []struct{ in, want string }{
		{`""`, ""},
		{`"plain ascii text that is longer than eight bytes"`, "plain ascii text that is longer than eight bytes"},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{`"\u0041\u00e9\u20ac"`, "Aé€"},
		{`"\u00E9\u20AC"`, "é€"},
		{`"\ud83d\ude00"`, "😀"},
		{`"\uD83D\uDE00x\uDBFF\uDFFF"`, "😀x\U0010FFFF"},
		{`"a\u0000b"`, "a\x00b"},
		{`"\uffff\ufffe\ufffd"`, "\uffff\ufffe\ufffd"},
		{"\"é€😀\"", "é€😀"},
		{`"mixed é \u00e9 \\u00e9"`, `mixed é é \u00e9`},
		{`"C:\\Users\\me"`, `C:\Users\me`},
	}
	for _, tt := range tests {
		v := mustParse(t, tt.in).Root()
		if got, ok := v.Str(); !ok || got != tt.want {
			t.Errorf("Str(%s) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
		if got := v.Text(); got != tt.want {
			t.Errorf("Text(%s) = %q, want %q", tt.in, got, tt.want)
		}
		// Get must find the same text used as a key.
		obj := mustParse(t, `{`+tt.in+`:true}`).Root()
		if !obj.Get(tt.want).Exists() {
			t.Errorf("Get(%q) in {%s:true} is missing", tt.want, tt.in)
		}
		if obj.Get(tt.want+"x").Exists() || (tt.want != "" && obj.Get(tt.want[:len(tt.want)-1]).Exists()) {
			t.Errorf("Get of a near miss of %q found a member", tt.want)
		}
	}
}

func TestText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"0", "0"}, {"-0", "-0"}, {"1.50", "1.50"}, {"1E+2", "1E+2"}, {"  12  ", "12"},
		{"true", "true"}, {"false", "false"}, {"null", "null"},
		{`"a\nb"`, "a\nb"}, {`[ 1 ]`, "[ 1 ]"}, {`{"a" : 1}`, `{"a" : 1}`},
	} {
		if got := mustParse(t, tt.in).Root().Text(); got != tt.want {
			t.Errorf("Text(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestHasControl(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`"plain"`, false},
		{`"tab\tnl\ncr\r"`, false},
		{`"\u0009\u000a\u000D"`, false},
		{`"nul\u0000"`, true},
		{`"\u0001"`, true},
		{`"\u001f"`, true},
		{`"\u001F"`, true},
		{`"\b"`, true},
		{`"\f"`, true},
		{`"\u007f"`, true},
		{"\"del\x7f\"", true},
		{"\"0123456789abcdef\x7f\"", true},
		{`"\u0085"`, true},
		{"\"nel\u0085\"", true},
		{"\"\u009f\"", true},
		{"\"\u00a0\"", false},
		{`"\u0020\u007e\u00a0"`, false},
		{`"\u202e"`, false}, // bidi, not a control character (prompts show it)
		{`"\ud83d\ude00"`, false},
		{`"\\u0000"`, false}, // an escaped backslash, not a NUL
		{`1`, false},
		{`["\u0000"]`, false}, // only strings themselves
	} {
		if got := mustParse(t, tt.in).Root().HasControl(); got != tt.want {
			t.Errorf("HasControl(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// A key with a control character does not mark its value.
	if mustParse(t, `{"\u0000":"x"}`).Root().Get("\x00").HasControl() {
		t.Error("HasControl leaked from key to value")
	}
}

func TestStringsWalk(t *testing.T) {
	d := mustParse(t, `{"k1":"a","k2":["b",{"k3":"c","k4":[1,"d",null]},"e"],"k5":{},"k6":"f\u0067"}`)
	var got []string
	d.Root().Strings(func(s string) bool {
		got = append(got, s)
		return true
	})
	if want := []string{"a", "b", "c", "d", "e", "fg"}; !slices.Equal(got, want) {
		t.Errorf("Strings = %q, want %q", got, want)
	}
	got = nil
	d.Root().Get("k2").Index(1).Strings(func(s string) bool {
		got = append(got, s)
		return true
	})
	if want := []string{"c", "d"}; !slices.Equal(got, want) {
		t.Errorf("Strings of k2[1] = %q, want %q", got, want)
	}
	got = nil
	d.Root().Strings(func(s string) bool {
		got = append(got, s)
		return len(got) < 3
	})
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("stopped Strings = %q, want %q", got, want)
	}
	got = nil
	d.Root().Get("k1").Strings(func(s string) bool {
		got = append(got, s)
		return true
	})
	if want := []string{"a"}; !slices.Equal(got, want) {
		t.Errorf("Strings of a string = %q, want %q", got, want)
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Null: "null", Bool: "bool", Number: "number", String: "string", Array: "array", Object: "object", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestErrorString(t *testing.T) {
	_, err := Parse([]byte(`[1,]`))
	if got, want := err.Error(), "offset 3: trailing comma in array"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestLargeTape(t *testing.T) {
	// More nodes than fit in the Doc itself.
	var b strings.Builder
	b.WriteString("[")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"i":"` + strings.Repeat("x", i%7) + `"}`)
	}
	b.WriteString("]")
	root := mustParse(t, b.String()).Root()
	if root.Len() != 1000 {
		t.Fatalf("Len = %d", root.Len())
	}
	if got := root.Index(999).Get("i").Text(); got != strings.Repeat("x", 999%7) {
		t.Errorf("last element = %q", got)
	}
}

func TestAllocs(t *testing.T) {
	data := []byte(`{"file_path":"/home/u/p/src/main.go","offset":10,"limit":200}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = Parse(data) }); n > 1 {
		t.Errorf("Parse of a small input: %v allocations, want 1", n)
	}
	root := mustParse(t, string(data)).Root()
	if n := testing.AllocsPerRun(100, func() { _ = root.Get("limit").Text() == "200" && root.Lookup("file_path").HasControl() }); n > 1 {
		t.Errorf("lookups: %v allocations", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = root.Get("file_path").Exists() }); n != 0 {
		t.Errorf("Get: %v allocations, want 0", n)
	}
}

func TestDocParseReuse(t *testing.T) {
	var d Doc
	if err := d.Parse([]byte(`{"file_path":"/p/a.go"}`)); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.Root().Lookup("file_path").Str(); s != "/p/a.go" {
		t.Fatalf("first parse: file_path = %q", s)
	}
	if err := d.Parse([]byte(`{"command":"git status"}`)); err != nil {
		t.Fatal(err)
	}
	if v := d.Root().Lookup("file_path"); v.Exists() {
		t.Fatalf("second parse still holds the first document's field")
	}
	if s, _ := d.Root().Lookup("command").Str(); s != "git status" {
		t.Fatalf("second parse: command = %q", s)
	}
	if err := d.Parse([]byte(`{"a":`)); err == nil {
		t.Fatal("truncated input parsed")
	}
	if d.Root().Lookup("command").Exists() {
		t.Fatal("a failed parse left the old document in place")
	}
	in := []byte(`{"file_path":"/p/src/main.go","limit":10}`)
	if n := testing.AllocsPerRun(100, func() {
		if err := d.Parse(in); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("parsing a small input into a held Doc allocates %v times, want 0", n)
	}
}

// TestDocReset: a reset Doc holds no document and no reference to the
// source it parsed, and parses again as a fresh one.
func TestDocReset(t *testing.T) {
	var d Doc
	src := []byte(`{"command":"git status"}`)
	if err := d.Parse(src); err != nil {
		t.Fatal(err)
	}
	d.Reset()
	if d.Root().Exists() || d.data != nil || len(d.tape) != 0 {
		t.Fatalf("reset Doc still holds a document: root %v, %d bytes, %d nodes", d.Root().Exists(), len(d.data), len(d.tape))
	}
	if err := d.Parse(src); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.Root().Get("command").Str(); s != "git status" {
		t.Fatalf("after Reset, command = %q", s)
	}
}

// TestDocKeepsLargeTape: a Doc reused for inputs larger than its embedded
// tape keeps the grown one, across Reset too, so the next parse allocates
// nothing; a small input between them is read correctly.
func TestDocKeepsLargeTape(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"k1":[`)
	for i := range 40 {
		if i > 0 {
			b.WriteString(`,`)
		}
		fmt.Fprintf(&b, `"v%d"`, i)
	}
	b.WriteString(`],"k39":"v39"}`)
	large := []byte(b.String())
	var d Doc
	for _, src := range [][]byte{large, []byte(`{"a":[1,2]}`), large} {
		if err := d.Parse(src); err != nil {
			t.Fatal(err)
		}
		d.Reset()
	}
	if n := testing.AllocsPerRun(20, func() {
		if err := d.Parse(large); err != nil {
			t.Fatal(err)
		}
		d.Reset()
	}); n != 0 {
		t.Errorf("reparsing a large input allocates %v times", n)
	}
	if err := d.Parse([]byte(`{"a":[1,2]}`)); err != nil {
		t.Fatal(err)
	}
	if d.Root().Get("a").Len() != 2 || d.Root().Get("k1").Exists() {
		t.Error("a small input after a large one is misread")
	}
	if err := d.Parse(large); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.Root().Get("k39").Str(); s != "v39" {
		t.Errorf("k39 = %q", s)
	}
}
