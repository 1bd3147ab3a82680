package main

import (
	"os"
	"path/filepath"
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
	r := newSymlinkResolver()
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
