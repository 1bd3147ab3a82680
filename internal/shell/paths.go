package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// maxGlobNames caps the names one glob word may produce.
const maxGlobNames = 1000

// pathRefs reads a word as a path (or, for a glob, as every path it could
// name).
func (an *analyzer) pathRefs(w wordInfo, dir string) []PathRef {
	if !w.Static {
		// A word whose only expansions are of HOME or PWD (or $(pwd)) is
		// placed for deny checks, each word of a brace expansion apart; it
		// stays non-static for allow rules.
		var refs []PathRef
		place := func(parts []syntax.WordPart) {
			if kv, ok := knownParts(parts, an.opts.Home, dir, an.pwdBuiltin()); ok && !kv.derived {
				if p := resolve(kv.value, dir, an.opts.Home); p != "" {
					refs = append(refs, PathRef{Text: w.Value, Path: p, Glob: kv.glob, Dynamic: true})
				}
			}
		}
		if w.node != nil {
			if exps := braceWords(w.node); exps != nil {
				for _, e := range exps {
					place(e)
				}
			} else {
				place(w.node.Parts)
			}
		}
		if len(refs) == 0 {
			refs = an.res.mem.ref(PathRef{Text: w.Value, Dynamic: true})
		}
		if an.x != nil && an.x.vars != nil {
			refs = an.varRefs(w, dir, refs)
		}
		return refs
	}
	if !w.glob {
		return an.res.mem.ref(PathRef{Text: w.Value, Path: an.resolve(w.Value, dir)})
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
	if an.x != nil && an.x.dotGlobs {
		// After shopt or set changed the shell's options, a glob may match
		// dot-files: every component that bash would keep from producing
		// one gets a reading that does.
		var extra []string
		for _, name := range names {
			for _, v := range pathmatch.DotVariants(name) {
				extra = append(extra, v)
				refs = append(refs, PathRef{Text: v, Path: resolve(v, dir, an.opts.Home), Glob: true})
			}
		}
		names = append(names, extra...)
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
				// The names past the cap are not placed: an unplaced
				// reading, which no allow rule or workspace test covers.
				return append(refs, PathRef{Text: w.Value, Dynamic: true})
			}
			n++
			refs = append(refs, PathRef{Text: m, Path: path.Clean(m)})
		}
	}
	return refs
}

// pwdBuiltin reports that no function named pwd has been defined, so that
// $(pwd) prints the directory.
func (an *analyzer) pwdBuiltin() bool {
	return an.x == nil || an.x.funcs["pwd"] == nil
}

// argPaths adds a word, and every part of it after '=', '@' or ':', to the
// argument paths of c.
func (an *analyzer) argPaths(c *Command, w wordInfo) {
	for _, r := range an.pathRefs(w, c.Dir) {
		c.ArgPaths = an.appendRef(c.ArgPaths, r)
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
			r := PathRef{Text: part, Path: an.resolve(part, c.Dir), Glob: w.glob && hasGlobMeta(part)}
			c.ArgPaths = an.appendRef(c.ArgPaths, r)
		}
	}
}

// criticalDir describes p when it is /, a top-level directory, the home
// directory, or the working directory or dir or one of their parents; it
// returns "" otherwise.
func (an *analyzer) criticalDir(p, dir string) string {
	if p == "" {
		return ""
	}
	if p == "/" {
		return "the root directory /"
	}
	if an.opts.Home != "" && p == path.Clean(an.opts.Home) {
		return "the home directory " + p
	}
	for _, d := range []string{an.opts.Cwd, dir} {
		if d == "" {
			continue
		}
		d = path.Clean(d)
		if d == p {
			return "the working directory " + p
		}
		if strings.HasPrefix(d, p+"/") {
			if strings.Count(p, "/") == 1 {
				return "the top-level directory " + p + ", a parent of the working directory " + d
			}
			return p + ", a parent of the working directory " + d
		}
	}
	if strings.Count(p, "/") == 1 {
		return "the top-level directory " + p
	}
	return ""
}

// criticalRemoval reports whether removing the path named by w would be a
// critical removal. It remembers what is at risk; the command's
// CriticalRemoval reads it (see [analyzer.noteCritical]).
func (an *analyzer) criticalRemoval(w wordInfo, dir string) bool {
	what := an.criticalWhat(w, dir)
	if what == "" {
		return false
	}
	key := w.Value
	if w.xargs {
		key = "xargs"
	}
	x := an.extra()
	x.critNotes = append(x.critNotes, critNote{key: key, what: what})
	return true
}

// critNote pairs the text inspect.go stores in Command.CriticalRemoval
// with the description of what is at risk.
type critNote struct{ key, what string }

// criticalWhat describes what removing the path named by w would put at
// risk when that is a critical removal (§7), and returns "" otherwise.
func (an *analyzer) criticalWhat(w wordInfo, dir string) string {
	if w.xargs {
		return "whatever paths xargs passes (xargs may pass any path)"
	}
	as := " (as '" + w.Value + "')"
	names := []string{w.Value}
	glob := w.glob
	var pats []string // glob patterns, parallel to names when glob
	if !w.Static {
		words := [][]syntax.WordPart{nil}
		if w.node != nil {
			words[0] = w.node.Parts
			if exps := braceWords(w.node); exps != nil {
				words = exps
			}
		}
		names, pats = nil, nil
		anyGlob := false
		for _, parts := range words {
			kv, ok := knownParts(parts, an.opts.Home, dir, an.pwdBuiltin())
			if !ok {
				continue
			}
			if kv.derived {
				return "a path computed from $HOME or $PWD" + as
			}
			names, pats = append(names, kv.value), append(pats, kv.pat)
			anyGlob = anyGlob || kv.glob
		}
		glob = anyGlob
		if len(names) == 0 {
			// d=/; rm -rf $d: the values the script gave the variables
			// (an unquoted expansion of a value holding * globs).
			for _, v := range an.varReadings(w.node) {
				if d := an.criticalName(v, v, hasGlobMeta(v), dir); d != "" {
					return d + as
				}
			}
			if dynamicGlobTail(w) {
				// A glob directly under a variable: "$DIR"/*.
				return "every entry of a directory named by a variable" + as
			}
			return ""
		}
	} else {
		if w.Value == "" {
			return ""
		}
		if w.brace {
			if exp := expandBraces(w.node); exp != nil {
				names = exp
			}
		}
		if glob && !w.brace {
			pats = []string{w.pat}
		}
	}
	for i, name := range names {
		pat := name
		if pats != nil {
			pat = pats[i]
		}
		if d := an.criticalName(name, pat, glob && hasGlobMeta(pat), dir); d != "" {
			return d + as
		}
	}
	return ""
}

// criticalName judges one name (after brace expansion); pat is its glob
// pattern when glob is set.
func (an *analyzer) criticalName(name, pat string, glob bool, dir string) string {
	if !glob {
		pat = name
	}
	if pat == "" {
		return ""
	}
	if pat[0] == '~' && !(pat == "~" || strings.HasPrefix(pat, "~/") || pat == "~+" || strings.HasPrefix(pat, "~+/")) {
		// ~user or ~-: a directory that cannot be placed.
		user, tail, _ := strings.Cut(pat, "/")
		rel := path.Clean(tail)
		if tail == "" || rel == "." {
			return "the home directory of " + user
		}
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return "a parent of the home directory of " + user
		}
		if glob && isGlobSegment(rel) {
			return "every entry of the home directory of " + user
		}
		return ""
	}
	if strings.Trim(pat, "/") == "" {
		return "the root directory /"
	}
	if !glob {
		p := resolve(name, dir, an.opts.Home)
		if p == "" {
			if dir == "" {
				if c := path.Clean(name); c == "." || c == ".." || strings.HasPrefix(c, "../") {
					return "the working directory (unknown after a dynamic cd) or a parent of it"
				}
			}
			return ""
		}
		return an.criticalDir(p, dir)
	}
	abs := resolve(pat, dir, an.opts.Home)
	if abs == "" {
		// A relative glob while the directory is unknown.
		if strings.IndexByte(strings.TrimRight(pat, "/"), '/') < 0 {
			return "every entry of the working directory (unknown after a dynamic cd)"
		}
		return "paths matching " + pat + " below an unknown working directory"
	}
	return an.criticalGlob(abs, dir)
}

// criticalGlob judges an absolute, cleaned glob pattern: critical when its
// matches can include a critical directory, or when it lies directly inside
// one (or inside a glob that can match one).
func (an *analyzer) criticalGlob(abs, dir string) string {
	if abs == "/" {
		return "the root directory /"
	}
	if d := an.globMatchesCritical(abs, dir); d != "" {
		return d
	}
	parent := path.Dir(abs)
	if !hasGlobMeta(parent) {
		// Globs directly inside the command's directory (after a cd) are not
		// critical unless that directory is; the session's working
		// directory always is.
		if d := an.criticalDir(parent, ""); d != "" {
			return "every entry of " + d
		}
		return ""
	}
	if d := an.globMatchesCritical(parent, dir); d != "" {
		return "every entry of " + strings.TrimPrefix(d, "paths matching ")
	}
	return ""
}

// globMatchesCritical reports, describing it, a critical directory that the
// absolute glob pattern could match.
func (an *analyzer) globMatchesCritical(pat, dir string) string {
	if strings.Count(pat, "/") == 1 && hasGlobMeta(pat) {
		return "paths matching " + pat + ", which include top-level directories"
	}
	var cands []string
	if an.opts.Home != "" {
		cands = append(cands, path.Clean(an.opts.Home))
	}
	for _, d := range []string{an.opts.Cwd, dir} {
		if d == "" || d[0] != '/' {
			continue
		}
		for d = path.Clean(d); d != "/"; d = path.Dir(d) {
			cands = append(cands, d)
		}
	}
	for _, c := range cands {
		if ok, err := path.Match(pat, c); ok || err != nil {
			return "paths matching " + pat + ", which include " + an.criticalDir(c, dir)
		}
	}
	return ""
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
