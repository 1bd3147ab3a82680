package pathmatch

import (
	"path"
	"testing"
)

// TestRelToASCII: the byte-by-byte comparison answers as the
// component-wise one wherever it answers at all.
func TestRelToASCII(t *testing.T) {
	dirs := []string{"/w/proj", "/W/Proj", "/w", "/w/pro", "/ks", "/s/x", "/w/pr\u00f6j"}
	paths := []string{"/w/proj", "/w/proj/a", "/W/PROJ/src/x", "/w/projx", "/w/pro", "/w", "/w/p/roj", "/\u212as", "/\u017f/x", "/w/pr\u00d6j/a", "/w/proj/\u212a", "/x/proj", "/"}
	answered := 0
	for _, d := range dirs {
		for _, p := range paths {
			rel, ok, done := relToASCII(p, d)
			if !done {
				continue
			}
			answered++
			if wrel, wok := relToFold(p, d); rel != wrel || ok != wok {
				t.Errorf("relToASCII(%q, %q) = %q, %v; component-wise %q, %v", p, d, rel, ok, wrel, wok)
			}
		}
	}
	if answered < len(dirs)*len(paths)/2 {
		t.Errorf("the byte-by-byte comparison answered only %d cases", answered)
	}
}

// FuzzRelToASCII: as TestRelToASCII, on any pair.
func FuzzRelToASCII(f *testing.F) {
	f.Add("/w/proj/src", "/w/proj")
	f.Add("/K/x", "/\u212a")
	f.Fuzz(func(t *testing.T, abs, dir string) {
		rel, ok, done := relToASCII(abs, dir)
		if !done {
			return
		}
		if wrel, wok := relToFold(abs, dir); rel != wrel || ok != wok {
			t.Fatalf("relToASCII(%q, %q) = %q, %v; component-wise %q, %v", abs, dir, rel, ok, wrel, wok)
		}
	})
}

// TestAbsCleanShortcut: an absolute path that isClean takes is what
// path.Clean would have returned.
func TestAbsCleanShortcut(t *testing.T) {
	for _, p := range []string{"/", "//", "/a", "/a/b", "/a/./b", "/a//b", "/a/b/", "/..", "/a/..", "/.", "/.a", "/a.", "/...", "/a/.../b", "/a/b/.", "/a/..b", "/\u00e9/x"} {
		got, ok := Abs(p, tCwd, tHome)
		if want := path.Clean(p); !ok || got != want {
			t.Errorf("Abs(%q) = %q, %v; want %q", p, got, ok, want)
		}
	}
}
