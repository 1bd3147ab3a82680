package shell

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// wordInfo is a word of a command with what the analysis needs to know
// about it beyond its [Word].
type wordInfo struct {
	Word
	node  *syntax.Word // nil for words made up by the analysis (env -S)
	glob  bool         // unquoted glob characters or a brace expansion
	brace bool         // a brace expansion
	pat   string       // glob pattern: value with quoted metacharacters escaped
	zshEq bool         // starts with an unquoted '=' (zsh =cmd expansion)
	xargs bool         // the unknown arguments xargs appends
	nul   bool         // a $'...' part held a NUL: bash cut its value there
}

func staticWord(v string) wordInfo {
	return wordInfo{Word: Word{Value: v, Static: true}}
}

// sliceSrc returns the source text of n within src, or "" when the
// positions do not lie inside src.
func sliceSrc(src string, n syntax.Node) string {
	if n == nil {
		return ""
	}
	s, e := n.Pos(), n.End()
	if !s.IsValid() || !e.IsValid() {
		return ""
	}
	so, eo := int(s.Offset()), int(e.Offset())
	if so < 0 || eo > len(src) || so > eo {
		return ""
	}
	return src[so:eo]
}

// hasGlobMeta reports whether unquoted literal text holds glob
// metacharacters that bash would expand.
func hasGlobMeta(s string) bool { return pathmatch.HasGlob(s) }

// plainLit reports whether a literal holds none of \ { * ? [, so that its
// value is its text (strings.ContainsAny, without building its byte set on
// every call).
func plainLit(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '{', '*', '?', '[':
			return false
		}
	}
	return true
}

// evalWord computes the static value of w, if it has one.
func evalWord(w *syntax.Word, src string) wordInfo {
	wi := wordInfo{node: w}
	if len(w.Parts) == 1 {
		// Fast path: a plain literal without escapes, braces or globs.
		if l, ok := w.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) && (l.Value == "" || l.Value[0] != '=') {
			wi.Value, wi.Static = l.Value, true
			return wi
		}
	}
	var b, pat strings.Builder
	static := true
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && len(p.Value) > 1 && p.Value[0] == '=' {
				wi.zshEq = true
			}
			if hasGlobMeta(p.Value) {
				wi.glob = true
			}
			if strings.IndexByte(p.Value, '{') >= 0 {
				wi.brace = true
			}
			unescapeLit(&b, &pat, p.Value)
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var nul bool
				v, nul = ansicValue(v)
				wi.nul = wi.nul || nul
			}
			b.WriteString(v)
			escapeGlob(&pat, v)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					static = false
					break
				}
				v := unescapeDbl(l.Value)
				b.WriteString(v)
				escapeGlob(&pat, v)
			}
		case *syntax.ExtGlob:
			wi.glob = true
			t := sliceSrc(src, p)
			b.WriteString(t)
			pat.WriteString(t)
		default:
			static = false
		}
		if !static {
			break
		}
	}
	if wi.brace {
		// Only a real brace expansion counts.
		cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
		wi.brace = syntax.SplitBraces(cp)
		if wi.brace {
			wi.glob = true
		}
	}
	if !static {
		wi.Value = sliceSrc(src, w)
		wi.Static = false
		return wi
	}
	wi.Value, wi.Static = b.String(), true
	if wi.glob {
		wi.pat = pat.String()
	}
	return wi
}

// unescapeLit performs quote removal on unquoted literal text, writing the
// value to b and a glob pattern (escapes kept) to pat.
func unescapeLit(b, pat *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
			b.WriteByte(s[i])
			pat.WriteByte('\\')
			pat.WriteByte(s[i])
			continue
		}
		b.WriteByte(c)
		pat.WriteByte(c)
	}
}

func escapeGlob(pat *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\', '{', '}':
			pat.WriteByte('\\')
		}
		pat.WriteByte(s[i])
	}
}

// unescapeDbl removes the backslashes that are special inside double quotes.
func unescapeDbl(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of a $'...' string as bash does, cut at
// the first NUL (bash ends the string's value there).
func decodeANSIC(s string) string {
	v, _ := ansicValue(s)
	return v
}

// ansicValue decodes the body of a $'...' string. bash builds the value as
// a C string, so an escape that yields a NUL byte (\0, \000, \x00, \x0,
// \u0000, \U0, \c@, \400 ...) ends it: the value is cut there and nul
// is true.
func ansicValue(s string) (v string, nul bool) {
	if strings.IndexByte(s, '\\') < 0 {
		if i := strings.IndexByte(s, 0); i >= 0 {
			return s[:i], true
		}
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			if c == 0 {
				return b.String(), true
			}
			b.WriteByte(c)
			continue
		}
		i++
		var out byte
		switch s[i] {
		case 'a':
			out = '\a'
		case 'b':
			out = '\b'
		case 'e', 'E':
			out = 0x1b
		case 'f':
			out = '\f'
		case 'n':
			out = '\n'
		case 'r':
			out = '\r'
		case 't':
			out = '\t'
		case 'v':
			out = '\v'
		case '\\', '\'', '"', '?':
			out = s[i]
		case 'c':
			if i+1 >= len(s) {
				// A lone \c at the end stays as written.
				b.WriteString("\\c")
				continue
			}
			i++
			ch := s[i]
			if ch == '\\' && i+1 < len(s) && s[i+1] == '\\' {
				i++
			}
			if ch == '?' {
				out = 0x7f
			} else {
				if ch >= 'a' && ch <= 'z' {
					ch -= 'a' - 'A'
				}
				out = ch & 0x1f
			}
		case 'x', 'u', 'U':
			limit := 2
			switch s[i] {
			case 'u':
				limit = 4
			case 'U':
				limit = 8
			}
			j := i + 1
			for j < len(s) && j-i-1 < limit && isHexDigit(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(s[i])
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if n == 0 {
				return b.String(), true
			}
			if s[i] == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
			continue
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			out = byte(n) // bash keeps the low byte: \400 is a NUL
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
			continue
		}
		if out == 0 {
			return b.String(), true
		}
		b.WriteByte(out)
	}
	return b.String(), false
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// maxBraceWords caps the words one brace expansion may produce.
const maxBraceWords = 1024

// maxBraceExps caps the brace expansions in one word that are expanded.
const maxBraceExps = 16

// expandBraces performs brace expansion of a static word. It returns nil
// when the word holds no brace expansion.
func expandBraces(w *syntax.Word) []string {
	if w == nil {
		return nil
	}
	cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(cp) {
		return nil
	}
	n := 0
	for _, p := range cp.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			n++
		}
	}
	if n > maxBraceExps {
		return nil // left as a glob, judged conservatively
	}
	out := braceParts(cp.Parts)
	if len(out) > maxBraceWords {
		out = out[:maxBraceWords]
	}
	return out
}

func braceParts(parts []syntax.WordPart) []string {
	acc := []string{""}
	for _, p := range parts {
		var alts []string
		switch p := p.(type) {
		case *syntax.BraceExp:
			if p.Sequence {
				alts = braceSeq(p)
			} else {
				for _, e := range p.Elems {
					alts = append(alts, braceParts(e.Parts)...)
				}
			}
		default:
			wi := evalWord(&syntax.Word{Parts: []syntax.WordPart{p}}, "")
			alts = []string{wi.Value}
		}
		next := make([]string, 0, len(acc)*max(1, len(alts)))
		for _, a := range acc {
			for _, b := range alts {
				if len(next) >= maxBraceWords {
					break
				}
				next = append(next, a+b)
			}
		}
		acc = next
	}
	return acc
}

func braceSeq(p *syntax.BraceExp) []string {
	if len(p.Elems) < 2 {
		return nil
	}
	lit := func(i int) string {
		if i >= len(p.Elems) {
			return ""
		}
		return evalWord(p.Elems[i], "").Value
	}
	from, to, step := lit(0), lit(1), lit(2)
	inc := 1
	if step != "" {
		if n, err := strconv.Atoi(step); err == nil && n != 0 {
			inc = max(n, -n)
		}
	}
	a, errA := strconv.Atoi(from)
	z, errZ := strconv.Atoi(to)
	if errA != nil || errZ != nil {
		ra, sa := utf8.DecodeRuneInString(from)
		rz, sz := utf8.DecodeRuneInString(to)
		if sa != len(from) || sz != len(to) {
			return nil
		}
		a, z = int(ra), int(rz)
		var out []string
		for i := a; (a <= z && i <= z) || (a > z && i >= z); {
			out = append(out, string(rune(i)))
			if len(out) >= maxBraceWords {
				break
			}
			if a <= z {
				i += inc
			} else {
				i -= inc
			}
		}
		return out
	}
	var out []string
	for i := a; (a <= z && i <= z) || (a > z && i >= z); {
		out = append(out, strconv.Itoa(i))
		if len(out) >= maxBraceWords {
			break
		}
		if a <= z {
			i += inc
		} else {
			i -= inc
		}
	}
	return out
}

// homeRel reports whether w is $HOME or ${HOME} (possibly quoted) followed
// by static text, and returns that text.
func homeRel(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var parts []syntax.WordPart
	for _, p := range w.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok {
			parts = append(parts, dq.Parts...)
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "", false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || !isPlainParam(pe, "HOME") {
		return "", false
	}
	rest := evalWord(&syntax.Word{Parts: parts[1:]}, "")
	if !rest.Static {
		return "", false
	}
	return rest.Value, true
}

func isPlainParam(pe *syntax.ParamExp, name string) bool {
	return pe.Param != nil && pe.Param.Value == name && !pe.Excl && !pe.Length &&
		pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil
}

// resolve places p (static text) against dir and home. It returns "" when
// p cannot be placed. ~+ is the directory (bash's $PWD); ~- and ~user
// cannot be placed.
func resolve(p, dir, home string) string {
	if p == "" {
		return ""
	}
	if p[0] == '~' {
		if p == "~" || strings.HasPrefix(p, "~/") {
			if home == "" {
				return ""
			}
			return path.Clean(home + p[1:])
		}
		if p == "~+" || strings.HasPrefix(p, "~+/") {
			if dir == "" {
				return ""
			}
			return path.Clean(dir + p[2:])
		}
		return ""
	}
	if p[0] == '/' {
		return path.Clean(p)
	}
	if dir == "" {
		return ""
	}
	return path.Join(dir, p)
}

// resolve is [resolve] with the common case — a clean relative path in a
// clean absolute directory, which needs no cleaning — joined into the
// analysis's memory instead of allocated on its own.
func (an *analyzer) resolve(p, dir string) string {
	if p != "" && p[0] != '/' && p[0] != '~' && len(dir) > 0 && dir[0] == '/' && cleanRel(p) && (dir == "/" || cleanRel(dir[1:])) {
		return an.res.mem.joinPath(dir, p)
	}
	return resolve(p, dir, an.opts.Home)
}

// cleanRel reports whether p is a non-empty relative path that path.Clean
// leaves as it is: no empty, "." or ".." element and no trailing slash.
func cleanRel(p string) bool {
	if p == "" {
		return false
	}
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		switch p[start:i] {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}

// knownVal is the value of a word whose only expansions are ones the
// analysis knows: HOME, PWD and the output of pwd.
type knownVal struct {
	value   string // the word's value with the known expansions done
	pat     string // the value as a glob pattern (quoted metacharacters escaped)
	glob    bool   // unquoted glob characters
	derived bool   // HOME or PWD transformed in a way not computed here
	pwd     bool   // the word expands PWD or runs pwd
}

// knownParts evaluates the parts of a word when every non-static one is an expansion of
// HOME or PWD — plain or braced, quoted or not, with a default, an error or
// an assignment operator (${HOME:?}, ${PWD:-x}), an alternate value, or a
// suffix or prefix removal of a literal (${HOME%/}) — or a command
// substitution running pwd ($(pwd), `pwd`, $(pwd -P)). dir is the command's
// directory ("" when unknown: PWD then reads as "."). Other transformations
// of HOME or PWD set derived. ok is false for any other word, and for a word
// without any such expansion. pwdCmd reports that pwd is the builtin (no
// function of that name is defined): otherwise $(pwd) is not known.
func knownParts(parts []syntax.WordPart, home, dir string, pwdCmd bool) (kv knownVal, ok bool) {
	pwd := dir
	if pwd == "" {
		pwd = "."
	}
	var b, pat strings.Builder
	found := false
	var walk func(parts []syntax.WordPart, quoted bool) bool
	walk = func(parts []syntax.WordPart, quoted bool) bool {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				if quoted {
					v := unescapeDbl(p.Value)
					b.WriteString(v)
					escapeGlob(&pat, v)
					continue
				}
				if hasGlobMeta(p.Value) {
					kv.glob = true
				}
				unescapeLit(&b, &pat, p.Value)
			case *syntax.SglQuoted:
				v := p.Value
				if p.Dollar {
					v = decodeANSIC(v)
				}
				b.WriteString(v)
				escapeGlob(&pat, v)
			case *syntax.DblQuoted:
				if !walk(p.Parts, true) {
					return false
				}
			case *syntax.ParamExp:
				v, isPwd, okp := knownParam(p, home, pwd)
				if !okp {
					return false
				}
				found = true
				if v == "" && isPwd < 0 {
					kv.derived = true
				}
				if isPwd > 0 {
					kv.pwd = true
				}
				b.WriteString(v)
				escapeGlob(&pat, v)
			case *syntax.CmdSubst:
				if !pwdCmd || !isPwdSubst(p) {
					return false
				}
				found, kv.pwd = true, true
				b.WriteString(pwd)
				escapeGlob(&pat, pwd)
			default:
				return false
			}
		}
		return true
	}
	if !walk(parts, false) || !found {
		return knownVal{}, false
	}
	kv.value, kv.pat = b.String(), pat.String()
	return kv, true
}

// knownParam returns the value of an expansion of HOME or PWD. which is 1
// for PWD, 0 for HOME and -1 (with an empty value) for a transformation
// that is not computed.
func knownParam(p *syntax.ParamExp, home, pwd string) (v string, which int, ok bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.NestedParam != nil {
		return "", 0, false
	}
	switch p.Param.Value {
	case "HOME":
		if home == "" {
			return "", 0, false
		}
		v = home
	case "PWD":
		v, which = pwd, 1
	default:
		return "", 0, false
	}
	if p.Slice != nil || p.Repl != nil {
		return "", -1, true
	}
	if p.Exp == nil {
		return v, which, true
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull:
		// The variable is set and not empty: its own value.
		return v, which, true
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if p.Exp.Word == nil {
			return "", which, true
		}
		alt := evalWord(p.Exp.Word, "")
		if !alt.Static {
			return "", -1, true
		}
		return alt.Value, which, true
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
		if p.Exp.Word == nil {
			return v, which, true
		}
		pw := evalWord(p.Exp.Word, "")
		if !pw.Static || pw.glob {
			return "", -1, true
		}
		switch p.Exp.Op {
		case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			return strings.TrimSuffix(v, pw.Value), which, true
		}
		return strings.TrimPrefix(v, pw.Value), which, true
	}
	return "", -1, true
}

// isPwdSubst reports whether a command substitution only runs pwd.
func isPwdSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	s := cs.Stmts[0]
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(s.Redirs) > 0 || s.Negated || s.Background || len(ce.Assigns) > 0 || len(ce.Args) == 0 || len(ce.Args) > 2 {
		return false
	}
	if ce.Args[0].Lit() != "pwd" {
		return false
	}
	if len(ce.Args) == 2 {
		switch ce.Args[1].Lit() {
		case "-L", "-P":
		default:
			return false
		}
	}
	return true
}

// braceWords performs the brace expansion of a word that is not static,
// keeping the parts of every word it produces. It returns nil when the word
// holds no brace expansion.
func braceWords(w *syntax.Word) [][]syntax.WordPart {
	if w == nil {
		return nil
	}
	has := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			has = true
		}
	}
	if !has {
		return nil
	}
	cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(cp) {
		return nil
	}
	return braceAlts(cp.Parts)
}

func braceAlts(parts []syntax.WordPart) [][]syntax.WordPart {
	acc := [][]syntax.WordPart{nil}
	for _, p := range parts {
		var alts [][]syntax.WordPart
		if be, ok := p.(*syntax.BraceExp); ok {
			if be.Sequence {
				for _, v := range braceSeq(be) {
					alts = append(alts, []syntax.WordPart{&syntax.Lit{Value: v}})
				}
			} else {
				for _, e := range be.Elems {
					alts = append(alts, braceAlts(e.Parts)...)
				}
			}
		} else {
			alts = [][]syntax.WordPart{{p}}
		}
		next := make([][]syntax.WordPart, 0, min(maxBraceWords, len(acc)*max(1, len(alts))))
		for _, a := range acc {
			for _, b := range alts {
				if len(next) >= maxBraceWords {
					break
				}
				next = append(next, append(slices.Clip(a), b...))
			}
		}
		acc = next
	}
	return acc
}

// Quote returns s as one bash word that reads back as exactly s: unchanged
// when it needs no quoting, else quoted the way bash reads it. It fails
// for a string bash cannot hold (one with a NUL byte).
func Quote(s string) (string, error) { return syntax.Quote(s, syntax.LangBash) }
