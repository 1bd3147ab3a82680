package pathmatch

import (
	"slices"
	"strings"
	"testing"
)

var fuzzPatterns = []string{
	"./.env", ".env", "src/**", "**/*.{pem,key}", "~/.ssh/**", "//etc/passwd", "/secrets/",
	"a/**/b", "**/x", "./[!a-c]x", `./\*.txt`, "build/", "../shared/**", "{./a,~/b}/x",
}

func FuzzCompile(f *testing.F) {
	for _, s := range fuzzPatterns {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pa, errA := Compile(s, ForAllow, tRoot)
		pd, errD := Compile(s, ForDeny, tRoot)
		if (errA == nil) != (errD == nil) {
			t.Fatalf("Compile(%q): allow err %v, deny err %v", s, errA, errD)
		}
		if errA != nil {
			pe, ok := errA.(*PatternError)
			if !ok || pe.Offset < 0 || pe.Offset > len(s) {
				t.Fatalf("Compile(%q): bad error %#v", s, errA)
			}
			return
		}
		if pa.String() != s || pd.String() != s {
			t.Fatalf("String() = %q, %q; want %q", pa.String(), pd.String(), s)
		}
		for _, p := range []*Pattern{pa, pd} {
			p.Match("/w/proj/a/.env", tCwd, tHome)
			p.MatchName("a/.env")
			p.MayMatchBelow("/w", tCwd, tHome)
			p.MayMatchGlob("/w/proj/*/.e*", tCwd, tHome)
			p.NamesLiteral()
		}
		if pa.NamesLiteral() != pd.NamesLiteral() {
			t.Fatalf("NamesLiteral differs between modes for %q", s)
		}
	})
}

// escapeGlob makes a path into a glob that produces exactly it.
func escapeGlob(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?[]{}\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func FuzzMatch(f *testing.F) {
	paths := []string{".env", "src/a.go", "x/src/a.go", "/home/u/.ssh/id", "/etc/passwd",
		"/w/proj/.ENV.", "/w/proj/.env::$DATA", `/w/proj\.env`, "a/b", "/r/secrets/x", "bx", "BX"}
	for i, s := range fuzzPatterns {
		f.Add(s, paths[i%len(paths)])
	}
	f.Fuzz(func(t *testing.T, pat, p string) {
		sp := Spellings(p)
		if len(sp) == 0 || sp[0] != p {
			t.Fatalf("Spellings(%q)[0] = %q", p, sp)
		}
		allow, err := Compile(pat, ForAllow, tRoot)
		if err != nil {
			return
		}
		deny, err := Compile(pat, ForDeny, tRoot)
		if err != nil {
			t.Fatalf("deny compile of %q: %v", pat, err)
		}
		if allow.MatchName(p) && !deny.MatchName(p) {
			t.Fatalf("%q: allow MatchName(%q) but not deny", pat, p)
		}
		a, ok := Abs(p, tCwd, tHome)
		if !ok {
			return
		}
		am := allow.Match(a, tCwd, tHome)
		dm := deny.Match(a, tCwd, tHome)
		if am && !dm {
			t.Fatalf("%q matches %q for allow but not for deny", pat, a)
		}
		if am && !allow.MayMatchBelow(a, tCwd, tHome) {
			t.Fatalf("%q matches %q but MayMatchBelow says no (allow)", pat, a)
		}
		if dm && !deny.MayMatchBelow(a, tCwd, tHome) {
			t.Fatalf("%q matches %q but MayMatchBelow says no (deny)", pat, a)
		}
		if dm && !deny.MayMatchGlob(escapeGlob(a), tCwd, tHome) {
			t.Fatalf("%q matches %q but MayMatchGlob(%q) says no", pat, a, escapeGlob(a))
		}
		if am && !allow.MayMatchGlob(escapeGlob(a), tCwd, tHome) {
			t.Fatalf("%q matches %q but MayMatchGlob(%q) says no (allow)", pat, a, escapeGlob(a))
		}
		// A glob whose wildcards produce dot-files produces more: every
		// path a bash glob may reach, and each path's own wildcard forms.
		for _, g := range []string{escapeGlob(a), starLast(a)} {
			if deny.MayMatchGlob(g, tCwd, tHome) && !deny.MayMatchGlobDot(g, tCwd, tHome) {
				t.Fatalf("%q: MayMatchGlob(%q) but not MayMatchGlobDot", pat, g)
			}
		}
		if dm && !deny.MayMatchGlobDot(starLast(a), tCwd, tHome) {
			t.Fatalf("%q matches %q but MayMatchGlobDot(%q) says no", pat, a, starLast(a))
		}
		if IsSecret(a) && !GlobMayBeSecret(starLast(a), tCwd, tHome, true) {
			t.Fatalf("%q is a secret but GlobMayBeSecret(%q) says no", a, starLast(a))
		}
	})
}

// starLast replaces the last component of the absolute path p by "*",
// which (dot-files included) produces it.
func starLast(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 || i == len(p)-1 {
		return escapeGlob(p)
	}
	return escapeGlob(p[:i+1]) + "*"
}

func FuzzPatchPaths(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n*** Delete File: d\n*** End Patch\n")
	f.Add("*** Begin Patch\r\n*** Update File: x\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n")
	f.Add("*** Begin Patch\n*** End Patch")
	f.Add("")
	f.Fuzz(func(t *testing.T, body string) {
		paths, err := PatchPaths(body)
		if err != nil {
			if _, ok := err.(*PatchError); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if len(paths) == 0 {
			t.Fatal("no paths and no error")
		}
		for _, p := range paths {
			if p == "" || strings.TrimSpace(p) != p {
				t.Fatalf("bad path %q", p)
			}
		}
	})
}

// FuzzDiffPaths checks that DiffPaths never panics and finds the path of
// a +++ header wherever it stands.
func FuzzDiffPaths(f *testing.F) {
	f.Add("--- a/x\n+++ b/y\n", "z/w")
	f.Add("diff --git a/x b/x\nrename to y\n", ".env")
	f.Fuzz(func(t *testing.T, body, p string) {
		DiffPaths(body)
		if p == "" || strings.ContainsAny(p, "\n\r\t\"") || strings.TrimSpace(p) != p || p == "/dev/null" {
			return
		}
		if !slices.Contains(DiffPaths(body+"\n+++ "+p+"\n"), p) {
			t.Fatalf("DiffPaths misses +++ %q after %q", p, body)
		}
	})
}
