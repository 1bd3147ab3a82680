package jsonin

import (
	"encoding/json"
	"strings"
	"testing"
)

var (
	smallRead = []byte(`{"file_path":"/home/u/p/src/main.go"}`)
	bigWrite  = makeWrite(4096, `\tfmt.Printf(\"héllo, %s\\n\", name) // wörld\n`)
	// plainWrite is ASCII prose with an escaped newline every 60 bytes.
	plainWrite = makeWrite(4096, `The quick brown fox jumps over the lazy dog, again and again.\n`)
)

// makeWrite builds a Write call input whose content is line repeated to
// about n bytes. The default line is Go source with the escapes JSON needs
// (newlines, tabs, quotes, backslashes) and a little non-ASCII text.
func makeWrite(n int, line string) []byte {
	var b strings.Builder
	b.WriteString(`{"file_path":"/home/u/p/src/main.go","content":"package main\n\n`)
	for b.Len() < n {
		b.WriteString(line)
	}
	b.WriteString(`"}`)
	return []byte(b.String())
}

func benchParse(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		d, err := Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		s, ok := d.Root().Get("file_path").Str()
		if !ok || s != "/home/u/p/src/main.go" {
			b.Fatal("bad file_path")
		}
	}
}

func benchStdlib(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
		if s, ok := m["file_path"].(string); !ok || s != "/home/u/p/src/main.go" {
			b.Fatal("bad file_path")
		}
	}
}

func BenchmarkSmallRead(b *testing.B)       { benchParse(b, smallRead) }
func BenchmarkSmallReadStdlib(b *testing.B) { benchStdlib(b, smallRead) }
func BenchmarkWrite4K(b *testing.B)         { benchParse(b, bigWrite) }
func BenchmarkWrite4KStdlib(b *testing.B)   { benchStdlib(b, bigWrite) }
func BenchmarkPlain4K(b *testing.B)         { benchParse(b, plainWrite) }
func BenchmarkPlain4KStdlib(b *testing.B)   { benchStdlib(b, plainWrite) }

// BenchmarkWrite4KValid is encoding/json's validation alone, a lower bound
// for any approach built on it.
func BenchmarkWrite4KValid(b *testing.B) {
	b.SetBytes(int64(len(bigWrite)))
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(bigWrite) {
			b.Fatal("invalid")
		}
	}
}

func TestBenchInputs(t *testing.T) {
	for _, data := range [][]byte{smallRead, bigWrite, plainWrite} {
		root := mustParse(t, string(data)).Root()
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		for k, want := range m {
			if got, _ := root.Get(k).Str(); got != want {
				t.Errorf("%s differs from encoding/json", k)
			}
		}
	}
	for _, data := range [][]byte{bigWrite, plainWrite} {
		if len(data) < 4096 || len(data) > 4300 {
			t.Errorf("write input is %d bytes", len(data))
		}
	}
}
