package pathmatch

import "strings"

// DiffPaths returns the paths a unified diff (as git diff and diff -u
// write it, read by git apply and patch) may write: the names on its
// "--- ", "+++ ", "diff --git", "rename to|from" and "copy to" lines, each
// as written and with its first component removed (patch -p1, git's a/
// and b/ prefixes), so that every strip level the command may use is
// read. /dev/null and a timestamp after a tab are dropped. It reads no
// hunks and never fails: a line that is not a header is skipped.
func DiffPaths(body string) []string {
	var out []string
	add := func(p string) {
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i]
		}
		p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), `"`))
		if p == "" || p == "/dev/null" {
			return
		}
		out = append(out, p)
		if i := strings.IndexByte(p, '/'); i > 0 && i < len(p)-1 {
			out = append(out, p[i+1:])
		}
	}
	for line := range strings.SplitSeq(body, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "):
			add(line[4:])
		case strings.HasPrefix(line, "diff --git "):
			for _, f := range strings.Fields(line[len("diff --git "):]) {
				add(f)
			}
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "copy to "):
			_, p, _ := strings.Cut(line, " to ")
			if strings.HasPrefix(line, "rename from ") {
				p = line[len("rename from "):]
			}
			add(p)
		}
	}
	return out
}
