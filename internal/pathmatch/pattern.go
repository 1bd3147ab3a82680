package pathmatch

import (
	"strings"
	"unicode/utf8"
)

// Mode says how a pattern is used.
type Mode uint8

const (
	// ForAllow compiles a pattern of an allow rule: exact, case-sensitive,
	// a relative pattern with a slash anchored at the working directory.
	ForAllow Mode = iota
	// ForDeny compiles a pattern of a deny or ask rule (or a protected
	// path): case-insensitive, every spelling of the path, and a relative
	// pattern with a slash also matches at any depth below the working
	// directory.
	ForDeny
)

// anchor is where a pattern alternative starts.
type anchor uint8

const (
	anchorFS   anchor = iota + 1 // //x: the file-system root
	anchorHome                   // ~/x: the call's home
	anchorRoot                   // /x: the rule file's root (static)
	anchorCwd                    // ./x and relative patterns: the call's working directory
)

// alt is one brace alternative of a compiled pattern.
type alt struct {
	anchor anchor
	base   string // anchorFS, anchorRoot: the absolute base directory
	up     int    // anchorHome, anchorCwd: leading ".." components
	segs   []seg  // below the base; an implicit trailing ** covers children
	bare   bool   // a pattern without a slash: a name at any depth
	// need is 1 + the index in segs of a literal ASCII segment that every
	// match has as a component, or 0: a path that does not hold its text
	// (folded, for deny) cannot match, which match1 checks first.
	need uint8
}

// needSeg returns alt.need for segs: the first literal segment of ASCII
// text, if it is among the first 255.
func needSeg(segs []seg) uint8 {
	for i := 0; i < len(segs) && i < 255; i++ {
		if s := &segs[i]; s.kind == sLit && s.lit != "" && isASCII(s.lit) {
			return uint8(i + 1)
		}
	}
	return 0
}

// mayHold reports whether abs may have a component that is lit (ASCII):
// false only when lit is not in abs at all, compared with ASCII case
// folding when fold is set, and abs is ASCII (outside ASCII, folding may
// match other bytes, and the answer is true).
func mayHold(abs, lit string, fold bool) bool {
	if !fold {
		return strings.Contains(abs, lit)
	}
	n := len(lit)
	for i := 0; i < len(abs); i++ {
		c := abs[i]
		if c >= utf8.RuneSelf {
			return true
		}
		if i+n > len(abs) || lowerASCII(c) != lowerASCII(lit[0]) {
			continue
		}
		j := 1
		for j < n && lowerASCII(abs[i+j]) == lowerASCII(lit[j]) {
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

// Pattern is a compiled gitignore-style path pattern. It is immutable and safe
// for concurrent use. The zero Pattern matches nothing.
type Pattern struct {
	text string
	mode Mode
	alts []alt
}

// Compile compiles a gitignore-style path pattern (SPEC §4.2). root is the
// absolute directory that "/x" patterns are anchored at (the root of the rule
// file); it may be empty when no pattern needs it.
//
// Anchors: "//x" from the file-system root, "~/x" (and "~") from the call's
// home, "/x" from root, "./x" (and "../x") from the working directory. A
// pattern without a slash ("build/" counts: a trailing slash is not one)
// matches a component at any depth below the working directory. A relative
// pattern with a slash ("src/**") is anchored at the working directory and,
// [ForDeny], also matches at any depth below it. "**" as a whole segment spans
// zero or more directories ("a/**" also matches a itself); "*" and "?" stay
// within a segment; "[...]" classes ("!" or "^" negates, [:alpha:] and the
// like), "{a,b}" alternatives and backslash escapes of punctuation work. A
// pattern that matches a directory matches everything below it. The part
// after the anchor is cleaned lexically; ".." is allowed only before the
// first wildcard segment.
//
// Errors are [*PatternError]s: an empty or over-long ([MaxPatternLen])
// pattern, a NUL, an unterminated "["
// or "{", a bad escape, "~user", ".." after a wildcard, a "/x" pattern with
// no root, an unknown mode.
func Compile(pattern string, mode Mode, root string) (*Pattern, error) {
	if mode != ForAllow && mode != ForDeny {
		return nil, perr(0, "unknown pattern mode")
	}
	if pattern == "" {
		return nil, perr(0, "empty pattern")
	}
	if len(pattern) > MaxPatternLen {
		return nil, perr(MaxPatternLen, "pattern longer than 4096 bytes")
	}
	if err := validate(pattern); err != nil {
		return nil, err
	}
	var one [1]string
	texts := one[:]
	if strings.IndexByte(pattern, '{') < 0 {
		one[0] = pattern // what expandBraces returns, without its slice
	} else {
		var ok bool
		if texts, ok = expandBraces(pattern, false); !ok {
			return nil, perr(0, "too many {...} alternatives")
		}
	}
	var p *Pattern
	if len(texts) == 1 {
		// The pattern and its one alternative in one allocation.
		pa := &struct {
			p Pattern
			a [1]alt
		}{}
		pa.p = Pattern{text: pattern, mode: mode, alts: pa.a[:0]}
		p = &pa.p
	} else {
		p = &Pattern{text: pattern, mode: mode, alts: make([]alt, 0, len(texts))}
	}
	for _, t := range texts {
		a, err := compileAlt(t, mode, root)
		if err != nil {
			if len(texts) > 1 {
				err.Offset = 0 // the offset is inside an expansion
				err.Msg += " (in alternative " + t + ")"
			}
			return nil, err
		}
		a.need = needSeg(a.segs)
		p.alts = append(p.alts, a)
	}
	return p, nil
}

func compileAlt(t string, mode Mode, root string) (alt, *PatternError) {
	var a alt
	var rest string
	relative := false
	switch {
	case t == "":
		return a, perr(0, "empty pattern alternative")
	case strings.HasPrefix(t, "//"):
		a.anchor, a.base, rest = anchorFS, "/", t[2:]
	case t == "~" || strings.HasPrefix(t, "~/"):
		a.anchor, rest = anchorHome, t[1:]
	case t[0] == '~':
		return a, perr(0, "~user patterns are not supported; use an absolute path")
	case t[0] == '/':
		r, ok := cleanAbs(root)
		if !ok {
			return a, perr(0, "a /x pattern is anchored at the rule file's root, and there is none")
		}
		a.anchor, a.base, rest = anchorRoot, r, t[1:]
	case t == "." || strings.HasPrefix(t, "./"):
		a.anchor, rest = anchorCwd, t[1:]
	default:
		a.anchor, rest, relative = anchorCwd, t, true
	}
	hasSlash := strings.Contains(strings.TrimRight(rest, "/"), "/")

	off := len(t) - len(rest) // offset of rest inside t
	// The segments are gathered in scratch memory and copied once, at
	// their final length, into a.segs.
	var scratch [16]seg
	segs := scratch[:0]
	for part := range strings.SplitSeq(rest, "/") {
		switch part {
		case "", ".":
		case "..":
			switch {
			case len(segs) == 0:
				a.up++
			case segs[len(segs)-1].kind != sLit:
				return a, perr(off, "'..' after a wildcard segment")
			default:
				segs = segs[:len(segs)-1]
			}
		default:
			s, err := parseSeg(part, true)
			if err != nil {
				err.Offset += off
				return a, err
			}
			if s.kind == sDStar && len(segs) > 0 && segs[len(segs)-1].kind == sDStar {
				break
			}
			segs = append(segs, s)
		}
		off += len(part) + 1
	}
	switch a.anchor {
	case anchorFS:
		a.up = 0
	case anchorRoot:
		a.base, a.up = parentN(a.base, a.up), 0
	}
	lead := 0 // 1: a "**" goes before the segments
	if relative && a.up == 0 {
		a.bare = !hasSlash
		if a.bare || mode == ForDeny {
			if len(segs) == 0 || segs[0].kind != sDStar {
				lead = 1
			}
		}
	}
	if n := lead + len(segs); n > 0 {
		a.segs = make([]seg, n)
		a.segs[0] = seg{kind: sDStar}
		copy(a.segs[lead:], segs)
	}
	return a, nil
}

// String returns the pattern text as written.
func (p *Pattern) String() string {
	if p == nil {
		return ""
	}
	return p.text
}

// Mode returns the mode the pattern was compiled for.
func (p *Pattern) Mode() Mode {
	if p == nil {
		return ForDeny
	}
	return p.mode
}

// baseDir returns the directory an alternative is anchored at for a call.
func (a *alt) baseDir(cwd, home string) (string, bool) {
	var d string
	switch a.anchor {
	case anchorFS, anchorRoot:
		return a.base, true
	case anchorHome:
		d = home
	case anchorCwd:
		d = cwd
	default:
		return "", false
	}
	d, ok := cleanAbs(d)
	if !ok {
		return "", false
	}
	return parentN(d, a.up), true
}

// Match reports whether the absolute path abs matches. cwd and home come from
// the call (absolute; an alternative anchored at an empty one matches
// nothing). abs should be clean; Match cleans it if it is not, so
// "/cwd/src/../../etc/passwd" is "/etc/passwd". [ForDeny] tries every
// spelling of abs ([Spellings]) and folds case itself; the caller need not.
// A [ForDeny] pattern given a relative abs falls back to [Pattern.MatchName].
func (p *Pattern) Match(abs, cwd, home string) bool {
	if p == nil {
		return false
	}
	clean, ok := cleanAbs(abs)
	if p.mode != ForDeny {
		return ok && p.match1(clean, cwd, home, false)
	}
	if !ok {
		return p.MatchName(abs)
	}
	abs = clean
	if !needsSpellings(abs) {
		return p.match1(abs, cwd, home, true)
	}
	for _, s := range Spellings(abs) {
		if p.match1(s, cwd, home, true) {
			return true
		}
	}
	return false
}

// match1 matches one clean absolute spelling.
func (p *Pattern) match1(abs, cwd, home string, fold bool) bool {
	for i := range p.alts {
		a := &p.alts[i]
		if a.need != 0 && !mayHold(abs, a.segs[a.need-1].lit, fold) {
			continue
		}
		base, ok := a.baseDir(cwd, home)
		if !ok {
			continue
		}
		rel, ok := relTo(abs, base, fold)
		if ok && matchSegs(a.segs, rel, fold, false) {
			return true
		}
	}
	return false
}

// matchSegs matches pattern segments against the components of rel ("" for
// none). An implicit trailing ** lets a match cover everything below it. With
// prefixOK, running out of components is a match too: some longer path could
// match. Backtracking goes to the last ** only, which is exact here because
// every other segment matches exactly one component.
func matchSegs(segs []seg, rel string, fold, prefixOK bool) bool {
	pi, ri := 0, 0
	starPi, starRi := -1, 0
	for {
		if pi < len(segs) && segs[pi].kind == sDStar {
			starPi, starRi = pi, ri
			pi++
			continue
		}
		if pi == len(segs) {
			return true
		}
		if ri < len(rel) {
			end := indexSlash(rel, ri)
			if segs[pi].match(rel[ri:end], fold) {
				pi, ri = pi+1, end+1
				continue
			}
		} else if prefixOK {
			return true
		}
		if starPi < 0 || starRi >= len(rel) {
			return false
		}
		starRi = indexSlash(rel, starRi) + 1
		pi, ri = starPi+1, starRi
	}
}

// MatchName reports whether a pattern without a slash (".env", "*.key",
// "build/") matches a component of name — used for paths that cannot be
// placed (a relative path after a dynamic cd). It looks at every component
// other than "." and "..", not only the last, because a name pattern that
// matches a directory covers what is below it. Patterns with a slash never
// match here. [ForDeny] folds case and tries every spelling.
func (p *Pattern) MatchName(name string) bool {
	if p == nil {
		return false
	}
	fold := p.mode == ForDeny
	if fold && needsSpellings(name) {
		for _, s := range Spellings("/" + name) {
			if p.matchName1(s, true) {
				return true
			}
		}
		return false
	}
	return p.matchName1(name, fold)
}

// matchComponent reports whether a bare alternative matches the single
// component c, folding case.
func (p *Pattern) matchComponent(c string) bool {
	for i := range p.alts {
		a := &p.alts[i]
		if a.bare && a.segs[len(a.segs)-1].match(c, true) {
			return true
		}
	}
	return false
}

func (p *Pattern) matchName1(name string, fold bool) bool {
	for i := range p.alts {
		a := &p.alts[i]
		if !a.bare {
			continue
		}
		last := &a.segs[len(a.segs)-1]
		if last.kind == sDStar {
			return true
		}
		for c := range strings.SplitSeq(name, "/") {
			if c != "" && c != "." && c != ".." && last.match(c, fold) {
				return true
			}
		}
	}
	return false
}

// MayMatchBelow reports whether the pattern could match dir itself or some
// path below it, judged from the pattern and dir alone (not from files that
// exist). A content search of dir reads a denied file when this is true for
// a read deny pattern. An unplaceable dir (not absolute) may match.
func (p *Pattern) MayMatchBelow(dir, cwd, home string) bool {
	if p == nil {
		return false
	}
	d, ok := cleanAbs(dir)
	if !ok {
		return true
	}
	fold := p.mode == ForDeny
	if !fold {
		return p.mayMatchBelow1(d, cwd, home, false)
	}
	for _, s := range Spellings(d) {
		if p.mayMatchBelow1(s, cwd, home, true) {
			return true
		}
	}
	return false
}

func (p *Pattern) mayMatchBelow1(dir, cwd, home string, fold bool) bool {
	for i := range p.alts {
		a := &p.alts[i]
		base, ok := a.baseDir(cwd, home)
		if !ok {
			continue
		}
		if rel, ok := relTo(dir, base, fold); ok {
			if matchSegs(a.segs, rel, fold, true) {
				return true
			}
			continue
		}
		if _, ok := relTo(base, dir, fold); ok {
			return true // the whole anchored tree lies below dir
		}
	}
	return false
}

// NamesLiteral reports whether the last segment of the pattern (of every
// alternative) holds at least one literal, non-wildcard character:
// "./.env" and "**/*.pem" do; "**", "*", "src/**" and "./" do not. A secret
// file can only be allowed by a pattern that names it.
func (p *Pattern) NamesLiteral() bool {
	if p == nil || len(p.alts) == 0 {
		return false
	}
	for i := range p.alts {
		segs := p.alts[i].segs
		if len(segs) == 0 {
			return false
		}
		last := &segs[len(segs)-1]
		switch last.kind {
		case sLit:
		case sGlob:
			lit := false
			for _, t := range last.toks {
				if t.kind == tLit {
					lit = true
					break
				}
			}
			if !lit {
				return false
			}
		default:
			return false
		}
	}
	return true
}
