package pathindex

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

const (
	cwd  = "/work/proj"
	home = "/home/u"
	root = "/work/proj"
)

func TestKeyOf(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Key
	}{
		{"secrets", Key{KeyLiteral, "SECRETS"}},
		{"**/secrets/**", Key{KeyLiteral, "SECRETS"}},
		{"src/**/*.go", Key{KeyLiteral, "SRC"}},
		{"~/.ssh/id_*", Key{KeyLiteral, ".SSH"}},
		{"**/*.pem", Key{KeySuffix, ".PEM"}},
		{"**/*.x00042", Key{KeySuffix, ".X00042"}},
		{"**/*.x00042.backup.tar.gz", Key{KeySuffix, "42.BACKUP.TAR.GZ"}},
		{"*.go", Key{KeySuffix, ".GO"}},
		{"**/secret*", Key{KeyPrefix, "SECRET"}},
		{".env*", Key{KeyPrefix, ".ENV"}},
		{"id_*.pub", Key{KeySuffix, ".PUB"}},
		{"ab*.c", Key{KeySuffix, ".C"}},
		{"abc*.c", Key{KeyPrefix, "ABC"}},
		{"abcd*.ext", Key{KeySuffix, ".EXT"}},
		{"*[0-9]x", Key{KeySuffix, "X"}},
		{"ſecret*", Key{KeyPrefix, "SECRET"}},
		{"**", Key{}},
		{"*", Key{}},
		{"**/*", Key{}},
		{"*[0-9]*", Key{}},
		{"{a,b}/*.go", Key{}},
		{`\*.go`, Key{}},
		{"../x/*.go", Key{}},
		{"~", Key{}},
		{"./", Key{}},
	} {
		if got := KeyOf(tc.spec); got != tc.want {
			t.Errorf("KeyOf(%q) = %+v, want %+v", tc.spec, got, tc.want)
		}
	}
}

// offered reports whether Visit(p) offers value v.
func offered(ix *Index[int], p string, v int) bool {
	found := false
	ix.Visit(p, func(x int) {
		if x == v {
			found = true
		}
	})
	return found
}

func TestVisitOffersEveryMatch(t *testing.T) {
	patterns := []string{
		"**/*.pem", "**/secret*", "*.env", ".env*", "**/*.x00042", "id_*.pub",
		"src/**/*.go", "~/.ssh/*", "**/node_modules/**", "*", "**", "*[0-9]*",
		"ſecret*", "**/*.KEY", "build/", "/etc/*", "//etc/pass*", "{a,b}.txt",
		"**/.git/hooks/*", "*.tar.gz", "a?c", "[st]ecret*",
	}
	paths := []string{
		"/work/proj/a.pem", "/work/proj/x/SECRETS.txt", "/work/proj/.env",
		"/work/proj/.env.local", "/work/proj/d/f.x00042", "/home/u/.ssh/id_rsa.pub",
		"/work/proj/src/x/y.go", "/work/proj/node_modules/a/b.js", "/work/proj/ſecret",
		"/work/proj/k.key", "/work/proj/build/out", "/work/proj/etc/hosts",
		"/etc/passwd", "/work/proj/a.txt", "/work/proj/.git/hooks/pre-commit",
		"/work/proj/x.tar.gz", "/work/proj/abc", "/work/proj/tecret",
		`/work/proj/d\secret.txt`, "/work/proj/a.pem.", "/work/proj/a.pem::$DATA",
		"/work/proj/ΣECRET", "/work/proj/x/ﬁle.pem",
	}
	var ix Index[int]
	compiled := make([]*pathmatch.Pattern, len(patterns))
	for i, p := range patterns {
		c, err := pathmatch.Compile(p, pathmatch.ForDeny, root)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		compiled[i] = c
		ix.Add(p, i)
	}
	matches := 0
	for _, p := range paths {
		for i, c := range compiled {
			if c.Match(p, cwd, home) {
				matches++
				if !offered(&ix, p, i) {
					t.Errorf("pattern %q matches %q but the index does not offer it (key %+v)", patterns[i], p, KeyOf(patterns[i]))
				}
			}
		}
	}
	if matches < 20 {
		t.Fatalf("only %d matches: the table does not exercise the index", matches)
	}
}

func TestVisitFilters(t *testing.T) {
	var ix Index[int]
	for i := range 1000 {
		ix.Add(fmt.Sprintf("**/*.x%05d", i), i)
		ix.Add(fmt.Sprintf("**/secret%d*", i), 1000+i)
	}
	ix.Add("**", -1)
	n := 0
	ix.Visit("/work/proj/src/main.go", func(int) { n++ })
	// Only "**" and the patterns keyed on "O", "GO" or ".GO" (none) nor on
	// "M", "MA", "MAI" (none) and "SRC", ... may come back.
	if n != 1 {
		t.Errorf("a path no keyed pattern can match was offered %d values, want 1 (the unkeyed **)", n)
	}
	n = 0
	ix.Visit("/work/proj/a.x00042", func(v int) { n++ })
	// Suffix "042" is shared by .x00042 only among 0..999? .x00042 ends in
	// "042", and so do none of the others with the same last three digits
	// but 042 itself.
	if n != 2 {
		t.Errorf("offered %d values for a.x00042, want 2", n)
	}
	if ix.Len() != 2001 {
		t.Errorf("Len = %d, want 2001", ix.Len())
	}
	all := 0
	ix.All(func(int) { all++ })
	if all != 2001 {
		t.Errorf("All visited %d, want 2001", all)
	}
}

// TestVisitRandom checks the index against the matcher on generated
// patterns and paths that share pieces.
func TestVisitRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "B", "sec", "ret", ".env", "x", "ſ", "K", "K", ".", "-", "é", "É"}
	word := func() string {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	globSeg := func() string {
		switch r.IntN(6) {
		case 0:
			return "*" + word()
		case 1:
			return word() + "*"
		case 2:
			return word() + "*" + word()
		case 3:
			return "**"
		case 4:
			return word() + "?" + word()
		}
		return word()
	}
	for range 4000 {
		var segs []string
		for range 1 + r.IntN(3) {
			segs = append(segs, globSeg())
		}
		pat := strings.Join(segs, "/")
		switch r.IntN(4) {
		case 0:
			pat = "**/" + pat
		case 1:
			pat = "~/" + pat
		}
		c, err := pathmatch.Compile(pat, pathmatch.ForDeny, root)
		if err != nil {
			continue
		}
		var ix Index[int]
		ix.Add(pat, 1)
		for range 20 {
			var ps []string
			for range 1 + r.IntN(4) {
				ps = append(ps, word())
			}
			base := cwd
			if r.IntN(3) == 0 {
				base = home
			}
			p := base + "/" + strings.Join(ps, "/")
			if c.Match(p, cwd, home) && !offered(&ix, p, 1) {
				t.Fatalf("pattern %q matches %q but is not offered (key %+v)", pat, p, KeyOf(pat))
			}
		}
	}
}

func FuzzVisit(f *testing.F) {
	f.Add("**/*.pem", "/work/proj/a.PEM")
	f.Add("ſecret*", "/work/proj/SECRET")
	f.Add("**/*.env", `/work/proj/x\y.env.`)
	f.Fuzz(func(t *testing.T, pat, p string) {
		c, err := pathmatch.Compile(pat, pathmatch.ForDeny, root)
		if err != nil {
			return
		}
		var ix Index[int]
		ix.Add(pat, 1)
		if !strings.HasPrefix(p, "/") {
			p = cwd + "/" + p
		}
		if c.Match(p, cwd, home) && !offered(&ix, p, 1) {
			t.Fatalf("pattern %q matches %q but is not offered (key %+v)", pat, p, KeyOf(pat))
		}
	})
}

func BenchmarkVisit(b *testing.B) {
	var ix Index[int]
	for i := range 100000 {
		switch i % 4 {
		case 0:
			ix.Add(fmt.Sprintf("**/*.x%05d", i), i)
		case 1:
			ix.Add(fmt.Sprintf("**/secret%d*", i), i)
		case 2:
			ix.Add(fmt.Sprintf("src/d%d/**", i), i)
		default:
			ix.Add(fmt.Sprintf("id_%d*.pub", i), i)
		}
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		ix.Visit("/work/proj/src/internal/main.go", func(int) { n++ })
	}
	_ = n
}
