package shell

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Pattern is a compiled command pattern: the specifier of a rule such as
// Bash(npm run test:*). It is immutable and safe for concurrent use.
type Pattern struct {
	spec  string
	units []unit // case-sensitive, for allow
	lower []unit // case-folded, for deny and ask
	wild  bool
	// assigns holds the pattern's leading assignments (assign_pattern.go).
	assigns *Pattern
	// opt is the option-aware reading for deny and ask (optpattern.go).
	opt *optPattern
}

// PatternError is a command pattern that cannot be compiled.
type PatternError struct {
	// Offset is the byte offset inside the spec.
	Offset int
	// Msg says what is wrong.
	Msg string
}

// Error implements error.
func (e *PatternError) Error() string {
	return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
}

// unit is one element of a pattern or subject: a byte (0-255), or one of
// the special values below.
type unit uint16

const (
	uStar  unit = 256 // '*': any run of units
	uBStar unit = 257 // trailing ' *' or ':*': end, or a boundary then anything
	uDyn   unit = 258 // a non-static word (subject only)
	uSep   unit = 259 // word boundary
)

// CompilePattern compiles a command pattern. The spec is read as shell
// words; an unquoted * is a wildcard, and an unquoted operator or
// redirection is an error.
func CompilePattern(spec string) (*Pattern, error) {
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	// One pooled parser serves every pattern compiled on this goroutine
	// (the words it returns do not refer back to it).
	p := parserPool.Get().(*syntax.Parser)
	defer parserPool.Put(p)
	var words []*syntax.Word
	for w, err := range p.WordsSeq(strings.NewReader(spec)) {
		if err != nil {
			var pe syntax.ParseError
			off := 0
			if errors.As(err, &pe) {
				off = int(pe.Pos.Offset())
			}
			return nil, &PatternError{Offset: min(off, len(spec)), Msg: operatorMsg(err)}
		}
		words = append(words, w)
	}
	return finishPattern(spec, spec, 0, words)
}

// checkSpec rejects what no pattern may be before it is parsed.
func checkSpec(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return &PatternError{Offset: 0, Msg: "empty command pattern"}
	}
	if i := strings.IndexByte(spec, 0); i >= 0 {
		return &PatternError{Offset: i, Msg: "NUL byte in command pattern"}
	}
	return nil
}

// finishPattern compiles spec from its parsed words, whose offsets point
// into src, where spec starts at byte base.
func finishPattern(spec, src string, base int, words []*syntax.Word) (*Pattern, error) {
	// Anything outside the words (a comment, a newline) is not allowed.
	pos := 0
	for _, w := range words {
		if o := uncovered(spec, pos, int(w.Pos().Offset())-base); o >= 0 {
			return nil, &PatternError{Offset: o, Msg: fmt.Sprintf("unexpected %q outside a word", spec[o])}
		}
		pos = int(w.End().Offset()) - base
	}
	if o := uncovered(spec, pos, len(spec)); o >= 0 {
		return nil, &PatternError{Offset: o, Msg: fmt.Sprintf("unexpected %q outside a word", spec[o])}
	}
	if len(words) == 0 {
		return nil, &PatternError{Offset: 0, Msg: "empty command pattern"}
	}
	pat := &Pattern{spec: spec}
	words = pat.splitAssigns(words, spec, src)
	pat.opt = compileOptPattern(words, spec, src)
	pat.units = wordsUnits(words, src, len(spec)+1)
	for _, u := range pat.units {
		if u == uStar || u == uBStar {
			pat.wild = true
		}
	}
	pat.lower = lowerUnits(pat.units)
	return pat, nil
}

// batchSize is how many patterns [CompilePatterns] parses at once: large
// enough to share the parser's allocations, small enough that a pattern
// that cannot share a parse costs its neighbours little.
const batchSize = 64

// CompilePatterns compiles many command patterns: pats[i], errs[i] are
// what CompilePattern(specs[i]) returns. Patterns are parsed together, one
// line each, which costs far less than parsing them one by one; any batch
// in which that could read differently from a parse of its own — a parse
// error, or a word crossing from one pattern into the next — is compiled
// pattern by pattern instead.
func CompilePatterns(specs []string) (pats []*Pattern, errs []error) {
	pats, errs = make([]*Pattern, len(specs)), make([]error, len(specs))
	var batch []int // indexes into specs
	flush := func() {
		if len(batch) > 0 && !compileBatch(specs, batch, pats, errs) {
			for _, i := range batch {
				pats[i], errs[i] = CompilePattern(specs[i])
			}
		}
		batch = batch[:0]
	}
	for i, spec := range specs {
		if checkSpec(spec) != nil || strings.ContainsAny(spec, "\n\r") || strings.HasSuffix(spec, "\\") {
			// Alone: its errors, or a line of its own that is not one line.
			pats[i], errs[i] = CompilePattern(spec)
			continue
		}
		if batch = append(batch, i); len(batch) == batchSize {
			flush()
		}
	}
	flush()
	return pats, errs
}

// compileBatch parses the patterns specs[batch[...]] as one text, a line
// each, and compiles each from its words. It reports false, having set
// nothing, when the text did not parse as those lines of words.
func compileBatch(specs []string, batch []int, pats []*Pattern, errs []error) bool {
	starts := make([]int, len(batch)) // where each pattern starts in src
	var b strings.Builder
	for k, i := range batch {
		starts[k] = b.Len()
		b.WriteString(specs[i])
		b.WriteByte('\n')
	}
	src := b.String()
	p := parserPool.Get().(*syntax.Parser)
	defer parserPool.Put(p)
	// The words of every pattern, back to back: pattern k's are
	// words[bounds[k]:bounds[k+1]].
	words := make([]*syntax.Word, 0, 4*len(batch))
	bounds := make([]int, len(batch)+1)
	k := 0
	for w, err := range p.WordsSeq(strings.NewReader(src)) {
		if err != nil {
			return false
		}
		off, end := int(w.Pos().Offset()), int(w.End().Offset())
		for k+1 < len(batch) && off >= starts[k+1] {
			k++
			bounds[k] = len(words)
		}
		if off < starts[k] || end > starts[k]+len(specs[batch[k]]) {
			return false
		}
		words = append(words, w)
	}
	for k++; k <= len(batch); k++ {
		bounds[k] = len(words)
	}
	for k, i := range batch {
		ws := words[bounds[k]:bounds[k+1]:bounds[k+1]]
		pats[i], errs[i] = finishPattern(specs[i], src, starts[k], ws)
	}
	return true
}

// wordsUnits returns the units of a pattern's words, separated by word
// boundaries; a trailing " *" or ":*" becomes a boundary wildcard.
// The words' offsets point into src; size is the room to make at first.
func wordsUnits(words []*syntax.Word, src string, size int) []unit {
	us := make([]unit, 0, size)
	for i, w := range words {
		if i > 0 {
			us = append(us, uSep)
		}
		us = appendPatternWord(us, w, src)
	}
	n := len(us)
	if n >= 2 && us[n-1] == uStar && (us[n-2] == uSep || us[n-2] == ':') {
		us = append(us[:n-2], uBStar)
	}
	return us
}

func operatorMsg(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "is not a valid word") {
		return "shell operator or redirection in a command pattern (write one rule per command; allow a redirect target with an Edit rule): " + msg
	}
	return msg
}

// uncovered returns the offset of the first non-blank byte of spec[from:to],
// or -1.
func uncovered(spec string, from, to int) int {
	for i := from; i < to && i < len(spec); i++ {
		switch spec[i] {
		case ' ', '\t':
		default:
			return i
		}
	}
	return -1
}

// appendPatternWord appends the units of one pattern word: its value after
// quote removal, with unquoted '*' as a wildcard.
func appendPatternWord(us []unit, w *syntax.Word, src string) []unit {
	lit := func(s string) {
		for i := 0; i < len(s); i++ {
			us = append(us, unit(s[i]))
		}
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				switch {
				case v[i] == '\\' && i+1 < len(v):
					i++
					if v[i] != '\n' {
						us = append(us, unit(v[i]))
					}
				case v[i] == '*':
					us = append(us, uStar)
				default:
					us = append(us, unit(v[i]))
				}
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				lit(decodeANSIC(p.Value))
			} else {
				lit(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					lit(unescapeDbl(l.Value))
				} else {
					lit(sliceSrc(src, q))
				}
			}
		default:
			// An expansion in a pattern is plain text.
			lit(sliceSrc(src, p))
		}
	}
	return us
}

func lowerUnits(us []unit) []unit {
	ascii := true
	for _, u := range us {
		if u >= 128 && u < 256 {
			ascii = false
			break
		}
	}
	if ascii {
		first := -1
		for i, u := range us {
			if 'A' <= u && u <= 'Z' {
				first = i
				break
			}
		}
		if first < 0 {
			// Already lower-case: shared, as neither slice is ever
			// changed once its pattern is compiled.
			return us
		}
		out := make([]unit, len(us))
		copy(out, us[:first])
		for i, u := range us[first:] {
			if 'A' <= u && u <= 'Z' {
				u += 'a' - 'A'
			}
			out[first+i] = u
		}
		return out
	}
	// Lower-case by runes, word by word, keeping special units.
	out := make([]unit, 0, len(us))
	var buf []byte
	flush := func() {
		if len(buf) == 0 {
			return
		}
		for _, b := range []byte(strings.ToLower(string(buf))) {
			out = append(out, unit(b))
		}
		buf = buf[:0]
	}
	for _, u := range us {
		if u < 256 {
			buf = append(buf, byte(u))
			continue
		}
		flush()
		out = append(out, u)
	}
	flush()
	return out
}

// String returns the spec as given.
func (p *Pattern) String() string { return p.spec }

// HasWildcard reports whether the pattern holds an unquoted *, so that it
// is not an exact rule.
func (p *Pattern) HasWildcard() bool { return p.wild }

// Match reports whether the pattern matches the words of one reading of a
// simple command. With deny set (deny and ask rules), the comparison
// ignores case and a non-static word matches any run of pattern text;
// otherwise (allow rules) it is case-sensitive and a non-static word can
// only be covered by a *.
func (p *Pattern) Match(words []Word, deny bool) bool {
	if p == nil || len(words) == 0 || p.assigns != nil && !deny {
		return false // an allow pattern with assignments: MatchAllow
	}
	if deny && p.opt != nil && p.opt.match(words) {
		return true
	}
	return p.matchUnits(words, deny)
}

// matchUnits matches the pattern's units against the words: directly
// when matchLiteral can, else by the automaton.
func (p *Pattern) matchUnits(words []Word, deny bool) bool {
	pat := p.units
	if deny {
		pat = p.lower
	}
	if m, ok := matchLiteral(pat, words, deny); ok {
		return m
	}
	return matchAutomaton(pat, words, deny)
}

// matchLiteral decides a match without the automaton when it is a plain
// comparison: the pattern has no wildcard but perhaps a trailing boundary
// one, and every word is static (and ASCII, when deny folds case). The
// subject's units must then be the pattern's, or, with the trailing
// wildcard, the pattern's followed by a word boundary and anything. ok is
// false when the comparison does not apply.
func matchLiteral(pat []unit, words []Word, deny bool) (match, ok bool) {
	n := len(pat)
	bstar := n > 0 && pat[n-1] == uBStar
	if bstar {
		n--
	}
	for _, u := range pat[:n] {
		if u == uStar || u == uBStar {
			return false, false
		}
	}
	for _, w := range words {
		if !w.Static || deny && !isLowerASCII(w.Value) {
			return false, false
		}
	}
	j := 0 // units of pat matched so far
	for wi, w := range words {
		if wi > 0 {
			if j == n {
				// The literal ends at a word boundary of the subject.
				return bstar, true
			}
			if pat[j] != uSep {
				return false, true
			}
			j++
		}
		v := w.Value
		for i := 0; i < len(v); i++ {
			u := unit(v[i])
			if deny && 'A' <= v[i] && v[i] <= 'Z' {
				u += 'a' - 'A'
			}
			if j == n || pat[j] != u {
				return false, true
			}
			j++
		}
	}
	return j == n, true
}

// matchAutomaton runs the pattern's automaton over the words (kept apart
// from Match so that its stack buffer is not moved to the heap by
// recursion).
func matchAutomaton(pat []unit, words []Word, deny bool) bool {
	n := len(pat)
	var stack [2 * 64]bool
	m := matcher{pat: pat, n: n, all: n + 1, deny: deny}
	var cur, next []bool
	if 2*(n+2) <= len(stack) {
		cur, next = stack[:n+2], stack[n+2:2*(n+2)]
	} else {
		cur, next = make([]bool, n+2), make([]bool, n+2)
	}
	cur[0] = true
	closure(pat, cur)
	for wi, w := range words {
		if wi > 0 {
			if !m.step(cur, next, uSep) {
				return false
			}
			cur, next = next, cur
		}
		if !w.Static {
			if !m.step(cur, next, uDyn) {
				return false
			}
			cur, next = next, cur
			continue
		}
		v := w.Value
		if deny && !isLowerASCII(v) {
			v = strings.ToLower(v)
		}
		for i := 0; i < len(v); i++ {
			u := unit(v[i])
			if deny && 'A' <= v[i] && v[i] <= 'Z' {
				u += 'a' - 'A'
			}
			if !m.step(cur, next, u) {
				return false
			}
			cur, next = next, cur
		}
	}
	if cur[n] || cur[m.all] {
		return true
	}
	return n > 0 && pat[n-1] == uBStar && cur[n-1]
}

// matcher simulates the pattern automaton over a subject.
type matcher struct {
	pat    []unit
	n, all int // all: the "accept anything from here" state
	deny   bool
}

// step consumes one subject unit from the states in cur into next; it
// reports whether any state is alive.
func (m *matcher) step(cur, next []bool, u unit) bool {
	clear(next)
	alive := false
	n, all, pat := m.n, m.all, m.pat
	for i := 0; i <= all; i++ {
		if !cur[i] {
			continue
		}
		if i == all {
			next[all] = true
			alive = true
			continue
		}
		if i == n {
			if u == uDyn && m.deny {
				next[n] = true // an empty expansion
				alive = true
			}
			continue
		}
		switch pu := pat[i]; {
		case pu == uStar:
			next[i] = true
			alive = true
		case pu == uBStar:
			if u == uSep || (u == uDyn && m.deny) {
				next[all] = true
				alive = true
			}
		case u == uDyn:
			if m.deny {
				for j := i; j <= n; j++ {
					next[j] = true
				}
				alive = true
			}
		case pu == u:
			next[i+1] = true
			alive = true
		}
	}
	closure(pat, next)
	return alive
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// closure marks the states reachable without consuming input: past a * (which
// may match nothing), and past a trailing boundary wildcard at the end.
func closure(pat []unit, st []bool) {
	for i := 0; i < len(pat); i++ {
		if st[i] && pat[i] == uStar {
			st[i+1] = true
		}
	}
}

// LeadingWords returns up to max words that begin every command the
// pattern matches, for indexing: the pattern's first words that are plain
// ASCII literals (no wildcard, no expansion), each ending at a word
// boundary or at the end of the pattern. For deny (deny and ask rules)
// they are lower-cased, as Match compares. It returns nil for a pattern
// with leading assignments or a first word that is not such a literal.
//
// A command can only match when its first words, lower-cased for deny,
// are these: an index may skip the pattern for any other command whose
// words are static ASCII. (A non-static word, or one holding other bytes,
// may match anything and must see every pattern.)
func (p *Pattern) LeadingWords(deny bool, max int) []string {
	if p == nil || p.assigns != nil {
		return nil
	}
	us := p.units
	if deny {
		us = p.lower
		if p.opt != nil {
			// The option-aware reading matches options in any order and
			// spelling: only the command and its subcommand are fixed.
			max = 1
			if p.opt.sub != "" {
				max = 2
			}
		}
	}
	// The words are written back to back into b and cut out of one string.
	var b []byte
	var ends [8]int
	n, wordStart := 0, 0
	max = min(max, len(ends))
scan:
	for _, u := range us {
		switch {
		case u < 128:
			b = append(b, byte(u))
		case u == uSep || u == uBStar:
			if len(b) == wordStart {
				break scan
			}
			ends[n] = len(b)
			n++
			wordStart = len(b)
			if u == uBStar || n == max {
				break scan
			}
		default:
			// A wildcard, or a byte outside ASCII: the word is not fixed.
			b = b[:wordStart]
			break scan
		}
	}
	if n < max && len(b) > wordStart {
		ends[n] = len(b)
		n++
	}
	if n == 0 {
		return nil
	}
	all := string(b[:ends[n-1]])
	out := make([]string, n)
	for i, start := 0, 0; i < n; i++ {
		out[i] = all[start:ends[i]]
		start = ends[i]
	}
	return out
}
