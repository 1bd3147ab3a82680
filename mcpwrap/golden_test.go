package mcpwrap

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/*.txtar")

// testCommand is the toolgate program the golden files wrap with.
const testCommand = "/usr/local/bin/toolgate"

// TestGolden runs the cases of testdata/*.txtar. Each archive has a
// comment of "key=value" options (client, file, servers, proxy-arg,
// partial, headers-in-args) and an "in" file; the golden sections are "wrapped" (the
// wrapped file), "report" (one line per entry) or "error" (a refusal). Every
// case that wraps also checks that wrapping again changes nothing and that
// unwrapping gives back "in" byte for byte.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			opts := map[string]string{}
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(line, "#") {
					opts[k] = v
				}
			}
			c, err := ParseClient(opts["client"])
			if err != nil {
				t.Fatal(err)
			}
			file := "/home/u/project/" + opts["file"]
			o := Options{Command: testCommand, Partial: opts["partial"] == "true", HeadersInArgs: opts["headers-in-args"] == "true"}
			if s := opts["servers"]; s != "" {
				o.Servers = strings.Split(s, ",")
			}
			if s := opts["proxy-arg"]; s != "" {
				o.ProxyArgs = strings.Split(s, " ")
			}
			in := section(t, ar, "in", true)
			got := map[string][]byte{}
			res, err := WrapText(c, file, in, nil, &o)
			if err != nil {
				got["error"] = []byte(err.Error() + "\n")
			} else {
				got["wrapped"] = res.Content
				got["report"] = report(res)
			}
			if *update {
				rewrite(t, f, ar, got)
				return
			}
			for name, want := range got {
				if w := section(t, ar, name, false); !bytes.Equal(w, want) {
					t.Errorf("%s:\n--- got\n%s--- want\n%s", name, want, w)
				}
			}
			for _, fl := range ar.Files {
				if _, ok := got[fl.Name]; !ok && fl.Name != "in" {
					t.Errorf("section %s expected, not produced", fl.Name)
				}
			}
			if err != nil {
				var re *RefusedError
				if !errors.As(err, &re) && !strings.Contains(err.Error(), file) {
					t.Errorf("the error does not name the file: %v", err)
				}
				return
			}
			if res.Changed {
				roundTrip(t, c, file, in, res, o)
			}
		})
	}
}

// roundTrip checks that wrapping res's content again changes nothing and
// that unwrapping it gives back in exactly.
func roundTrip(t *testing.T, c Client, file string, in []byte, res *Result, o Options) {
	t.Helper()
	again, err := WrapText(c, file, res.Content, res.State, &o)
	if err != nil {
		t.Fatalf("wrap again: %v", err)
	}
	if again.Changed || !bytes.Equal(again.Content, res.Content) || !bytes.Equal(again.State, res.State) {
		t.Errorf("wrapping twice changed the file:\n%s", again.Content)
	}
	un, err := UnwrapText(c, file, res.Content, res.State, &Options{Servers: o.Servers})
	if err != nil {
		t.Fatalf("unwrap: %v", err)
	}
	if !bytes.Equal(un.Content, in) {
		t.Errorf("unwrap does not give back the original:\n--- got\n%s--- want\n%s", un.Content, in)
	}
	if res.Changed && len(o.Servers) == 0 && (!un.Identical || un.State != nil) {
		t.Errorf("unwrap: Identical %v, state %q", un.Identical, un.State)
	}
	for _, e := range un.Entries {
		if e.Action != Restored {
			t.Errorf("unwrap: %s", e)
		}
	}
}

func report(res *Result) []byte {
	var b bytes.Buffer
	for _, e := range res.Entries {
		b.WriteString(e.String() + "\n")
	}
	return b.Bytes()
}

func section(t *testing.T, ar *txtar.Archive, name string, required bool) []byte {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data
		}
	}
	if required {
		t.Fatalf("no section %q", name)
	}
	return nil
}

// rewrite replaces the golden sections of an archive with got.
func rewrite(t *testing.T, path string, ar *txtar.Archive, got map[string][]byte) {
	out := &txtar.Archive{Comment: ar.Comment}
	out.Files = append(out.Files, txtar.File{Name: "in", Data: section(t, ar, "in", true)})
	for _, name := range []string{"error", "wrapped", "report"} {
		if d, ok := got[name]; ok {
			out.Files = append(out.Files, txtar.File{Name: name, Data: d})
		}
	}
	if err := os.WriteFile(path, txtar.Format(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
