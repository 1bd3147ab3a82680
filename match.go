package toolgate

import (
	"path"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/pathmatch"
	"github.com/toolgate/toolgate/internal/shell"
	"github.com/toolgate/toolgate/internal/starglob"
	"github.com/toolgate/toolgate/internal/urlmatch"
)

// A matcher is a rule's compiled specifier. Every kind of specifier — a
// command pattern, a path pattern, a domain, a URL pattern, a parameter
// glob — is one value behind this interface; a rule without a specifier
// has [anyMatcher].
//
// fold says how the rule's list reads a subject: deny and ask rules (and
// rewrites) match if any reading matches, case-insensitively; allow rules
// only if every reading does.
type matcher interface {
	// match reports whether the matcher matches the subject. For a path it
	// also returns the reading that matched (the path or its symlink
	// target); elsewhere the string is "".
	match(cc *callCtx, s subject, fold bool) (string, bool)
}

// A subject is what a matcher is matched against: one simple command, one
// path, one URL, or — all nil — the call's input as a whole.
type subject struct {
	cmd  *shell.Command
	path *pathItem
	url  *urlTarget
}

// urlTarget is a fetch call's URL as read for matching, with the error that
// kept it from being read fully.
type urlTarget struct {
	t   urlmatch.Target
	err error
}

// matches reports whether rule r matches s as its list reads it.
func (r *crule) matches(cc *callCtx, s subject) bool {
	_, ok := r.matchAt(cc, s)
	return ok
}

// matchAt matches rule r against s as its list reads it, returning the
// reading that matched (see [matcher]).
//
// It calls each matcher through a type switch, not through the interface:
// what is passed to a dynamic call escapes to the heap, and the call
// context and the paths it holds would then be allocated for every call
// decided.
func (r *crule) matchAt(cc *callCtx, s subject) (string, bool) {
	switch m := r.m.(type) {
	case anyMatcher:
		return m.match(cc, s, r.fold)
	case shellMatcher:
		return m.match(cc, s, r.fold)
	case pathMatcher:
		return m.match(cc, s, r.fold)
	case domainMatcher:
		return m.match(cc, s, r.fold)
	case urlMatcher:
		return m.match(cc, s, r.fold)
	case paramMatcher:
		return m.match(cc, s, r.fold)
	case primaryMatcher:
		return m.match(cc, s, r.fold)
	case anyStringMatcher:
		return m.match(cc, s, r.fold)
	}
	return "", false // no matcher: never a match (fail closed for allow; compile sets one)
}

// bare reports whether the rule has no specifier: it names a whole tool.
func (r *crule) bare() bool {
	_, ok := r.m.(anyMatcher)
	return ok
}

// pathPattern returns the rule's path pattern, or nil.
func (r *crule) pathPattern() *pathmatch.Pattern {
	if m, ok := r.m.(pathMatcher); ok {
		return m.p
	}
	return nil
}

// domainKey is the index key of a domain:HOST rule, "" for any other.
func (r *crule) domainKey() string {
	switch m := r.m.(type) {
	case domainMatcher:
		return m.d.IndexKey()
	case urlMatcher:
		// A URL pattern with a wildcard host is keyed like a domain rule.
		return m.u.IndexHostSuffix()
	}
	return ""
}

// urlHost is the one host a fetch rule's URL pattern can match, or "".
func (r *crule) urlHost() string {
	if m, ok := r.m.(urlMatcher); ok {
		return m.u.IndexHost()
	}
	return ""
}

// anyMatcher is the matcher of a rule without a specifier. Allow still
// needs what it approves to be fully known: a command that only an exact
// rule may approve, a path whose symlinks could not be read and a URL that
// could not be parsed are not covered.
type anyMatcher struct{}

func (anyMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	switch {
	case s.cmd != nil:
		return "", fold || !s.cmd.ExactOnly
	case s.path != nil:
		if !fold && s.path.unresolved {
			return "", false
		}
		return s.path.display(), true
	case s.url != nil:
		return "", fold || s.url.err == nil
	}
	return "", true
}

// shellMatcher is a command pattern (SPEC §4.1): deny and ask rules match
// any form of the command, allow rules its allow reading.
type shellMatcher struct{ p *shell.Pattern }

func (m shellMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	cmd := s.cmd
	if cmd == nil {
		return "", false
	}
	if fold {
		for _, f := range cmd.Forms {
			if m.p.Match(f, true) {
				return "", true
			}
		}
		return "", false
	}
	if cmd.ExactOnly && m.p.HasWildcard() {
		return "", false
	}
	return "", m.p.MatchAllow(cmd)
}

// pathMatcher is a path pattern (SPEC §4.2): deny and ask rules match any
// reading of a path — the link or its target —, allow rules every reading.
type pathMatcher struct{ p *pathmatch.Pattern }

func (m pathMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	it := s.path
	if it == nil || !fold && it.unresolved {
		return "", false // allow needs every reading: the target is unknown
	}
	p := m.p
	if fold {
		if !it.placed {
			// After a dynamic cd the directory is unknown: try the name
			// alone, and the path as if the directory were the working
			// directory or any directory below it.
			return it.text, p.MatchName(path.Base(it.text)) ||
				(!path.IsAbs(it.text) && !strings.HasPrefix(it.text, "~") &&
					(p.Match(path.Join(cc.cwd, it.text), cc.cwd, cc.home) ||
						p.Match(path.Join(cc.cwd, "…", it.text), cc.cwd, cc.home)))
		}
		for _, f := range it.forms() {
			if it.glob {
				if it.dots && p.MayMatchGlobDot(f, cc.cwd, cc.home) || !it.dots && p.MayMatchGlob(f, cc.cwd, cc.home) {
					return f, true
				}
			} else if p.Match(f, cc.cwd, cc.home) {
				return f, true
			}
		}
		return "", false
	}
	if !it.placed {
		return "", false
	}
	for _, f := range it.forms() {
		if !p.Match(f, cc.cwd, cc.home) {
			return "", false
		}
	}
	return it.display(), true
}

// domainMatcher is a fetch rule's domain:HOST: deny and ask rules match
// any host the URL can be read as, allow rules every one.
type domainMatcher struct{ d *urlmatch.Domain }

func (m domainMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	u := s.url
	if u == nil || !fold && u.err != nil || len(u.t.Hosts) == 0 {
		return "", false
	}
	for _, h := range u.t.Hosts {
		if m.d.Match(h) {
			if fold {
				return "", true
			}
		} else if !fold {
			return "", false
		}
	}
	return "", !fold
}

// urlMatcher is a fetch rule's URL pattern: deny and ask rules match any
// reading of the URL (and its alternative spellings), allow rules every
// reading.
type urlMatcher struct{ u *urlmatch.URLPattern }

func (m urlMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	u := s.url
	if u == nil || !fold && u.err != nil || len(u.t.URLs) == 0 {
		return "", false
	}
	for _, x := range u.t.URLs {
		if m.u.Match(x) {
			if fold {
				return "", true
			}
		} else if !fold {
			return "", false
		}
	}
	if !fold {
		return "", true
	}
	if len(u.t.AltURLs) == 0 {
		u.t.AltURLs = urlmatch.AltURLsOf(u.t.URLs)
	}
	for _, x := range u.t.AltURLs {
		if m.u.Match(x) {
			return "", true
		}
	}
	return "", false
}

// paramMatcher is a key:pattern specifier: the glob over the input's
// parameter key. dual, when set, is the whole specifier read as a glob over
// the primary field (a specifier that only looks like a parameter rule):
// deny and ask rules match either reading, allow rules the primary one.
type paramMatcher struct {
	key  string
	glob starglob.Glob
	dual *starglob.Glob
}

func (m paramMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	if !inputSubject(s, fold) {
		return "", false
	}
	if !fold && m.dual != nil {
		return "", matchValue(cc, cc.primary(), m.dual, false)
	}
	ok := matchValue(cc, cc.input.Lookup(m.key), &m.glob, fold)
	if !ok && fold && m.dual != nil {
		ok = matchValue(cc, cc.primary(), m.dual, true)
	}
	return "", ok
}

// primaryMatcher is a glob over the tool's primary field.
type primaryMatcher struct{ glob starglob.Glob }

func (m primaryMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	if !inputSubject(s, fold) {
		return "", false
	}
	return "", matchValue(cc, cc.primary(), &m.glob, fold)
}

// anyStringMatcher is a glob over any string value of the input, for a tool
// without a primary field: only deny and ask rules can read it so.
type anyStringMatcher struct{ glob starglob.Glob }

func (m anyStringMatcher) match(cc *callCtx, s subject, fold bool) (string, bool) {
	if !fold || !inputSubject(s, fold) {
		return "", false
	}
	found := false
	cc.input.Strings(func(x string) bool {
		found = m.glob.Match(x)
		return !found
	})
	return "", found
}

// inputSubject reports whether a parameter matcher may read the input for
// subject s: the input as a whole, or a fetch call's URL when that parsed
// (deny and ask also when it did not).
func inputSubject(s subject, fold bool) bool {
	switch {
	case s.cmd != nil || s.path != nil:
		return false
	case s.url != nil:
		return fold || s.url.err == nil
	}
	return true
}

// primary returns the call's primary field value.
func (cc *callCtx) primary() jsonin.Value {
	f := cc.info.Field
	if f == "" {
		f = kindPrimaryField(cc.info.Kind)
	}
	if f == "" {
		return jsonin.Value{}
	}
	return cc.input.Lookup(f)
}

// matchValue matches a glob against a JSON value: deny/ask any element or
// string inside, allow every element and never an object.
func matchValue(cc *callCtx, v jsonin.Value, g *starglob.Glob, fold bool) bool {
	if !v.Exists() {
		return false
	}
	switch v.Kind() {
	case jsonin.String:
		return g.Match(cc.str(v))
	case jsonin.Array:
		if v.Len() == 0 {
			return false
		}
		for i := 0; i < v.Len(); i++ {
			m := matchValue(cc, v.Index(i), g, fold)
			if fold && m {
				return true
			}
			if !fold && !m {
				return false
			}
		}
		return !fold
	case jsonin.Object:
		if !fold {
			return false
		}
		found := false
		v.Strings(func(s string) bool {
			found = g.Match(s)
			return !found
		})
		return found
	}
	return g.Match(v.Text())
}
