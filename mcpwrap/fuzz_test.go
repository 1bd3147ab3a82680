package mcpwrap

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/tomltext"
	"golang.org/x/tools/txtar"
)

// checkRoundTrip is the property every input must have: wrap either
// refuses, or wrapping again changes nothing and unwrapping gives back the
// input byte for byte, every entry from its record.
func checkRoundTrip(t *testing.T, c Client, file string, in []byte) {
	t.Helper()
	o := Options{Command: testCommand, Partial: true, HeadersInArgs: true}
	w, err := WrapText(c, file, in, nil, &o)
	if err != nil {
		if strings.Contains(err.Error(), "internal error") {
			t.Fatalf("wrap: %v\ninput:\n%s", err, in)
		}
		return
	}
	again, err := WrapText(c, file, w.Content, w.State, &o)
	if err != nil || again.Changed || !bytes.Equal(again.State, w.State) {
		t.Fatalf("wrap again: changed %v, err %v\ninput:\n%s\nwrapped:\n%s", again != nil && again.Changed, err, in, w.Content)
	}
	for _, e := range w.Entries {
		if e.Action == AlreadyWrapped {
			// Unwrap undoes every wrap, also one it did not make: the
			// round trip is the property of inputs with nothing wrapped.
			return
		}
	}
	u, err := UnwrapText(c, file, w.Content, w.State, nil)
	if err != nil {
		t.Fatalf("unwrap: %v\ninput:\n%s\nwrapped:\n%s", err, in, w.Content)
	}
	if !bytes.Equal(u.Content, in) {
		t.Fatalf("unwrap differs\ninput:\n%q\nwrapped:\n%q\nunwrapped:\n%q", in, w.Content, u.Content)
	}
	if w.Changed && (!u.Identical || u.State != nil) {
		t.Fatalf("unwrap: identical %v, state %q", u.Identical, u.State)
	}
	for _, e := range u.Entries {
		if e.Action != Restored {
			t.Fatalf("unwrap: %s\ninput:\n%s", e, in)
		}
	}
	// Without the state, unwrap still restores what the entries run.
	bare, err := UnwrapText(c, file, w.Content, nil, nil)
	if err != nil {
		t.Fatalf("unwrap without state: %v", err)
	}
	if w.Changed && bytes.Contains(bare.Content, []byte(NameFlag)) && !bytes.Contains(in, []byte(NameFlag)) {
		t.Fatalf("unwrap without state leaves a wrapped entry:\n%s", bare.Content)
	}
}

// FuzzRoundTripJSON checks the round trip on arbitrary JSON inputs, read
// as each JSON client's file.
func FuzzRoundTripJSON(f *testing.F) {
	for _, s := range goldenInputs(f, ".json") {
		f.Add(s)
	}
	f.Add(`{"mcpServers":{"a":{"command":"x","args":["\u00e9\ud83d\ude00","\"q\"","--"]}}}`)
	f.Add(`{"mcpServers":{"a":{"args":[],"command":"x"},"b":{"command":"toolgate","args":["mcp","--"]}}}`)
	f.Add(`{"mcpServers":{"u":{"type":"http","url":"https://h/mcp","headers":{"A":"b"}},"g":{"httpUrl":"http://x"}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []Client{Claude, Gemini, Cursor} {
			checkRoundTrip(t, c, "/p/.claude.json", []byte(s))
		}
	})
}

// FuzzRoundTripTOML checks the round trip on arbitrary Codex files.
func FuzzRoundTripTOML(f *testing.F) {
	for _, s := range goldenInputs(f, ".toml") {
		f.Add(s)
	}
	f.Add("[mcp_servers.a]\ncommand = \"x\"\n[mcp_servers.b]\ncommand = '''y'''\nargs = [ # c\n'a', \"\"\"b\n\"\"\"]\n")
	f.Fuzz(func(t *testing.T, s string) {
		checkRoundTrip(t, Codex, "/p/config.toml", []byte(s))
	})
}

// goldenInputs returns the "in" files of the golden cases whose file name
// ends in ext.
func goldenInputs(tb testing.TB, ext string) []string {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		ar := txtar.Parse(b)
		if !strings.Contains(string(ar.Comment), ext) {
			continue
		}
		for _, fl := range ar.Files {
			if fl.Name == "in" {
				out = append(out, string(fl.Data))
			}
		}
	}
	return out
}

// TestRoundTripGenerated checks the round trip on generated files: random
// server names, commands and arguments (quotes, escapes, non-ASCII,
// "--", "$"), in random layouts.
func TestRoundTripGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		c := []Client{Claude, Gemini, Cursor, Codex}[i%4]
		var src string
		if c == Codex {
			src = genTOML(r)
		} else {
			src = genJSON(r)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			file := "/p/.mcp.json"
			if c == Codex {
				file = "/p/config.toml"
			}
			o := Options{Command: testCommand, Partial: true}
			w, err := WrapText(c, file, []byte(src), nil, &o)
			if err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			if !w.Changed && strings.Contains(src, `"command"`) && c != Codex {
				for _, e := range w.Entries {
					if e.Action == Refused && !strings.Contains(e.Reason, "'$'") {
						t.Fatalf("refused: %s\n%s", e, src)
					}
				}
			}
			checkRoundTrip(t, c, file, []byte(src))
		})
	}
}

var genWords = []string{"npx", "-y", "--", "a b", `q"uote`, `back\slash`, "é", "日本", "${HOME}", "$X", "tab\there", "", "--upstream-name=x", "mcp", "toolgate", "/opt/x y/bin"}

func genWord(r *rand.Rand) string { return genWords[r.IntN(len(genWords))] }

func genJSON(r *rand.Rand) string {
	ws := []string{" ", "", "\n  ", "\n\t", "\n    "}
	sp := func() string { return ws[r.IntN(len(ws))] }
	var b strings.Builder
	b.WriteString("{" + sp() + `"other": [1, {"x": null}],` + sp() + `"mcpServers": {`)
	n := 1 + r.IntN(3)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		name := fmt.Sprintf("s%d%s", i, []string{"", "-x", ".y", " z"}[r.IntN(4)])
		b.WriteString(sp() + quoteJSON(name) + ":" + sp() + "{")
		var members []string
		members = append(members, `"command":`+sp()+quoteJSON(genWord(r)+"cmd"))
		if r.IntN(3) > 0 {
			var args []string
			for range r.IntN(4) {
				args = append(args, sp()+quoteJSON(genWord(r)))
			}
			members = append(members, `"args": [`+strings.Join(args, ",")+sp()+"]")
		}
		if r.IntN(2) == 0 {
			members = append(members, `"env": {"K": `+quoteJSON(genWord(r))+`}`)
		}
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		b.WriteString(sp() + strings.Join(members, ","+sp()) + sp() + "}")
	}
	b.WriteString(sp() + "}" + sp() + "}\n")
	return b.String()
}

func genTOML(r *rand.Rand) string {
	str := func(s string) string {
		if r.IntN(3) == 0 && !strings.ContainsAny(s, "'\n") {
			return "'" + s + "'"
		}
		return tomltext.Quote(s)
	}
	var b strings.Builder
	b.WriteString("# generated\nmodel = \"m\"\n")
	for i := range 1 + r.IntN(3) {
		name := []string{"s%d", `"s.x%d"`, "'s y%d'"}[r.IntN(3)]
		b.WriteString("\n[mcp_servers." + fmt.Sprintf(name, i) + "]\n")
		lines := []string{"command = " + str(genWord(r)+"cmd") + []string{"", " # c"}[r.IntN(2)]}
		if r.IntN(3) > 0 {
			var args []string
			for range r.IntN(4) {
				args = append(args, str(genWord(r)))
			}
			sep := []string{", ", ",\n  "}[r.IntN(2)]
			lines = append(lines, "args = ["+strings.Join(args, sep)+"]")
		}
		if r.IntN(2) == 0 {
			lines = append(lines, "env = { K = "+str(genWord(r))+" }")
		}
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	return b.String()
}
