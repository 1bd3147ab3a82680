package pathmatch

import (
	"errors"
	"path"
	"strings"
	"testing"
)

// links is a file system of symlinks for Physical: every path whose
// components pass through a link resolves to the path under its target.
type links map[string]string

func (l links) resolve(p string) (string, error) {
	if p == "/broken" || strings.HasPrefix(p, "/broken/") {
		return "", errors.New("permission denied")
	}
	for range 8 {
		changed := false
		for from, to := range l {
			if p == from || strings.HasPrefix(p, from+"/") {
				p = path.Clean(to + p[len(from):])
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return p, nil
}

func TestPhysical(t *testing.T) {
	fs := links{"/w/docs/k": "/home/u/.ssh", "/w/up": "/w/a/b"}
	for _, tc := range []struct {
		raw, want, err string
	}{
		{"/w/docs/k/../.ssh/id_rsa", "/home/u/.ssh/id_rsa", ""},
		{"/w/docs/x/../y", "/w/docs/y", ""},
		{"/w/up/../c", "/w/a/c", ""},
		{"/w/./a//b/..", "/w/a", ""},
		{"/../..", "/", ""},
		{"/broken/../x", "", "permission denied"},
	} {
		got, err := Physical(tc.raw, fs.resolve)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Physical(%q) error = %v, want %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Physical(%q) = %q, %v; want %q", tc.raw, got, err, tc.want)
		}
	}
}

func TestRawAbs(t *testing.T) {
	for _, tc := range []struct {
		p, dir, home, want string
		ok                 bool
	}{
		{"a/../b", "/w", "/h", "/w/a/../b", true},
		{"~/x/../y", "/w", "/h", "/h/x/../y", true},
		{"~/x/../y", "/w", "", "", false},
		{"/a/../b", "rel", "/h", "/a/../b", true},
		{"a/../b", "rel", "/h", "", false},
		{"a/b", "/w", "/h", "", false},
		{"a/..b", "/w", "/h", "", false},
	} {
		got, ok := RawAbs(tc.p, tc.dir, tc.home)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RawAbs(%q, %q, %q) = %q, %v; want %q, %v", tc.p, tc.dir, tc.home, got, ok, tc.want, tc.ok)
		}
	}
}

func TestGlobDirs(t *testing.T) {
	for _, tc := range []struct {
		pat, dir string
		after    bool
	}{
		{"../../.ssh/*", "../../.ssh", false},
		{"a/b", "a", false},
		{"*/../../etc/*", "", true},
		{"src/**/../x", "src", true},
		{"/*", "/", false},
		{"a/{b,c}/d", "a", false},
		{"a/../b*", "a/..", false},
	} {
		if got := LiteralDir(tc.pat); got != tc.dir {
			t.Errorf("LiteralDir(%q) = %q, want %q", tc.pat, got, tc.dir)
		}
		if got := DotDotAfterGlob(tc.pat); got != tc.after {
			t.Errorf("DotDotAfterGlob(%q) = %v, want %v", tc.pat, got, tc.after)
		}
	}
}

// FuzzPhysical checks that without symlinks the physical reading of a path
// is its lexical one, and that a link is followed before a "..".
func FuzzPhysical(f *testing.F) {
	for _, s := range []string{"/a/../b", "/a/b/../../c", "/../x", "/a/./b//c/..", "/l/../y", "/proc/self/cwd/x", "/proc/self/root", "/proc/1/task/2/fd/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !strings.HasPrefix(raw, "/") {
			return
		}
		if p, k := Proc(path.Clean(raw), "/w"); k == ProcAlias && (p != path.Clean(p) || !strings.HasPrefix(p, "/")) {
			t.Fatalf("Proc(%q) = %q, not clean and absolute", path.Clean(raw), p)
		} else if k != ProcAlias && p != "" {
			t.Fatalf("Proc(%q) = %q for kind %d", path.Clean(raw), p, k)
		}
		none := func(string) (string, error) { return "", nil }
		got, err := Physical(raw, none)
		if err != nil || got != path.Clean(raw) {
			t.Fatalf("Physical(%q) without links = %q, %v; want %q", raw, got, err, path.Clean(raw))
		}
		fs := links{"/l": "/t/u"}
		got, err = Physical(raw, fs.resolve)
		if err != nil {
			t.Fatal(err)
		}
		if got != path.Clean(got) || !strings.HasPrefix(got, "/") {
			t.Fatalf("Physical(%q) = %q is not clean and absolute", raw, got)
		}
		if got == "/l" || strings.HasPrefix(got, "/l/") {
			t.Fatalf("Physical(%q) = %q still passes through the link", raw, got)
		}
	})
}

func TestProc(t *testing.T) {
	for _, tc := range []struct {
		abs, cwd, want string
		kind           ProcKind
	}{
		{"/proc/self/cwd/config/prod.yaml", "/w", "/w/config/prod.yaml", ProcAlias},
		{"/proc/thread-self/cwd", "/w", "/w", ProcAlias},
		{"/proc/self/task/12/cwd/a", "/w", "/w/a", ProcAlias},
		{"/proc/self/root/etc/shadow", "/w", "/etc/shadow", ProcAlias},
		{"/proc/self/root", "/w", "/", ProcAlias},
		{"/proc/self/cwd/a", "", "", ProcUnknown},
		{"/proc/1234/cwd/a", "/w", "", ProcUnknown},
		{"/proc/1234/task/1/root/etc", "/w", "", ProcUnknown},
		{"/proc/self/exe", "/w", "", ProcUnknown},
		{"/proc/self/map_files/7f-80", "/w", "", ProcUnknown},
		{"/proc/self/fd/3", "/w", "", ProcDescriptor},
		{"/proc/42/fd/0", "/w", "", ProcDescriptor},
		{"/dev/fd/3", "/w", "", ProcDescriptor},
		{"/dev/stdin", "/w", "", ProcDescriptor},
		{"/proc/self/environ", "/w", "", NotProc},
		{"/proc/cpuinfo", "/w", "", NotProc},
		{"/proc/self/task/x/cwd", "/w", "", NotProc},
		{"/procx/self/cwd", "/w", "", NotProc},
		{"/w/proc/self/cwd", "/w", "", NotProc},
		{"/dev/null", "/w", "", NotProc},
	} {
		got, kind := Proc(tc.abs, tc.cwd)
		if got != tc.want || kind != tc.kind {
			t.Errorf("Proc(%q, %q) = %q, %d; want %q, %d", tc.abs, tc.cwd, got, kind, tc.want, tc.kind)
		}
	}
}
