package pathmatch

import "testing"

// withoutNeed is p with the literal check of every alternative switched
// off: what Match answered before alt.need.
func withoutNeed(p *Pattern) *Pattern {
	q := *p
	q.alts = append([]alt(nil), p.alts...)
	for i := range q.alts {
		q.alts[i].need = 0
	}
	return &q
}

// checkNeed fails when the literal check changes any answer of Match.
func checkNeed(t *testing.T, pat, abs string) {
	t.Helper()
	for _, mode := range []Mode{ForAllow, ForDeny} {
		p, err := Compile(pat, mode, tRoot)
		if err != nil {
			return
		}
		for _, cwd := range []string{tCwd, "/W/Proj", "/"} {
			if got, want := p.Match(abs, cwd, tHome), withoutNeed(p).Match(abs, cwd, tHome); got != want {
				t.Fatalf("%q (mode %d) against %q in %q: %v with the literal check, %v without", pat, mode, abs, cwd, got, want)
			}
		}
	}
}

var needPaths = []string{
	"/w/proj/secrets/api.key", "/w/proj/SECRETS/api.key", "/w/proj/\u017fecrets/api.key",
	"/w/proj/secrets./api.key", `/w/proj/a\secrets\x`, "/w/proj/secrets::$DATA/x",
	"/w/proj/HEAD~1", "/w/proj/src/secrets", "/w/proj/x/../secrets/y", "/w/proj//secrets",
	"/home/u/.ssh/id_ed25519", "/home/u/.SSH/ID", "/etc/passwd", "/ETC/passwd",
	"/w/proj/.env", "/w/proj/.ENV.", "/w/proj/src/a.go", "/w/proj/SRC/a.go", "/w/proj/data4/x",
	"/w/pro\u212a/secrets", "/w/proj/\u212aey/x", "/", "/w", "/w/proj", "w/proj/secrets",
}

// TestNeedKeepsMatches: on patterns with and without literal segments, in
// both modes, against paths that hold the literal in other cases and
// spellings, Match answers as it did without the literal check.
func TestNeedKeepsMatches(t *testing.T) {
	pats := append([]string{"./secrets/**", "secrets/**", "**/SECRETS/*.key", "/data4/**", "~/.ssh/**", "//etc/passwd",
		"src/**/test", ".env", "*.pem", "{src,lib}/secrets", "./key/**", "./kEy", "secrets", "../proj/secrets/**"}, fuzzPatterns...)
	for _, pat := range pats {
		for _, abs := range needPaths {
			checkNeed(t, pat, abs)
		}
	}
	p, err := Compile("./secrets/**", ForDeny, tRoot)
	if err != nil {
		t.Fatal(err)
	}
	if p.alts[0].need == 0 {
		t.Fatal("./secrets/** has no literal to check")
	}
}

// FuzzNeed: as TestNeedKeepsMatches, on any pattern and path.
func FuzzNeed(f *testing.F) {
	for i, s := range []string{"./secrets/**", "**/Key/*", "a/b"} {
		f.Add(s, needPaths[i])
	}
	f.Fuzz(func(t *testing.T, pat, abs string) {
		checkNeed(t, pat, abs)
	})
}
