package shell

import (
	"path"
	"strings"
	"testing"
)

// TestResolveJoined: the analyzer's resolve, which joins clean paths into
// the arena, places every path as the plain resolve does.
func TestResolveJoined(t *testing.T) {
	dirs := []string{"/", "/p", "/work/app", "/p/", "/p//q", "/p/./q", "/p/..", "", "rel", "/a/b/c"}
	ps := []string{"a", "a/b", "HEAD~1", "--stat", ".", "..", "a/", "a//b", "./a", "a/./b", "a/../b", "~", "~/x", "~+", "~+/y", "~u/z", "/abs", "/abs/../x", "", "...", ".a", "a.", "a/.b"}
	an := &analyzer{opts: Options{Home: "/home/u"}, res: new(Analysis)}
	an.res.reset()
	for _, d := range dirs {
		for _, p := range ps {
			if got, want := an.resolve(p, d), resolve(p, d, "/home/u"); got != want {
				t.Errorf("resolve(%q, %q) = %q, want %q", p, d, got, want)
			}
		}
	}
}

// TestCleanRel: cleanRel holds exactly for the relative paths path.Clean
// leaves alone.
func TestCleanRel(t *testing.T) {
	for _, p := range []string{"", "a", "a/b", ".", "..", "a/", "a//b", "./a", "a/.", "a/..", ".a", "..a", "a..", "/a", "a/.../b"} {
		want := p != "" && p[0] != '/' && path.Clean(p) == p && p != "." && p != ".." && !hasDotDotElem(p)
		if got := cleanRel(p); got != want {
			t.Errorf("cleanRel(%q) = %v, want %v", p, got, want)
		}
	}
}

func hasDotDotElem(p string) bool {
	return p == ".." || len(p) >= 3 && (p[:3] == "../" || p[len(p)-3:] == "/..")
}

// TestAnalyzeIntoKeepsStrings: the paths an analysis handed out keep their
// text after the Analysis is reused for other commands (joined paths are
// carved from memory that is never written twice).
func TestAnalyzeIntoKeepsStrings(t *testing.T) {
	opts := Options{Cwd: "/work/app", Home: "/home/u"}
	var res Analysis
	type kept struct {
		got  *string
		want string
	}
	var all []kept
	for round := range 200 {
		for _, s := range reuseCorpus {
			AnalyzeInto(&res, s, opts)
			if round%50 != 0 {
				continue
			}
			for _, c := range res.Commands {
				for _, list := range [][]PathRef{c.ArgPaths, c.Reads, c.Writes, c.Searches} {
					for i := range list {
						p := list[i].Path
						all = append(all, kept{&p, string([]byte(p))})
					}
				}
			}
		}
	}
	if len(all) == 0 {
		t.Fatal("no paths kept")
	}
	for _, k := range all {
		if *k.got != k.want {
			t.Fatalf("a path handed out changed from %q to %q after reuse", k.want, *k.got)
		}
	}
}

// TestPlainLit: plainLit is !strings.ContainsAny(s, `\{*?[`).
func TestPlainLit(t *testing.T) {
	for _, s := range []string{"", "git", "a\\b", "{a,b}", "*.go", "a?", "[ab]", "HEAD~1", "--stat", "é*", "x]"} {
		if got, want := plainLit(s), !strings.ContainsAny(s, `\{*?[`); got != want {
			t.Errorf("plainLit(%q) = %v, want %v", s, got, want)
		}
	}
}
