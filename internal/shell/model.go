package shell

import (
	"fmt"
	"sort"
	"strings"
)

// The command model. Every command the analysis reads specially is
// described here as data: its options with their spellings, whether each
// takes an argument, and what the argument does. One reader ([model.parse])
// interprets the table for every command; a command's own function (fn)
// only says what its operands are when that is more than "read them" or
// "write them".
//
// The world is closed: an option that is not in the table is unknown, and
// an unknown option makes the command not read-only (its effect cannot be
// known) and a wrapper unreadable for allow. Deny rules still see every
// word.
//
// An option table is a list of tokens separated by spaces. A token is one
// option: its spellings joined by '|' (the first is the canonical name the
// handlers ask for), then an arity mark, then an effect mark:
//
//	-a|--all        no argument
//	-n|--lines=     a required argument (-n5, -n 5, --lines=5, --lines 5)
//	-i|--in-place?  an optional argument, attached only (-i.bak, --in-place=.bak)
//	--arg==         two arguments (jq --arg name value)
//	-o|--output=!w  the argument is a file written
//
// Effects: !r the argument is a file read; !l a file read that names more
// files the command reads (wc --files0-from, tar -T); !w a file written; !x the
// option runs a program or code (no prefix rule may cover the command);
// !u the option writes or changes state otherwise (not read-only). A token
// of several letters after one dash with no other mark (-abc) is shorthand
// for that many options without an argument.

type arity uint8

const (
	argNone arity = iota
	argReq
	argOpt
	argTwo
)

type effect uint8

const (
	effNone effect = iota
	effRead
	effList
	effWrite
	effExec
	effUnsafe
)

// optDef is one option of a model.
type optDef struct {
	key string // canonical spelling: "-r" or "--recursive"
	arg arity
	eff effect
}

// opRole says what a command's operands are when it has no handler.
type opRole uint8

const (
	opsNone  opRole = iota // names, numbers, text: not files read
	opsRead                // files whose content is read
	opsWrite               // files written
)

// model is what the analysis knows about one command or subcommand.
type model struct {
	name  string
	short [128]*optDef
	long  map[string]*optDef
	longs []string // sorted, for abbreviations
	// ro: with known options of no effect, the command only reads.
	ro bool
	// posix: options end at the first operand (wrappers, find, xargs).
	posix bool
	// num: -NUM is an option (head -5).
	num bool
	// literal: no word is an option (echo).
	literal bool
	// risky: some option writes or executes, so a word whose value is not
	// static may be one of them.
	risky bool
	ops   opRole
	// fn interprets the parsed words beyond the option effects; it returns
	// false when the command does more than read.
	fn   func(in *inspector, a *argv) bool
	subs map[string]*model
}

// spec is the source of one model entry.
type spec struct {
	names   string // space-separated names sharing the entry
	opts    string
	ro      bool
	posix   bool
	num     bool
	literal bool
	ops     opRole
	fn      func(in *inspector, a *argv) bool
}

func compileModel(name string, s spec) *model {
	m := &model{name: name, ro: s.ro, posix: s.posix, num: s.num, literal: s.literal, ops: s.ops, fn: s.fn, long: map[string]*optDef{}}
	for _, tok := range strings.Fields(s.opts) {
		m.addToken(tok)
	}
	for l := range m.long {
		m.longs = append(m.longs, l)
	}
	sort.Strings(m.longs)
	return m
}

func (m *model) addToken(tok string) {
	d := &optDef{}
	body := tok
	if i := strings.IndexByte(body, '!'); i >= 0 {
		switch body[i+1:] {
		case "r":
			d.eff = effRead
		case "l":
			d.eff = effList
		case "w":
			d.eff = effWrite
		case "x":
			d.eff = effExec
		case "u":
			d.eff = effUnsafe
		default:
			panic(fmt.Sprintf("shell model %s: bad effect in %q", m.name, tok))
		}
		body = body[:i]
	}
	switch {
	case strings.HasSuffix(body, "=="):
		d.arg, body = argTwo, body[:len(body)-2]
	case strings.HasSuffix(body, "="):
		d.arg, body = argReq, body[:len(body)-1]
	case strings.HasSuffix(body, "?"):
		d.arg, body = argOpt, body[:len(body)-1]
	}
	if d.eff != effNone && d.eff != effExec && d.eff != effUnsafe && d.arg == argNone {
		panic(fmt.Sprintf("shell model %s: %q reads or writes a file but takes no argument", m.name, tok))
	}
	if d.eff == effWrite || d.eff == effExec || d.eff == effUnsafe {
		m.risky = true
	}
	spells := strings.Split(body, "|")
	if len(spells) == 1 && d.arg == argNone && d.eff == effNone && len(body) > 2 && body[0] == '-' && body[1] != '-' {
		// -abc: several options without an argument.
		for i := 1; i < len(body); i++ {
			m.addShort(body[i], &optDef{key: "-" + body[i:i+1]})
		}
		return
	}
	d.key = spells[0]
	for _, sp := range spells {
		switch {
		case strings.HasPrefix(sp, "--") && len(sp) > 2:
			if _, dup := m.long[sp[2:]]; dup {
				panic(fmt.Sprintf("shell model %s: %s twice", m.name, sp))
			}
			m.long[sp[2:]] = d
		case len(sp) == 2 && sp[0] == '-':
			m.addShort(sp[1], d)
		default:
			panic(fmt.Sprintf("shell model %s: bad spelling %q in %q", m.name, sp, tok))
		}
	}
}

func (m *model) addShort(c byte, d *optDef) {
	if c >= 128 || m.short[c] != nil {
		panic(fmt.Sprintf("shell model %s: -%c twice or invalid", m.name, c))
	}
	m.short[c] = d
}

// lookupLong finds a long option by its name or, as getopt_long accepts,
// by an unambiguous prefix of it.
func (m *model) lookupLong(name string) (*optDef, string) {
	if d, ok := m.long[name]; ok {
		return d, name
	}
	if name == "" {
		return nil, ""
	}
	i := sort.SearchStrings(m.longs, name)
	var found *optDef
	full := ""
	for ; i < len(m.longs) && strings.HasPrefix(m.longs[i], name); i++ {
		d := m.long[m.longs[i]]
		if found != nil && found != d {
			return nil, "" // ambiguous
		}
		found, full = d, m.longs[i]
	}
	return found, full
}

// argv is a command's words read by its model.
type argv struct {
	// name is the model's name ("rg", "git show"); args the words read.
	name string
	args []wordInfo
	opts []opt
	ops  []wordInfo
	// unknown lists options the model does not know, as written.
	unknown []string
	// effect is the strongest effect of the options given.
	unsafe bool
	// dyn reports a non-static word where an option could stand.
	dyn bool
	// rest, for a posix model, is the index in the parsed words of the
	// first operand (len when none).
	rest int
	// own is the memory ops is built in when it is not args itself (the
	// words with options among them), kept for the next parse into the
	// same argv; ops may alias args, so args' memory is never written.
	own []wordInfo
	// used is the most elements any of opts, own and unknown held since
	// the last reset: what reset must clear.
	used int
}

// reset empties a, keeping the memory of its lists for the next parse
// (up to maxKept elements each) with nothing in it left pointing into the
// last command.
func (a *argv) reset() {
	n := max(a.used, len(a.opts), len(a.unknown))
	*a = argv{opts: keep(a.opts, n), unknown: keep(a.unknown, n), own: keep(a.own, n)}
}

// keep returns s emptied, its first n elements (all it held since the last
// reset) cleared, or nil when it is too large to keep.
func keep[T any](s []T, n int) []T {
	if cap(s) > maxKept {
		return nil
	}
	clear(s[:min(n, cap(s))])
	return s[:0]
}

type opt struct {
	name string   // canonical spelling
	val  wordInfo // the argument, when has
	has  bool
	val2 wordInfo // the second argument of a two-argument option
	def  *optDef
}

// has reports whether any of the named options was given (by its
// canonical spelling).
func (a *argv) has(names ...string) bool {
	for _, o := range a.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

// vals returns the arguments of the named options, in order.
func (a *argv) vals(names ...string) []wordInfo {
	var out []wordInfo
	for _, o := range a.opts {
		for _, n := range names {
			if o.name == n && o.has {
				out = append(out, o.val)
			}
		}
	}
	return out
}

// clean reports whether every option is known and none has an effect
// beyond reading.
func (a *argv) clean(m *model) bool {
	return len(a.unknown) == 0 && !a.unsafe && !(a.dyn && m.risky)
}

// parse reads args by the model. Options may follow operands (GNU
// permutation) unless the model is posix; "--" ends them. An unknown
// option is recorded and taken to have no argument (so the word after it
// stays an operand, which deny checks see); the letters after it in a
// cluster are read as options too.
func (m *model) parse(args []wordInfo) argv {
	var a argv
	m.parseInto(&a, args)
	return a
}

// parseInto is [model.parse] writing into *a, reusing the memory of the
// option, operand and unknown lists a held (their old contents are
// overwritten: nothing may still use them).
func (m *model) parseInto(a *argv, args []wordInfo) {
	opts, unknown, own := a.opts[:0], a.unknown[:0], a.own
	used := max(a.used, len(a.opts), len(a.unknown), len(a.own))
	*a = argv{name: m.name, args: args, opts: opts, unknown: unknown, own: own, rest: len(args), used: used}
	if m.literal || !hasOptionWord(args) {
		// Nothing to read as an option: the words are the operands.
		a.ops = args
		if m.posix {
			// Options end at the first word, an operand.
			if len(args) > 0 {
				a.rest = 0
				a.dyn = !args[0].Static && !m.literal
			}
			return
		}
		for _, w := range args {
			if !w.Static && !m.literal {
				a.dyn = true
			}
		}
		return
	}
	a.ops = own[:0]
	end := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			if !end && !m.literal {
				a.dyn = true
			}
			if m.posix && !end {
				a.rest, end = i, true
			}
			a.ops = append(a.ops, w)
			continue
		}
		v := w.Value
		if end || m.literal || len(v) < 2 || v[0] != '-' {
			if m.posix && !end {
				a.rest, end = i, true
			}
			a.ops = append(a.ops, w)
			continue
		}
		if v == "--" {
			end = true
			if m.posix {
				a.rest = i + 1
			}
			continue
		}
		if v[1] == '-' {
			name, val, eq := strings.Cut(v[2:], "=")
			d, _ := m.lookupLong(name)
			if d == nil || (d.arg == argNone && eq) {
				a.unknown = append(a.unknown, v)
				continue
			}
			o := opt{name: d.key, def: d}
			switch d.arg {
			case argReq:
				if eq {
					o.val, o.has = staticWord(val), true
				} else if i+1 < len(args) {
					i++
					o.val, o.has = args[i], true
				}
			case argOpt:
				if eq {
					o.val, o.has = staticWord(val), true
				}
			case argTwo:
				if i+2 < len(args) {
					o.val, o.val2, o.has = args[i+1], args[i+2], true
				}
				i += 2
			}
			a.add(o)
			continue
		}
		if m.num && isDigits(v[1:]) {
			a.opts = append(a.opts, opt{name: "-NUM", val: staticWord(v[1:]), has: true})
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			var d *optDef
			if c < 128 {
				d = m.short[c]
			}
			if d == nil {
				a.unknown = append(a.unknown, "-"+string(c))
				continue
			}
			o := opt{name: d.key, def: d}
			switch d.arg {
			case argNone:
				a.add(o)
				continue
			case argOpt:
				if j+1 < len(v) {
					o.val, o.has = staticWord(v[j+1:]), true
				}
			case argReq, argTwo:
				if j+1 < len(v) {
					o.val, o.has = staticWord(v[j+1:]), true
				} else if i+1 < len(args) {
					i++
					o.val, o.has = args[i], true
				}
			}
			a.add(o)
			break
		}
	}
	a.own = a.ops[:0]
	a.used = max(a.used, len(a.ops))
}

// hasOptionWord reports whether a word could be an option: a static word
// of two or more characters starting with '-'.
func hasOptionWord(args []wordInfo) bool {
	for _, w := range args {
		if w.Static && len(w.Value) > 1 && w.Value[0] == '-' {
			return true
		}
	}
	return false
}

func (a *argv) add(o opt) {
	if o.def != nil && (o.def.eff == effWrite || o.def.eff == effExec || o.def.eff == effUnsafe) {
		a.unsafe = true
	}
	a.opts = append(a.opts, o)
}

// models holds every modelled command by name; built once from the specs.
var models map[string]*model

// gitSubs holds git's subcommand models (models["git"].subs), looked up
// for every git command.
var gitSubs map[string]*model

func init() {
	models = buildModels()
	gitSubs = models["git"].subs
}

func buildModels() map[string]*model {
	out := map[string]*model{}
	for _, s := range append(commandSpecs, gitSpec) {
		for _, n := range strings.Fields(s.names) {
			if _, dup := out[n]; dup {
				panic("shell model: " + n + " twice")
			}
			out[n] = compileModel(n, s)
		}
	}
	for name, subs := range subcommandSpecs {
		m := out[name]
		m.subs = map[string]*model{}
		for _, s := range subs {
			for _, n := range strings.Fields(s.names) {
				m.subs[n] = compileModel(name+" "+n, s)
			}
		}
	}
	return out
}

// lookupModel returns the model of a command name, or nil.
func lookupModel(name string) *model { return models[name] }
