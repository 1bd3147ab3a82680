package toolgate

import (
	"path"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// What the steps ask of one path: is it inside the workspace, a secret, a
// protected path, a file or a directory.

// inWorkspace reports whether every reading of a path lies in the workspace.
func (cc *callCtx) inWorkspace(it *pathItem) bool {
	if !it.placed || it.unresolved {
		return false
	}
	for _, f := range it.forms() {
		ok := pathmatch.Inside(f, cc.cwd)
		for _, d := range cc.c.additionalDirs {
			if ok {
				break
			}
			ok = pathmatch.Inside(f, d)
		}
		if !ok {
			return false
		}
	}
	return true
}

// isSecret reports whether any reading of a path is a secret file.
func (cc *callCtx) isSecret(it *pathItem) bool {
	_, ok := cc.secretPart(it)
	return ok
}

// secretPart reports whether any reading of a path is a secret file, and
// which: the link or its target.
func (cc *callCtx) secretPart(it *pathItem) (string, bool) {
	if it.unresolved {
		return it.display(), true // the link's target is unknown and could be one
	}
	if !it.placed {
		return it.text, pathmatch.IsSecret("/" + path.Base(it.text))
	}
	if it.glob && it.dots {
		// A read call's glob reads every name it could match (SPEC §4.2).
		// Where the file system is available, the names it matches are
		// paths of their own; without it, any it could produce counts. (A
		// shell glob names only what bash expands it to: host.Glob.)
		if cc.c.opts.Glob != nil {
			return "", false
		}
		return it.text, pathmatch.GlobMayBeSecret(it.abs, cc.cwd, cc.home, true)
	}
	for _, f := range it.forms() {
		if pathmatch.IsSecret(f) {
			return f, true
		}
	}
	return "", false
}

// protectedPart is protected that also names the reading that is
// protected: the link or its target.
func (cc *callCtx) protectedPart(it *pathItem) (entry, part string, ok bool) {
	if cc.c.protection == nil {
		return "", it.display(), true // fail closed
	}
	if it.unresolved {
		return "a symlink whose target cannot be read", it.display(), true
	}
	if !it.placed {
		e, ok := cc.c.protection.Check("/"+path.Base(it.text), "/", cc.home)
		return e, it.text, ok
	}
	for _, f := range it.forms() {
		if e, ok := cc.c.protection.Check(f, cc.cwd, cc.home); ok {
			return e, f, true
		}
	}
	return "", "", false
}

// matchPath reports whether a rule matches one path as its list reads it.
func (cc *callCtx) matchPath(r *crule, it *pathItem) bool { return r.matches(cc, subject{path: it}) }

// namesSecret reports whether an allow rule may approve reading a secret: a
// path pattern whose last segment holds a literal character.
func namesSecret(r *crule) bool {
	p := r.pathPattern()
	return p != nil && p.NamesLiteral()
}

func (it *pathItem) display() string {
	if it.placed {
		return it.abs
	}
	return it.text
}

// The kinds of path a content search can name.
const (
	pathUnknown = iota
	pathFile
	pathDir
)

// pathKind says, through Options.IsDir, whether every reading of the path
// is a file or every one a directory. Without IsDir, for a path that cannot
// be placed or resolved, a glob, an error or readings that differ, the kind
// is unknown.
func (cc *callCtx) pathKind(it *pathItem) int {
	isDir := cc.c.opts.IsDir
	if isDir == nil || !it.placed || it.unresolved || it.glob {
		return pathUnknown
	}
	kind := pathUnknown
	for _, f := range it.forms() {
		d, err := isDir(f)
		k := pathFile
		if d {
			k = pathDir
		}
		if err != nil || kind != pathUnknown && k != kind {
			return pathUnknown
		}
		kind = k
	}
	return kind
}

// knownFile reports whether the path is known to be a file.
func (cc *callCtx) knownFile(it *pathItem) bool { return cc.pathKind(it) == pathFile }

// searchHitsDenied returns a read deny rule that could match something
// below the searched directory, and the reading of the directory (the link
// or its target) below which it could.
func (cc *callCtx) searchHitsDenied(it *pathItem) (*crule, string) {
	var hit *crule
	var part string
	f := func(r *crule) {
		p := r.pathPattern()
		if hit != nil || p == nil {
			return
		}
		if !it.placed {
			hit, part = r, it.text
			return
		}
		for _, form := range it.forms() {
			if p.MayMatchBelow(form, cc.cwd, cc.home) {
				hit, part = r, form
				return
			}
		}
	}
	cc.kindRules(EffectDeny, KindRead, nil, f)
	return hit, part
}
