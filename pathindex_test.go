package toolgate

import (
	"testing"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

func TestContainsFoldASCII(t *testing.T) {
	tests := []struct {
		s, key string
		want   bool
	}{
		{"/p/.env", ".ENV", true},
		{"/p/.ENV.", ".ENV", true},
		{"/p/x/.Env::$DATA", ".ENV", true},
		{"/p/src/main.go", ".ENV", false},
		{"/p/ſecrets/x", "SECRETS", true}, // non-ASCII: left to the matcher
		{"/p/a", "\u212a", true},
		{"", "X", false},
	}
	for _, tt := range tests {
		if got := containsFoldASCII(tt.s, tt.key); got != tt.want {
			t.Errorf("containsFoldASCII(%q, %q) = %v, want %v", tt.s, tt.key, got, tt.want)
		}
	}
}

func TestPathKey(t *testing.T) {
	tests := map[string]string{
		"./.env":        ".ENV",
		"secrets/**":    "SECRETS",
		"//etc/**":      "ETC",
		"~/.ssh/id_*":   ".SSH",
		"**/*.pem":      "",
		"src/[ab]/x.go": "X.GO",
		"ſecrets":       "SECRETS",
	}
	for in, want := range tests {
		if got := pathKey(in); got != want {
			t.Errorf("pathKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPathIndex checks that the index and its filter never hide a rule
// that matches: whenever a deny pattern matches a path, the path holds the
// pattern's key among its component keys and passes the cheap filter.
func FuzzPathIndex(f *testing.F) {
	for _, s := range [][2]string{{"./.env", "/p/.ENV."}, {"secrets/**", "/p/a\\secrets\\b"}, {"//etc/**", "/ETC/x"}, {"x.go", "/p/X.GO::$DATA"}, {"ſecrets", "/p/SECRETS"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, spec, p string) {
		key := pathKey(spec)
		if key == "" || len(p) == 0 || p[0] != '/' {
			return
		}
		pat, err := pathmatch.Compile(spec, pathmatch.ForDeny, "/p")
		if err != nil {
			return
		}
		abs, ok := pathmatch.Abs(p, "/p", "/home/u")
		if !ok || !pat.Match(abs, "/p", "/home/u") {
			return
		}
		found := false
		marker := &crule{}
		visitComponents(abs, map[string][]*crule{key: {marker}}, func(r *crule) {
			if r == marker {
				found = true
			}
		})
		if !found {
			t.Fatalf("pattern %q matches %q but its key %q is not among the path's component keys", spec, abs, key)
		}
		it := pathItem{text: p, abs: abs, placed: true, nform: 1}
		it.formv[0] = abs
		if !it.mayHoldKey(key) {
			t.Fatalf("pattern %q matches %q but the filter skips key %q", spec, abs, key)
		}
	})
}
