package pathmatch

import "strings"

// maxDotVariants caps the glob components given a dot-file reading
// (2^n variants).
const maxDotVariants = 4

// DotVariants returns the readings of a glob pattern in which components
// that start with a wildcard also match names starting with '.', as under
// bash's dotglob: "*" also reads ".*", "?x" ".x", "[ab]x" ".x".
func DotVariants(pat string) []string {
	comps := strings.Split(pat, "/")
	var idx []int
	for i, c := range comps {
		if c != "" && (c[0] == '*' || c[0] == '?' || c[0] == '[' && hasGlobChar(c)) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if len(idx) > maxDotVariants {
		// Only the reading with every component dotted, plus each alone.
		idx = idx[:maxDotVariants]
	}
	var out []string
	for mask := 1; mask < 1<<len(idx); mask++ {
		cs := append([]string(nil), comps...)
		for k, i := range idx {
			if mask&(1<<k) != 0 {
				cs[i] = dotComponent(cs[i])
			}
		}
		out = append(out, strings.Join(cs, "/"))
	}
	return out
}

func dotComponent(c string) string {
	switch c[0] {
	case '*':
		return "." + c
	case '?':
		return "." + c[1:]
	}
	// A bracket expression: the dot stands for the character it matches.
	for j := 2; j < len(c); j++ {
		if c[j] == ']' {
			return "." + c[j+1:]
		}
	}
	return ".*"
}

// HasGlob reports whether s holds glob characters that bash would expand:
// an unescaped '*' or '?', or a '[' that a ']' closes.
func HasGlob(s string) bool { return hasGlobChar(s) }

func hasGlobChar(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}
