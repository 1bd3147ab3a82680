package pathmatch

import (
	"path"
	"strings"
)

// The physical reading of a path: the kernel applies a ".." to what the
// path before it resolves to, so docs/x/../y with docs/x -> ../src is
// src/../y, where a lexical Clean drops the "x/..". These functions give a
// caller both readings.

// HasDotDot reports whether p has a ".." component.
func HasDotDot(p string) bool {
	for c := range strings.SplitSeq(p, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// RawAbs returns p made absolute against dir (or, for "~" and "~/…",
// against home) but not cleaned, when p has a ".." component: the only case
// where the physical and the lexical reading can differ. It reports false
// otherwise, or when the directory it needs is not absolute.
func RawAbs(p, dir, home string) (string, bool) {
	if !HasDotDot(p) {
		return "", false
	}
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if !path.IsAbs(home) {
			return "", false
		}
		return home + p[1:], true
	case path.IsAbs(p):
		return p, true
	case path.IsAbs(dir):
		return dir + "/" + p, true
	}
	return "", false
}

// Physical resolves the absolute path raw component by component as the
// kernel does: each ".." goes to the parent of what the path so far
// resolves to, and the result is resolved once more. resolve returns the
// target of a path whose components may be symlinks, or "" when it is not
// one; its error is returned as it is.
func Physical(raw string, resolve func(string) (string, error)) (string, error) {
	cur := "/"
	for c := range strings.SplitSeq(raw, "/") {
		switch c {
		case "", ".":
		case "..":
			t, err := resolve(cur)
			if err != nil {
				return "", err
			}
			if t == "" {
				t = cur
			}
			cur = path.Dir(path.Clean(t))
		default:
			cur = path.Join(cur, c)
		}
	}
	t, err := resolve(cur)
	if err != nil || t == "" {
		return cur, err
	}
	return path.Clean(t), nil
}

// DotDotAfterGlob reports whether a glob pattern has a ".." component after
// one with glob characters (*/../../etc/*): such a pattern can reach any
// directory, so no literal directory bounds it.
func DotDotAfterGlob(pat string) bool {
	glob := false
	for c := range strings.SplitSeq(pat, "/") {
		switch {
		case c == ".." && glob:
			return true
		case HasGlob(c):
			glob = true
		}
	}
	return false
}

// LiteralDir returns the directory part of a glob pattern before its first
// glob or brace character ("../../.ssh/*" → "../../.ssh"; "a/b" → "a"), or
// "" when the first component already has one.
func LiteralDir(pat string) string {
	i := strings.IndexAny(pat, "*?[{")
	if i < 0 {
		return path.Dir(pat)
	}
	j := strings.LastIndexByte(pat[:i], '/')
	if j < 0 {
		return ""
	}
	if j == 0 {
		return "/"
	}
	return pat[:j]
}
