package pathmatch

import (
	"path"
	"strings"
	"unicode/utf8"
)

// Abs makes p absolute: "~" and "~/x" against home, a relative path against
// cwd; the result is then cleaned lexically (".", "..", duplicate slashes).
// ok is false when p cannot be placed: an empty p, a "~user" form, an empty or
// relative home for "~", an empty or relative cwd for a relative p.
func Abs(p, cwd, home string) (abs string, ok bool) {
	switch {
	case p == "":
		return "", false
	case p[0] == '/':
		if isClean(p) {
			return p, true // path.Clean would scan it to give it back
		}
		return path.Clean(p), true
	case p[0] == '~':
		if len(p) > 1 && p[1] != '/' {
			return "", false // ~user: whose home is not ours to know
		}
		if !isAbs(home) {
			return "", false
		}
		return path.Clean(home + "/" + p[1:]), true
	default:
		if !isAbs(cwd) {
			return "", false
		}
		return path.Clean(cwd + "/" + p), true
	}
}

// Inside reports whether abs is dir or lies below it, comparing whole
// components ("/a/bc" is not inside "/a/b"). Both are taken as absolute,
// clean paths; the comparison is exact.
func Inside(abs, dir string) bool {
	_, ok := relTo(abs, dir, false)
	return ok
}

// relTo returns abs relative to dir ("" when they are equal) and whether abs
// is inside dir. With fold, components are compared case-insensitively.
func relTo(abs, dir string, fold bool) (string, bool) {
	if dir == "/" {
		if !strings.HasPrefix(abs, "/") {
			return "", false
		}
		return abs[1:], true
	}
	if !fold {
		if !strings.HasPrefix(abs, dir) {
			return "", false
		}
		if len(abs) == len(dir) {
			return "", true
		}
		if abs[len(dir)] != '/' {
			return "", false
		}
		return abs[len(dir)+1:], true
	}
	if rel, ok, done := relToASCII(abs, dir); done {
		return rel, ok
	}
	return relToFold(abs, dir)
}

// relToASCII is relTo with folding for the usual case, where dir and the
// start of abs are ASCII: folding then keeps every length, so the two are
// compared byte by byte. done is false when a byte outside ASCII (or an
// abs shorter than dir) leaves the answer to relToFold.
func relToASCII(abs, dir string) (rel string, ok, done bool) {
	n := len(dir)
	if len(abs) < n {
		return "", false, false
	}
	for k := 0; k < n; k++ {
		a, d := abs[k], dir[k]
		if a|d >= utf8.RuneSelf {
			return "", false, false
		}
		if a == d {
			continue
		}
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= d && d <= 'Z' {
			d += 'a' - 'A'
		}
		if a != d {
			// Every byte before is ASCII and equal but for case, so the
			// components compared here differ whatever follows.
			return "", false, true
		}
	}
	switch {
	case len(abs) == n:
		return "", true, true
	case abs[n] == '/':
		return abs[n+1:], true, true
	}
	return "", false, true
}

// relToFold is relTo with folding, component by component, because case
// folding may change byte lengths.
func relToFold(abs, dir string) (string, bool) {
	i, j := 0, 0
	for i < len(dir) {
		if dir[i] == '/' {
			if j >= len(abs) || abs[j] != '/' {
				return "", false
			}
			i++
			j++
			continue
		}
		di := indexSlash(dir, i)
		aj := indexSlash(abs, j)
		if !strings.EqualFold(dir[i:di], abs[j:aj]) {
			return "", false
		}
		i, j = di, aj
	}
	switch {
	case j == len(abs):
		return "", true
	case abs[j] == '/':
		return abs[j+1:], true
	}
	return "", false
}

// indexSlash returns the index of the first '/' in s at or after i, or len(s).
// Path components are short: a plain loop beats IndexByte's setup.
func indexSlash(s string, i int) int {
	for ; i < len(s); i++ {
		if s[i] == '/' {
			return i
		}
	}
	return len(s)
}

func isAbs(p string) bool { return p != "" && p[0] == '/' }

// isClean reports whether p is absolute and already lexically clean, so that
// path.Clean(p) == p. It does not allocate.
func isClean(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	if len(p) == 1 {
		return true
	}
	if p[len(p)-1] == '/' {
		return false
	}
	for i := 0; ; {
		// p[i] is a slash and a component follows it.
		j := i + 1
		switch p[j] {
		case '/':
			return false
		case '.':
			if j+1 == len(p) || p[j+1] == '/' {
				return false
			}
			if p[j+1] == '.' && (j+2 == len(p) || p[j+2] == '/') {
				return false
			}
		}
		i = indexSlash(p, j)
		if i == len(p) {
			return true
		}
	}
}

// cleanAbs returns p cleaned, allocating only when p is not already clean,
// and false when p is not absolute.
func cleanAbs(p string) (string, bool) {
	if isClean(p) {
		return p, true
	}
	if !isAbs(p) {
		return "", false
	}
	return path.Clean(p), true
}

// parentN returns dir with its last n components removed (never above "/").
func parentN(dir string, n int) string {
	for ; n > 0 && dir != "/"; n-- {
		i := strings.LastIndexByte(dir, '/')
		if i <= 0 {
			dir = "/"
		} else {
			dir = dir[:i]
		}
	}
	return dir
}

// needsSpellings reports whether abs could have a spelling other than itself:
// it holds a backslash or a colon, or a component ends in a dot or a space.
func needsSpellings(abs string) bool {
	for i := 0; i < len(abs); i++ {
		switch abs[i] {
		case '\\', ':':
			return true
		case '.', ' ':
			if i+1 == len(abs) || abs[i+1] == '/' {
				return true
			}
		}
	}
	return false
}

// Spellings returns every form of an absolute path that deny, ask and
// protected-path matching must consider: the path itself; with backslashes
// read as separators; with the trailing dots and spaces of each component
// dropped; with the ":stream" suffix of each component dropped (NTFS
// alternate data streams: "x.env::$DATA" is "x.env"); and every combination
// of these, each re-cleaned. The result is deduplicated and its first element
// is abs itself. Case is left alone: callers compare case-insensitively.
func Spellings(abs string) []string {
	out := []string{abs}
	if !needsSpellings(abs) {
		return out
	}
	for _, bs := range [2]bool{false, true} {
		for _, trail := range [2]bool{false, true} {
			for _, stream := range [2]bool{false, true} {
				if !bs && !trail && !stream {
					continue
				}
				s := respell(abs, bs, trail, stream)
				dup := false
				for _, o := range out {
					if o == s {
						dup = true
						break
					}
				}
				if !dup {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// respell applies the chosen spelling rules to every component of p.
func respell(p string, bs, trail, stream bool) string {
	if bs {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	if trail || stream {
		comps := strings.Split(p, "/")
		for i, c := range comps {
			if stream {
				if k := strings.IndexByte(c, ':'); k >= 0 {
					c = c[:k]
				}
			}
			if trail && c != "." && c != ".." {
				c = strings.TrimRight(c, ". ")
			}
			comps[i] = c
		}
		p = strings.Join(comps, "/")
	}
	if isAbs(p) {
		return path.Clean(p)
	}
	return path.Clean("/" + p)
}

// NeedsSpellings reports whether abs has other spellings than itself
// ([Spellings] would return more than abs): it holds a backslash, a colon,
// or a component ending in a dot or a space.
func NeedsSpellings(abs string) bool { return needsSpellings(abs) }
