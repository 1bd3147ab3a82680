package pathmatch

import (
	"path"
	"strings"
)

// gcomp is one component of a bash glob.
type gcomp struct {
	any   bool   // unknown (extglob): may produce anything
	lit   bool   // no wildcards
	name  string // lit: the unescaped name
	toks  []token
	noDot bool // a leading '*' or '?': bash never produces a dot-file here
}

// parseGlobComp reads one component of a bash glob, leniently.
func parseGlobComp(text string) gcomp {
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '\\' {
			i++
			continue
		}
		if strings.IndexByte("?*+@!", text[i]) >= 0 && text[i+1] == '(' {
			return gcomp{any: true}
		}
	}
	s, _ := parseSeg(text, false)
	switch s.kind {
	case sLit:
		return gcomp{lit: true, name: s.lit}
	case sDStar:
		return gcomp{toks: []token{{kind: tStar}}, noDot: true}
	}
	return gcomp{toks: s.toks, noDot: s.toks[0].kind == tStar || s.toks[0].kind == tAny}
}

// produces reports whether the glob component could produce the name.
func (g *gcomp) produces(name string, fold bool) bool {
	switch {
	case g.any:
		return true
	case g.lit:
		if fold {
			return strings.EqualFold(g.name, name)
		}
		return g.name == name
	case g.noDot && strings.HasPrefix(name, "."):
		return false
	}
	return matchToks(g.toks, name, fold)
}

// compatible reports, conservatively, whether some name matches both the
// pattern segment s (not **) and the glob component g.
func compatible(s *seg, g *gcomp, fold bool) bool {
	switch {
	case g.any:
		return true
	case g.lit:
		return s.match(g.name, fold)
	case s.kind == sLit:
		return g.produces(s.lit, fold)
	}
	// Two wildcard segments: every match starts with both literal prefixes
	// and ends with both literal suffixes.
	sp := literalPrefix(s.toks)
	if g.noDot && len(sp) > 0 && sp[0] == '.' {
		return false
	}
	return runesCompatible(sp, literalPrefix(g.toks), fold) &&
		runesCompatible(literalSuffix(s.toks), literalSuffix(g.toks), fold)
}

// MayMatchGlob reports, conservatively (true when unsure), whether the
// pattern could match some path that the glob g could produce. g is a bash
// glob — "*", "?", "[...]", "{a,b}", backslash escapes — absolute, or
// relative to cwd; "*" and "?" never produce a leading dot unless the glob
// component starts with '.'. Sequence braces ({1..3}), extglob, a "**"
// component (globstar) and a glob over 16 KiB make the answer true.
func (p *Pattern) MayMatchGlob(g, cwd, home string) bool {
	return p.mayMatchGlob(g, cwd, home, false)
}

// MayMatchGlobDot is [Pattern.MayMatchGlob] for a glob whose wildcards
// also produce names starting with '.' (the globs of read calls such as
// read_many_files, SPEC §4.2: "dotfiles included").
func (p *Pattern) MayMatchGlobDot(g, cwd, home string) bool {
	return p.mayMatchGlob(g, cwd, home, true)
}

func (p *Pattern) mayMatchGlob(g, cwd, home string, dots bool) bool {
	if p == nil {
		return false
	}
	if len(g) > maxGlobLen {
		return true
	}
	fold := p.mode == ForDeny
	globs, ok := expandBraces(g, true)
	if !ok {
		return true
	}
	for _, gl := range globs {
		if gl == "" {
			continue
		}
		if gl == "~" || strings.HasPrefix(gl, "~/") {
			if !isAbs(home) {
				return true
			}
			gl = home + gl[1:]
		}
		if !isAbs(gl) {
			if !isAbs(cwd) {
				return true
			}
			gl = cwd + "/" + gl
		}
		gl = path.Clean(gl)
		forms := []string{gl}
		if fold {
			forms = Spellings(gl)
		}
		for _, f := range forms {
			var comps []gcomp
			if f != "/" {
				for c := range strings.SplitSeq(f[1:], "/") {
					if c == "**" {
						return true
					}
					gc := parseGlobComp(c)
					if dots {
						gc.noDot = false
					}
					comps = append(comps, gc)
				}
			}
			for i := range p.alts {
				if p.alts[i].mayMatchGlob(comps, cwd, home, fold) {
					return true
				}
			}
		}
	}
	return false
}

func (a *alt) mayMatchGlob(comps []gcomp, cwd, home string, fold bool) bool {
	base, ok := a.baseDir(cwd, home)
	if !ok {
		return true // cannot place the pattern: unsure
	}
	n := 0
	if base != "/" {
		for bc := range strings.SplitSeq(base[1:], "/") {
			if n >= len(comps) || !comps[n].produces(bc, fold) {
				return false
			}
			n++
		}
	}
	comps = comps[n:]
	pi, ci := 0, 0
	starPi, starCi := -1, 0
	for {
		if pi < len(a.segs) && a.segs[pi].kind == sDStar {
			starPi, starCi = pi, ci
			pi++
			continue
		}
		if pi == len(a.segs) {
			return true
		}
		if ci < len(comps) && compatible(&a.segs[pi], &comps[ci], fold) {
			pi, ci = pi+1, ci+1
			continue
		}
		if starPi < 0 || starCi >= len(comps) {
			return false
		}
		starCi++
		pi, ci = starPi+1, starCi
	}
}
