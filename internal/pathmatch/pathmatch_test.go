package pathmatch

import (
	"errors"
	"path"
	"slices"
	"strings"
	"testing"
)

const (
	tCwd  = "/w/proj"
	tHome = "/home/u"
	tRoot = "/r"
)

func TestAbs(t *testing.T) {
	tests := []struct {
		p, cwd, home string
		want         string
		ok           bool
	}{
		{"a/b", "/w", "/h", "/w/a/b", true},
		{"./a/../b", "/w", "/h", "/w/b", true},
		{"../../../../x", "/w", "/h", "/x", true},
		{"/a//b/./c/", "/w", "/h", "/a/b/c", true},
		{"~", "/w", "/h", "/h", true},
		{"~/", "/w", "/h", "/h", true},
		{"~/.ssh/id", "/w", "/h", "/h/.ssh/id", true},
		{"~/../x", "/w", "/h/u", "/h/x", true},
		{"~root/x", "/w", "/h", "", false},
		{"~root", "/w", "/h", "", false},
		{"~", "/w", "", "", false},
		{"", "/w", "/h", "", false},
		{"a", "", "/h", "", false},
		{"a", "rel", "/h", "", false},
		{"src/../../etc/passwd", "/w/proj", "/h", "/w/etc/passwd", true},
		{"/w/proj/src/../../../etc/passwd", "", "", "/etc/passwd", true},
		{"~x/../y", "/w", "/h", "", false},
	}
	for _, tt := range tests {
		got, ok := Abs(tt.p, tt.cwd, tt.home)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Abs(%q, %q, %q) = %q, %v; want %q, %v", tt.p, tt.cwd, tt.home, got, ok, tt.want, tt.ok)
		}
	}
}

func TestInside(t *testing.T) {
	tests := []struct {
		abs, dir string
		want     bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b/c", "/a/b", true},
		{"/a/bc", "/a/b", false},
		{"/a", "/a/b", false},
		{"/x", "/", true},
		{"/", "/", true},
		{"/A/b", "/a", false},
	}
	for _, tt := range tests {
		if got := Inside(tt.abs, tt.dir); got != tt.want {
			t.Errorf("Inside(%q, %q) = %v", tt.abs, tt.dir, got)
		}
	}
}

func TestSpellings(t *testing.T) {
	tests := []struct {
		abs  string
		want []string
	}{
		{"/p/.env", []string{"/p/.env"}},
		{"/p/.env.", []string{"/p/.env.", "/p/.env"}},
		{"/p/.env ./x", []string{"/p/.env ./x", "/p/.env/x"}},
		{"/p/x.env::$DATA", []string{"/p/x.env::$DATA", "/p/x.env::$DATA", "/p/x.env"}},
		{`/p\.env`, []string{`/p\.env`, "/p/.env"}},
		{`/p\.env:s. `, []string{`/p\.env:s. `, `/p\.env:s`, `/p\.env`, "/p/.env:s. ", "/p/.env:s", "/p/.env"}},
		{"/a..../b", []string{"/a..../b", "/a/b"}},
	}
	for _, tt := range tests {
		got := Spellings(tt.abs)
		want := slices.Compact(tt.want)
		// Order after the first element is not part of the contract.
		if got[0] != tt.abs {
			t.Errorf("Spellings(%q)[0] = %q", tt.abs, got[0])
		}
		gs, ws := slices.Clone(got), slices.Clone(want)
		slices.Sort(gs)
		slices.Sort(ws)
		ws = slices.Compact(ws)
		if !slices.Equal(gs, ws) {
			t.Errorf("Spellings(%q) = %q; want %q", tt.abs, got, ws)
		}
	}
}

type matchCase struct {
	pat   string
	path  string // absolute, or relative to tCwd
	allow bool   // ForAllow result
	deny  bool   // ForDeny result
}

func abs(t testing.TB, p string) string {
	t.Helper()
	a, ok := Abs(p, tCwd, tHome)
	if !ok {
		t.Fatalf("Abs(%q) failed", p)
	}
	return a
}

func TestMatch(t *testing.T) {
	tests := []matchCase{
		// The cleaned path is what is matched: src/.. escapes src.
		{"src/**", "src/../../etc/passwd", false, false},
		{"src/**", "/w/proj/src/../../etc/passwd", false, false},
		{"./src/**", "src/a/../b", true, true},
		// Anchors.
		{"//etc/passwd", "/etc/passwd", true, true},
		{"//etc/passwd", "/w/etc/passwd", false, false},
		{"//etc", "/etc/ssh/sshd_config", true, true},
		{"~/.ssh/**", "/home/u/.ssh/id_rsa", true, true},
		{"~/.ssh/**", "/w/proj/.ssh/id_rsa", false, false},
		{"~/.ssh", "/home/u/.ssh/id_rsa", true, true},
		{"~", "/home/u/x", true, true},
		{"~/../other/x", "/home/other/x/y", true, true},
		{"/secrets/**", "/r/secrets/a", true, true},
		{"/secrets/**", "/w/proj/secrets/a", false, false},
		{"/../up", "/up/x", true, true},
		{"./.env", ".env", true, true},
		{"./.env", "sub/.env", false, false},
		{".", "x/y", true, true},
		{"./", "/w/proj", true, true},
		{"./", "/w/projx", false, false},
		{"../shared/**", "/w/shared/a", true, true},
		{"../shared/**", "/w/proj/x/shared/a", false, false},
		// Bare names: any depth below the working directory, both modes.
		{".env", ".env", true, true},
		{".env", "a/b/.env", true, true},
		{".env", "/elsewhere/.env", false, false},
		{".env", "a/.envx", false, false},
		{"*.key", "deep/er/id.key", true, true},
		{"*.key", "id.key/inner", true, true}, // a matching directory covers children
		{"build/", "a/build/out.o", true, true},
		{"build/", "a/build", true, true},
		{"build/", "a/builds/x", false, false},
		// Relative with a slash: anchored for allow, any depth for deny.
		{"src/**", "src/main.go", true, true},
		{"src/**", "lib/src/main.go", false, true},
		{"src/**", "/other/src/main.go", false, false},
		{"src/*.go", "src/a.go", true, true},
		{"src/*.go", "x/src/a.go", false, true},
		{"src/*.go", "src/sub/a.go", false, false},
		// ** spans directories; **/ does not swallow its slash.
		{"**/x", "x", true, true},
		{"**/x", "d/x", true, true},
		{"**/x", "dx", false, false},
		{"**/x", "d/dx", false, false},
		{"a/**/b", "a/b", true, true},
		{"a/**/b", "a/1/2/3/b", true, true},
		{"a/**/b", "a/1/2/3/bb", false, false},
		{"a/**/b", "ab", false, false},
		{"a/**", "a", true, true},
		{"a/**", "ab", false, false},
		{"a**b", "a/x/b", false, false}, // ** inside a segment is *
		{"a**b", "axxb", true, true},
		{"**/a/**/a/**/b", "a/x/a/y/a/b", true, true},
		{"**/a/**/a/**/b", "a/x/y/b", false, false},
		// * and ? stay within a segment.
		{"./*.txt", "a.txt", true, true},
		{"./*.txt", "d/a.txt", false, false},
		{"./?.txt", "a.txt", true, true},
		{"./?.txt", "ab.txt", false, false},
		{"./?", "é", true, true},
		// Classes.
		{"./[abc].txt", "b.txt", true, true},
		{"./[abc].txt", "d.txt", false, false},
		{"./[a-c]x", "cx", true, true},
		{"./[!a-c]x", "dx", true, true},
		{"./[!a-c]x", "bx", false, true}, // deny: "Bx" is not in [a-c]
		{"./[^a-c]x", "bx", false, true},
		{"./[!a-c]x", "-x", true, true},
		{"./[]]x", "]x", true, true},
		{"./[[:digit:]]", "7", true, true},
		{"./[[:digit:]]", "x", false, false},
		{"./[!a]", "A", true, true}, // deny accepts what allow accepts
		{"./[a]", "A", false, true},
		// Escapes.
		{`./\*.txt`, "*.txt", true, true},
		{`./\*.txt`, "a.txt", false, false},
		{`./a\[1]`, "a[1]", true, true},
		// Braces.
		{"**/*.{pem,key}", "a/b.key", true, true},
		{"**/*.{pem,key}", "a/b.pub", false, false},
		{"{./a,~/b}/x", "/home/u/b/x", true, true},
		{"./{a,b{c,d}}", "bd", true, true},
		// Case folding and spellings: deny only.
		{"./.env", "/w/proj/.ENV", false, true},
		{"./.env", "/W/PROJ/.env", false, true},
		{"/Secrets", "/R/secrets", false, true},
		{"./.env", "/w/proj/.env.", false, true},
		{"./.env", "/w/proj/.env  ", false, true},
		{"./.env", "/w/proj/.env::$DATA", false, true},
		{"./.env", "/w/proj/.env:x", false, true},
		{"./.env", `/w/proj\.env`, false, true},
		{".env", `/w/proj/sub\.ENV. `, false, true},
		{"src/**", "/w/proj/SRC/x", false, true},
		{"./straße", "/w/proj/STRASSE", false, false}, // simple folding only
		{"./k", "/w/proj/\u212a", false, true},        // Kelvin sign folds to k
		{"./.env", "/w/proj/.env.local", false, false},
	}
	for _, tt := range tests {
		p := tt.path
		if p[0] != '/' {
			p = abs(t, p)
		}
		for _, m := range []struct {
			mode Mode
			want bool
		}{{ForAllow, tt.allow}, {ForDeny, tt.deny}} {
			pat, err := Compile(tt.pat, m.mode, tRoot)
			if err != nil {
				t.Fatalf("Compile(%q, %d): %v", tt.pat, m.mode, err)
			}
			if got := pat.Match(p, tCwd, tHome); got != m.want {
				t.Errorf("Compile(%q, mode %d).Match(%q) = %v; want %v", tt.pat, m.mode, p, got, m.want)
			}
		}
	}
}

// The caller cleans with Abs; the pattern must not match the escaped path.
func TestMatchCleanedPath(t *testing.T) {
	p, err := Compile("src/**", ForAllow, tRoot)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := Abs("src/../../etc/passwd", tCwd, tHome)
	if !ok || a != "/w/etc/passwd" {
		t.Fatalf("Abs = %q, %v", a, ok)
	}
	if p.Match(a, tCwd, tHome) {
		t.Errorf("src/** matched %q", a)
	}
	if !p.Match(abs(t, "src/x/../y"), tCwd, tHome) {
		t.Errorf("src/** did not match src/y")
	}
}

func TestMatchUnplaceable(t *testing.T) {
	deny, _ := Compile("~/x", ForDeny, tRoot)
	if deny.Match("/home/u/x", tCwd, "") {
		t.Error("~/x matched with an empty home")
	}
	cwdPat, _ := Compile("./x", ForAllow, tRoot)
	if cwdPat.Match("/w/proj/x", "", tHome) || cwdPat.Match("/w/proj/x", "rel", tHome) {
		t.Error("./x matched with no usable cwd")
	}
	// A relative path handed to a deny pattern falls back to MatchName.
	bare, _ := Compile(".env", ForDeny, tRoot)
	if !bare.Match("sub/.ENV", tCwd, tHome) {
		t.Error("deny .env did not match the relative sub/.ENV")
	}
	allow, _ := Compile(".env", ForAllow, tRoot)
	if allow.Match("sub/.env", tCwd, tHome) {
		t.Error("allow matched a relative path")
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		pat    string
		root   string
		offset int
	}{
		{"", tRoot, 0},
		{"a[bc", tRoot, 1},
		{"a/[!", tRoot, 2},
		{`a\`, tRoot, 1},
		{`src\main.go`, tRoot, 3},
		{`a\/b`, tRoot, 1},
		{"a\x00b", tRoot, 1},
		{"~user/x", tRoot, 0},
		{"~user", tRoot, 0},
		{"{a,b", tRoot, 0},
		{"x{a,{b}", tRoot, 1},
		{"a[x/y]", tRoot, 3},
		{"a[[:nope:]]", tRoot, 2},
		{"a[z-a]", tRoot, 2},
		{"/x", "", 0},
		{"/x", "relative", 0},
		{"src/*/../x", tRoot, 6},
		{"{,a}", tRoot, 0},
		{"{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}", tRoot, 0},
	}
	for _, tt := range tests {
		_, err := Compile(tt.pat, ForDeny, tt.root)
		var pe *PatternError
		if !errors.As(err, &pe) {
			t.Errorf("Compile(%q) error = %v; want a *PatternError", tt.pat, err)
			continue
		}
		if pe.Offset != tt.offset {
			t.Errorf("Compile(%q) offset = %d (%v); want %d", tt.pat, pe.Offset, pe, tt.offset)
		}
	}
	if _, err := Compile("x", Mode(7), tRoot); err == nil {
		t.Error("unknown mode compiled")
	}
	// Things that are fine.
	for _, ok := range []string{"a/../b", "../x", `\{a\}`, `a\ b`, "a}b", "[[]", "~", "//", "/", "**", "a{b}"} {
		if _, err := Compile(ok, ForDeny, tRoot); err != nil {
			t.Errorf("Compile(%q): %v", ok, err)
		}
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{"./.env", "src/**", "**/*.{pem,key}", "build/"} {
		p, err := Compile(s, ForAllow, tRoot)
		if err != nil {
			t.Fatal(err)
		}
		if p.String() != s {
			t.Errorf("String() = %q; want %q", p.String(), s)
		}
	}
}

func TestMatchName(t *testing.T) {
	tests := []struct {
		pat, name   string
		allow, deny bool
	}{
		{".env", ".env", true, true},
		{".env", "sub/.env", true, true},
		{".env", ".env/inner", true, true},
		{".env", "../.env", true, true},
		{".env", ".ENV", false, true},
		{".env", ".env.", false, true},
		{".env", `sub\.env`, false, true},
		{"*.key", "a/b.key", true, true},
		{"build/", "build", true, true},
		{"./.env", ".env", false, false},
		{"src/**", "src/x", false, false},
		{"/x", "x", false, false},
		{".env", "..", false, false},
	}
	for _, tt := range tests {
		for _, m := range []struct {
			mode Mode
			want bool
		}{{ForAllow, tt.allow}, {ForDeny, tt.deny}} {
			p, err := Compile(tt.pat, m.mode, tRoot)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.MatchName(tt.name); got != m.want {
				t.Errorf("Compile(%q, %d).MatchName(%q) = %v; want %v", tt.pat, m.mode, tt.name, got, m.want)
			}
		}
	}
}

func TestMayMatchBelow(t *testing.T) {
	tests := []struct {
		pat, dir string
		want     bool
	}{
		{"./secrets/**", "/w/proj", true},
		{"./secrets/**", "/w", true},
		{"./secrets/**", "/", true},
		{"./secrets/**", "/w/proj/secrets", true},
		{"./secrets/**", "/w/proj/secrets/deep", true},
		{"./secrets/**", "/w/proj/src", false},
		{"./secrets/**", "/other", false},
		{"./secrets/**", "/w/proj/SECRETS/x", true},
		{".env", "/w/proj", true},
		{".env", "/w/proj/a/b/c", true},
		{".env", "/other", false},
		{"src/**", "/w/proj/lib", true}, // deny: src at any depth
		{"//etc/shadow", "/etc", true},
		{"//etc/shadow", "/usr", false},
		{"~/.ssh/*", "/home/u", true},
		{"~/.ssh/*", "/home/u/docs", false},
		{"./a/*/c", "/w/proj/a/b", true},
		{"./a/*/c", "/w/proj/a/b/d", false},
		{"./a/*/c", "/w/proj/a/b/c/d", true},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pat, ForDeny, tRoot)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MayMatchBelow(tt.dir, tCwd, tHome); got != tt.want {
			t.Errorf("Compile(%q).MayMatchBelow(%q) = %v; want %v", tt.pat, tt.dir, got, tt.want)
		}
	}
	allow, _ := Compile("src/**", ForAllow, tRoot)
	if allow.MayMatchBelow("/w/proj/lib", tCwd, tHome) {
		t.Error("allow src/** may match below lib")
	}
}

func TestMayMatchGlob(t *testing.T) {
	tests := []struct {
		pat, glob string
		want      bool
	}{
		{".env", "/w/proj/*", false}, // bash * skips dot-files
		{".env", "/w/proj/.*", true},
		{".env", "/w/proj/.e*", true},
		{".env", "/w/proj/.[ef]nv", true},
		{".env", "/w/proj/.x*", false},
		{".env", "/w/proj/*/*", false},
		{".env", "/w/proj/*/.env", true},
		{".env", "/w/proj/sub/.EN?", true},
		{".env", "/other/.env", false},
		{".env", "*", false},
		{".env", ".e*", true},
		{".env", "/w/proj/{a,.env}", true},
		{".env", "/w/proj/{a,b}", false},
		{".env", "/w/proj/{1..3}", true}, // unsure
		{".env", "/w/proj/@(x|.env)", true},
		{".env", "/w/proj/**", true},
		{"*.pem", "/w/proj/*.txt", false},
		{"*.pem", "/w/proj/*.pem", true},
		{"*.pem", "/w/proj/*", true},
		{"*.pem", "/w/proj/cert*", true},
		{"./secrets/**", "/w/proj/*", true},
		{"./secrets/**", "/w/proj/s*/x", true},
		{"./secrets/**", "/w/proj/t*/x", false},
		{"./secrets/**", "/w/*", false}, // produces /w/proj, not below it
		{"./secrets/**", "/w/*/*", true},
		{"./secrets/**", "/w", false},
		{"~/.ssh/**", "/home/*/.ssh/id_*", true},
		{"~/.ssh/**", "/home/*/*", false},
		{"~/.ssh/**", "~/.ss?/x", true},
		{"//etc/shadow", "/etc/sha*", true},
		{"//etc/shadow", "/etc/p*", false},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pat, ForDeny, tRoot)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MayMatchGlob(tt.glob, tCwd, tHome); got != tt.want {
			t.Errorf("Compile(%q).MayMatchGlob(%q) = %v; want %v", tt.pat, tt.glob, got, tt.want)
		}
	}
}

func TestNamesLiteral(t *testing.T) {
	tests := []struct {
		pat  string
		want bool
	}{
		{"./.env", true},
		{"**/*.pem", true},
		{".env", true},
		{"~/.ssh/id_*", true},
		{"./.ssh/", true},
		{"**", false},
		{"*", false},
		{"src/**", false},
		{"./", false},
		{"~", false},
		{"./[ab]", false},
		{"./?", false},
		{`./\*`, true},
		{"./{a,*}", false},
		{"./{a,b*}", true},
	}
	for _, tt := range tests {
		p, err := Compile(tt.pat, ForAllow, tRoot)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.NamesLiteral(); got != tt.want {
			t.Errorf("Compile(%q).NamesLiteral() = %v; want %v", tt.pat, got, tt.want)
		}
	}
}

func TestNilAndZeroPattern(t *testing.T) {
	var p *Pattern
	if p.Match("/x", "/", "/") || p.MatchName("x") || p.MayMatchBelow("/", "/", "/") ||
		p.MayMatchGlob("/*", "/", "/") || p.NamesLiteral() || p.String() != "" {
		t.Error("nil pattern matched")
	}
	var z Pattern
	if z.Match("/x", "/", "/") || z.NamesLiteral() {
		t.Error("zero pattern matched")
	}
}

func TestIsClean(t *testing.T) {
	for _, p := range []string{"", "a", "/", "//", "/a", "/a/", "/a//b", "/.", "/..", "/a/.", "/a/..", "/a/./b", "/a/../b",
		"/.a", "/..a", "/a.", "/a..", "/a/.b/..c", "/...", "/a/...", "a/b", "/ab/cd/ef"} {
		want := p != "" && p[0] == '/' && path.Clean(p) == p
		if got := isClean(p); got != want {
			t.Errorf("isClean(%q) = %v; want %v", p, got, want)
		}
	}
}

func TestDiffPaths(t *testing.T) {
	body := "diff --git a/src/x.go b/src/y.go\nsimilarity index 90%\nrename from src/x.go\nrename to src/y.go\n--- a/src/x.go\t2024-01-01\n+++ b/src/y.go\n@@ -1 +1 @@\n--- not a header\n-a\n+b\n--- /dev/null\r\n+++ b/.env\r\n"
	got := strings.Join(DiffPaths(body), " ")
	for _, want := range []string{"a/src/x.go", "src/x.go", "b/src/y.go", "src/y.go", ".env", "b/.env"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("DiffPaths: %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "/dev/null") || strings.Contains(got, "2024") {
		t.Errorf("DiffPaths: %q", got)
	}
}
