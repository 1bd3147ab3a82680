package shell

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Variables a script sets itself. bash expands $f in `f=.env; cat $f` to
// .env, so a deny rule on .env must see that read. The analysis records
// every static value a script assigns to a variable — by a standalone
// assignment, a declaration (export, local, …) or a for loop's words —
// and a path word made of those expansions and literal text is also read
// with each recorded value, for deny. The recorded values are readings,
// not facts (a branch may not run, the variable may be changed where the
// analysis cannot see): the word stays non-static, so it still satisfies
// no allow rule and is never inside the workspace.

const (
	maxVarValues   = 32 // values recorded per variable
	maxVarReadings = 64 // readings of one word
)

// noteAssign records the static value (or array elements) of a.
func (an *analyzer) noteAssign(a *syntax.Assign, sc scope) {
	if a == nil || a.Name == nil || a.Index != nil || a.Append {
		return
	}
	switch {
	case a.Array != nil:
		for _, e := range a.Array.Elems {
			if e.Value != nil && e.Index == nil {
				an.noteVar(a.Name.Value, e.Value, sc)
			}
		}
	case a.Value != nil:
		an.noteVar(a.Name.Value, a.Value, sc)
	}
}

// noteLoop records the words a for loop's variable takes.
func (an *analyzer) noteLoop(name string, items []*syntax.Word, sc scope) {
	for _, w := range items {
		an.noteVar(name, w, sc)
	}
}

func (an *analyzer) noteVar(name string, w *syntax.Word, sc scope) {
	v := evalWord(w, sc.src)
	if v.glob {
		return
	}
	if v.Static {
		an.addVarValue(name, v.Value)
		return
	}
	// g=$f: the values of f.
	for _, r := range an.varReadings(w) {
		an.addVarValue(name, r)
	}
}

func (an *analyzer) addVarValue(name, v string) {
	if v == "" {
		return
	}
	x := an.extra()
	if x.vars == nil {
		x.vars = map[string][]string{}
	}
	vals := x.vars[name]
	for _, old := range vals {
		if old == v {
			return
		}
	}
	if len(vals) == maxVarValues {
		// A value past the cap is not read: the variable's expansions
		// make their command unanalysable (varReadings).
		x.vars[name] = append(vals, overflowValue)
		return
	}
	if len(vals) < maxVarValues {
		x.vars[name] = append(vals, v)
	}
}

// overflowValue marks a variable given more values than are recorded.
const overflowValue = "\x00overflow"

// varReadings returns the values a word may have given the variables the
// script set: every combination of their recorded values, or nil when the
// word expands anything else or holds glob characters.
func (an *analyzer) varReadings(w *syntax.Word) []string {
	if an.x == nil || len(an.x.vars) == 0 || w == nil {
		return nil
	}
	out := []string{""}
	found, overflow := false, ""
	var walk func(parts []syntax.WordPart) bool
	walk = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				if strings.ContainsAny(p.Value, "\\*?[]{}~") {
					return false
				}
				for i := range out {
					out[i] += p.Value
				}
			case *syntax.SglQuoted:
				if p.Dollar {
					return false
				}
				for i := range out {
					out[i] += p.Value
				}
			case *syntax.DblQuoted:
				if !walk(p.Parts) {
					return false
				}
			case *syntax.ParamExp:
				if p.Param == nil || p.Excl || p.Length || p.Width || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.NestedParam != nil {
					return false
				}
				if p.Index != nil && !isAllIndex(p.Index) {
					return false
				}
				vals := an.x.vars[p.Param.Value]
				if len(vals) == 0 {
					return false
				}
				if vals[len(vals)-1] == overflowValue || len(out)*len(vals) > maxVarReadings {
					overflow = "$" + p.Param.Value
					return false
				}
				found = true
				next := make([]string, 0, len(out)*len(vals))
				for _, o := range out {
					for _, v := range vals {
						next = append(next, o+v)
					}
				}
				out = next
			default:
				return false
			}
		}
		return true
	}
	ok := walk(w.Parts)
	if overflow != "" {
		// No cap may skip a deny check: a word with more readings than
		// are kept cannot be allowed either.
		an.issue(overflow, fmt.Sprintf("a variable with more than %d values, or a word with more than %d readings", maxVarValues, maxVarReadings))
		return nil
	}
	if !ok || !found {
		return nil
	}
	return out
}

// isAllIndex reports an index of [@] or [*].
func isAllIndex(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && (l.Value == "@" || l.Value == "*")
}

// varRefs adds to refs, for deny, the paths a non-static word names with
// the values the script gave its variables; the unplaced reading stays.
func (an *analyzer) varRefs(w wordInfo, dir string, refs []PathRef) []PathRef {
	vals := an.varReadings(w.node)
	if vals == nil {
		return refs
	}
	unplaced := false
	for _, r := range refs {
		if r.Path == "" {
			unplaced = true
		}
	}
	out := append([]PathRef(nil), refs...)
	if !unplaced {
		out = append(out, PathRef{Text: w.Value, Dynamic: true})
	}
	for _, v := range vals {
		if p := resolve(v, dir, an.opts.Home); p != "" {
			out = append(out, PathRef{Text: w.Value, Path: p, Dynamic: true})
		}
	}
	return out
}

// readAssigned reads the code that the static value of variable name may
// run (assignCode), for deny and ask rules. The values of PS0–PS4 and
// PROMPT_COMMAND, a subscript holding a substitution, the variables
// programs run as commands (codeVars) and a git alias through
// GIT_CONFIG_VALUE_N are code: they are read as scripts. Any other value
// may as well be data (MSG='hello world', P='*.txt'): it is guessed at
// (guessScript).
func (an *analyzer) readAssigned(name, value string, depth int, dir string) {
	code := assignCode(name, value)
	if code == "" {
		return
	}
	switch {
	case strings.HasPrefix(name, "PS") && len(name) == 3 && name[2] >= '0' && name[2] <= '4',
		name == "PROMPT_COMMAND", subscriptSubst(value), codeVars[name],
		strings.HasPrefix(name, "GIT_CONFIG_VALUE_") && strings.HasPrefix(value, "!"):
		an.script(code, depth, dir, nil, code)
	default:
		an.guessScript(code, depth, dir)
	}
}

// codeVars are variables whose value programs run as a command: what
// cannot be analysed in them makes the call unanalysable.
var codeVars = map[string]bool{
	"PAGER": true, "GIT_PAGER": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "EDITOR": true,
	"VISUAL": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true, "GIT_SSH_COMMAND": true,
	"GIT_SSH": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_PROXY_COMMAND": true, "LESSOPEN": true, "LESSCLOSE": true,
	"BROWSER": true, "SHELL": true, "MAKESHELL": true, "CC": true, "CXX": true, "LD": true,
	"AR": true, "RUSTC_WRAPPER": true, "CARGO_BUILD_RUSTC_WRAPPER": true, "FZF_DEFAULT_COMMAND": true,
}

// guessScript reads a string that a program may run as a command, or may
// not (an assigned value, make's NAME=value), for deny and ask rules: its
// commands are Delegated, and what it holds that cannot be analysed is no
// issue of the call, since the string may be data.
func (an *analyzer) guessScript(code string, depth int, dir string) {
	n, issues := len(an.res.Commands), len(an.res.Unanalysable)
	many, deep := an.tooMany, an.tooDeep
	an.delegated++
	an.script(code, depth, dir, nil, code)
	an.delegated--
	if an.tooMany != many || an.tooDeep != deep {
		return // a limit reached stays reported
	}
	clear(an.res.Unanalysable[issues:])
	an.res.Unanalysable = an.res.Unanalysable[:issues]
	for _, c := range an.res.Commands[n:] {
		c.Unanalysable = ""
	}
}
