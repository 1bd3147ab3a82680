package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSymlinkResolver(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	must(os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")))
	must(os.Symlink("../real/sub", filepath.Join(dir, "real", "rel")))
	must(os.Symlink("loop2", filepath.Join(dir, "loop1")))
	must(os.Symlink("loop1", filepath.Join(dir, "loop2")))
	r := NewSymlinkResolver()
	for _, tc := range []struct{ in, want string }{
		{"link", "real"},
		{"link/sub/missing/deeper", "real/sub/missing/deeper"},
		{"link/rel/x", "real/sub/x"},
		{"missing/link", "missing/link"},
		{"real/sub", "real/sub"},
	} {
		for range 2 { // the second time from the cache
			got, err := r.Resolve(filepath.Join(dir, tc.in))
			if err != nil || got != filepath.Join(dir, tc.want) {
				t.Errorf("Resolve(%s) = %q, %v; want %s", tc.in, got, err, tc.want)
			}
		}
	}
	if _, err := r.Resolve(filepath.Join(dir, "loop1", "x")); err == nil {
		t.Error("a symlink loop resolved without error")
	}
	if _, err := r.Resolve("relative/path"); err == nil {
		t.Error("a relative path resolved without error")
	}
}

func TestGlobHidesDotFiles(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.go", ".hidden.go", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ pat, want string }{
		{"*.go", "a.go"},
		{".*.go", ".hidden.go"},
		{"*", "a.go b.txt"},
	} {
		got, err := Glob(filepath.Join(dir, tc.pat))
		var names []string
		for _, g := range got {
			names = append(names, filepath.Base(g))
		}
		if err != nil || strings.Join(names, " ") != tc.want {
			t.Errorf("Glob(%s) = %v, %v; want %s", tc.pat, names, err, tc.want)
		}
	}
	if d, err := IsDir(dir); !d || err != nil {
		t.Errorf("IsDir(%s) = %v, %v", dir, d, err)
	}
	if d, err := IsDir(filepath.Join(dir, "a.go")); d || err != nil {
		t.Errorf("IsDir(a.go) = %v, %v", d, err)
	}
}
