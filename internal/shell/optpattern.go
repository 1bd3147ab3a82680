package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// optPattern is the option-aware reading of a deny or ask pattern for a
// modelled command (SPEC §4.1, "Options in deny and ask patterns"): the
// options the pattern names match a call that carries them in any order,
// cluster or spelling (rm -rf matches rm -fr, rm -r -f, rm -Rf and
// rm --recursive --force), and the rest of the pattern matches the
// call's operands.
type optPattern struct {
	cmd  string // lower-case command name
	sub  string // subcommand (git push), or ""
	m    *model
	keys []string // canonical options the pattern requires
	any  bool     // the pattern ends in :* or * after its options
	rest *Pattern // the pattern's words after its options, or nil
}

// compileOptPattern returns the option-aware reading of a pattern's words,
// or nil when the pattern does not start with a modelled command and
// options without arguments.
func compileOptPattern(words []*syntax.Word, spec, src string) *optPattern {
	if len(words) < 2 {
		return nil
	}
	// Most patterns name a command without a model, and most of the rest
	// have no option where the options start (after the subcommand, when
	// the model has subcommands): find out from the plain words, as the
	// reading below would, before reading every word.
	if isPlainLit(words[0]) {
		if m := lookupModel(strings.ToLower(words[0].Lit())); m == nil || !hasOptionAt(words, m) {
			return nil
		}
	}
	// Every word's literal value is written into one buffer (on the stack
	// while it fits) and cut out of one string.
	var usBuf [64]unit
	var bBuf [128]byte
	us, b := usBuf[:0], bBuf[:0]
	ends := make([]int, len(words)) // -1: not a literal
	for i, w := range words {
		us = appendPatternWord(us[:0], w, src)
		start := len(b)
		for j, u := range us {
			if u >= 256 {
				if u == uStar && j == len(us)-1 {
					b = append(b, '*')
					continue
				}
				b = b[:start]
				start = -1
				break
			}
			b = append(b, byte(u))
		}
		if start < 0 {
			ends[i] = -1
		} else {
			ends[i] = len(b)
		}
	}
	all := string(b)
	lits := make([]string, len(words))
	for i, start := 0, 0; i < len(words); i++ {
		if ends[i] < 0 {
			lits[i] = "\x00" // not a literal
			continue
		}
		lits[i] = all[start:ends[i]]
		start = ends[i]
	}
	op := &optPattern{cmd: strings.ToLower(lits[0])}
	m := lookupModel(op.cmd)
	if m == nil {
		return nil
	}
	i := 1
	if m.subs != nil {
		sub := m.subs[lits[1]]
		if sub == nil {
			return nil
		}
		op.sub, m, i = lits[1], sub, 2
	}
	op.m = m
	var optWords []wordInfo
	for ; i < len(words); i++ {
		v := lits[i]
		last := false
		if strings.HasSuffix(v, ":*") {
			v, last = v[:len(v)-2], true
		}
		if len(v) < 2 || v[0] != '-' || v == "--" || strings.ContainsAny(v, "*\x00") {
			if last {
				return nil
			}
			break
		}
		optWords = append(optWords, staticWord(v))
		if last {
			op.any = true
			i++
			break
		}
	}
	if len(optWords) == 0 {
		return nil
	}
	a := m.parse(optWords)
	if len(a.unknown) > 0 || len(a.ops) > 0 {
		return nil
	}
	for _, o := range a.opts {
		if o.has || o.def == nil || o.def.arg == argReq || o.def.arg == argTwo {
			return nil // an option with its argument: matched as written
		}
		op.keys = append(op.keys, o.name)
	}
	if op.any {
		if i < len(words) {
			return nil
		}
		return op
	}
	rest := words[i:]
	if len(rest) == 1 && lits[i] == "*" {
		op.any = true
		return op
	}
	if len(rest) > 0 {
		p := &Pattern{spec: spec, units: wordsUnits(rest, src, len(spec)+1)}
		p.lower = lowerUnits(p.units)
		op.rest = p
	}
	return op
}

// hasOptionAt reports whether the words of a pattern for command model m
// may have an option where its options start: false only when a plain
// literal word shows they cannot (a subcommand m does not model, a word
// that is no option, no word at all).
func hasOptionAt(words []*syntax.Word, m *model) bool {
	i := 1
	if m.subs != nil {
		if !isPlainLit(words[1]) {
			return true
		}
		if m.subs[words[1].Lit()] == nil {
			return false
		}
		i = 2
	}
	if i >= len(words) {
		return false
	}
	if !isPlainLit(words[i]) {
		return true
	}
	v := words[i].Lit()
	return len(v) >= 2 && v[0] == '-' && v != "--"
}

// isPlainLit reports a word that is one unquoted literal without
// wildcards or escapes, so that Lit is its value.
func isPlainLit(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && !strings.ContainsAny(l.Value, "*\\")
}

// match reports whether one reading of a command carries the pattern's
// options and operands.
func (op *optPattern) match(words []Word) bool {
	if len(words) == 0 || !words[0].Static || !strings.EqualFold(words[0].Value, op.cmd) {
		return false
	}
	args := words[1:]
	if op.sub != "" {
		if len(args) == 0 || !args[0].Static || !strings.EqualFold(args[0].Value, op.sub) {
			return false
		}
		args = args[1:]
	}
	ws := make([]wordInfo, len(args))
	for i, w := range args {
		ws[i] = wordInfo{Word: w}
	}
	a := op.m.parse(ws)
	if !a.dyn {
		// A word whose value is not static may be any option; otherwise
		// every option the pattern names must be there.
		for _, k := range op.keys {
			if !a.has(k) && !op.implied(k, &a) {
				return false
			}
		}
	}
	if op.any {
		return true
	}
	if op.rest == nil {
		return len(a.ops) == 0
	}
	ops := make([]Word, len(a.ops))
	for i, w := range a.ops {
		ops[i] = w.Word
	}
	return len(ops) > 0 && op.rest.matchUnits(ops, true)
}

// implied reports an option a call carries in another form: a forced
// refspec (+main) forces a git push.
func (op *optPattern) implied(key string, a *argv) bool {
	if op.cmd == "git" && op.sub == "push" && key == "-f" {
		for _, w := range a.ops {
			if !w.Static || strings.HasPrefix(w.Value, "+") || strings.Contains(w.Value, ":+") {
				return true
			}
		}
	}
	return false
}
