package shell

import (
	"path"
	"strings"
)

// maxGlobNames caps the names one glob word may produce.
const maxGlobNames = 1000

// pathRefs reads a word as a path (or, for a glob, as every path it could
// name).
func (an *analyzer) pathRefs(w wordInfo, dir string) []PathRef {
	if !w.Static {
		r := PathRef{Text: w.Value, Dynamic: true}
		if rest, ok := homeRel(w.node); ok && an.opts.Home != "" {
			r.Path = path.Clean(an.opts.Home + "/" + rest)
		}
		return []PathRef{r}
	}
	if !w.glob {
		return []PathRef{{Text: w.Value, Path: resolve(w.Value, dir, an.opts.Home)}}
	}
	refs := []PathRef{{Text: w.Value, Path: resolve(w.Value, dir, an.opts.Home), Glob: true}}
	names := []string{w.pat}
	if w.brace {
		if exp := expandBraces(w.node); exp != nil {
			names = exp
			for _, e := range exp {
				if !hasGlobMeta(e) {
					refs = append(refs, PathRef{Text: e, Path: resolve(e, dir, an.opts.Home)})
				}
			}
		}
	}
	if an.opts.Glob == nil {
		return refs
	}
	n := 0
	for _, name := range names {
		if !hasGlobMeta(name) {
			continue
		}
		abs := resolve(name, dir, an.opts.Home)
		if abs == "" {
			continue
		}
		matches, err := an.opts.Glob(abs)
		if err != nil {
			continue
		}
		for _, m := range matches {
			if n >= maxGlobNames {
				return refs
			}
			n++
			refs = append(refs, PathRef{Text: m, Path: path.Clean(m)})
		}
	}
	return refs
}

// argPaths adds a word, and every part of it after '=', '@' or ':', to the
// argument paths of c.
func (an *analyzer) argPaths(c *Command, w wordInfo) {
	for _, r := range an.pathRefs(w, c.Dir) {
		c.ArgPaths = appendRef(c.ArgPaths, r)
	}
	if !w.Static || w.xargs {
		return
	}
	v := w.Value
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '=', '@', ':':
			part := v[i+1:]
			if part == "" {
				continue
			}
			r := PathRef{Text: part, Path: resolve(part, c.Dir, an.opts.Home), Glob: w.glob && hasGlobMeta(part)}
			c.ArgPaths = appendRef(c.ArgPaths, r)
		}
	}
}

// isCriticalDir reports whether p is /, a top-level directory, the home
// directory, or the working directory or the command's directory or one of
// their parents.
func (an *analyzer) isCriticalDir(p, dir string) bool {
	if p == "" {
		return false
	}
	if p == "/" || strings.Count(p, "/") == 1 {
		return true
	}
	if an.opts.Home != "" && p == path.Clean(an.opts.Home) {
		return true
	}
	for _, d := range []string{an.opts.Cwd, dir} {
		if d == "" {
			continue
		}
		d = path.Clean(d)
		if d == p || strings.HasPrefix(d, p+"/") {
			return true
		}
	}
	return false
}

// criticalRemoval reports whether removing the path named by w would be a
// critical removal.
func (an *analyzer) criticalRemoval(w wordInfo, dir string) bool {
	if w.xargs {
		return true
	}
	if !w.Static {
		if rest, ok := homeRel(w.node); ok {
			rest = strings.TrimRight(rest, "/")
			return rest == "" || rest == "/*" || isGlobSegment(strings.TrimPrefix(rest, "/"))
		}
		// A glob directly under a variable: "$DIR"/*.
		return dynamicGlobTail(w)
	}
	v := w.Value
	if v == "" {
		return false
	}
	if v[0] == '~' {
		if i := strings.IndexByte(v, '/'); i < 0 || strings.Trim(v[i:], "/") == "" {
			return true // ~ or ~user
		}
	}
	names := []string{v}
	if w.brace {
		if exp := expandBraces(w.node); exp != nil {
			names = exp
		}
	}
	for _, name := range names {
		clean := strings.TrimRight(name, "/")
		if clean == "" {
			return true // "/" or "//"
		}
		base, parent := path.Base(clean), path.Dir(clean)
		if w.glob && hasGlobMeta(base) {
			// A glob directly inside a critical directory.
			if strings.IndexByte(clean, '/') < 0 {
				if dir == "" || an.isCriticalDir(dir, "") {
					return true
				}
				continue
			}
			if hasGlobMeta(parent) {
				continue
			}
			pp := resolve(parent, dir, an.opts.Home)
			if pp == "" || an.isCriticalDir(pp, "") {
				return true
			}
			continue
		}
		p := resolve(clean, dir, an.opts.Home)
		if p == "" {
			if dir == "" && (clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "./")) {
				return true
			}
			continue
		}
		if an.isCriticalDir(p, dir) {
			return true
		}
	}
	return false
}

func isGlobSegment(s string) bool {
	return s != "" && !strings.Contains(s, "/") && hasGlobMeta(s)
}

// dynamicGlobTail reports whether a non-static word ends with a glob
// segment directly under an expansion, like "$DIR"/* or $X/*.
func dynamicGlobTail(w wordInfo) bool {
	v := w.Value
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return false
	}
	tail := v[i+1:]
	if !hasGlobMeta(tail) || strings.ContainsAny(tail, "$`\"'") {
		return false
	}
	head := v[:i]
	return strings.ContainsAny(head, "$`")
}
