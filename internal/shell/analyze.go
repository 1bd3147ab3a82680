package shell

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits on what can be analysed. Exceeding one makes the command
// unanalysable (never allowed by a rule) but every command that parses is
// still collected, so deny rules see it.
const (
	// MaxDepth is the deepest nesting of substitutions, subshells and
	// scripts run by bash -c, eval or a here-document fed to a shell.
	MaxDepth = 16
	// MaxCommands is the largest number of simple commands.
	MaxCommands = 1000
	// MaxAnalysable is the longest command string, in bytes.
	MaxAnalysable = 64 << 10
)

// Options tells [Analyze] about the environment the command would run in.
// The zero value places no relative path and expands no glob.
type Options struct {
	// Cwd is the absolute working directory.
	Cwd string
	// Home is the home directory for ~ and $HOME.
	Home string
	// Glob, if non-nil, expands an absolute glob pattern as bash would (no
	// dotfiles unless a pattern segment starts with '.'). When nil, glob
	// words are left unexpanded and reported with PathRef.Glob set.
	Glob func(pattern string) ([]string, error)
}

// Analysis is what [Analyze] found in a command string.
type Analysis struct {
	// Commands holds every simple command anywhere in the input, in source
	// order: inside substitutions, subshells, functions, control
	// structures, [[ ]], arithmetic, parameter-expansion defaults and the
	// scripts of bash -c, eval and here-documents fed to a shell.
	Commands []*Command
	// Unanalysable lists reasons the whole command can never be allowed by
	// a rule: a parse error, too deep, too many commands, too long, ...
	Unanalysable []Issue
	// UnsafeAssign names variables assigned that are not known to be safe.
	// When non-empty, the whole command cannot be allowed by a rule and is
	// not read-only.
	UnsafeAssign []string
	// ReadOnly reports that every command is read-only, nothing is
	// unanalysable and no unsafe assignment is made.
	ReadOnly bool

	// mem backs the commands, paths and word lists above.
	mem arena
}

// Issue is one reason a command string cannot be analysed.
type Issue struct {
	// Part is the source text of the offending piece.
	Part string
	// Message says what is wrong with it.
	Message string
}

// Word is one word of a command.
type Word struct {
	// Value is the word after quote removal when Static; otherwise its
	// source text.
	Value string
	// Static is false when the word holds a parameter expansion, a
	// substitution, arithmetic or anything else only known at run time.
	Static bool
}

// Command is one simple command and everything the policy needs about it.
type Command struct {
	// Text is the source text of the command as it appears in the input
	// (for a command inside a -c script, its text inside the script).
	Text string
	// Depth is the nesting depth: 0 at top level, one more inside each
	// substitution, subshell or nested script.
	Depth int
	// Dir is the absolute directory the command runs in: Options.Cwd, or the
	// target of a static cd or pushd earlier in the same list (also one run
	// by eval, in the same shell). It is "" when unknown (after a dynamic
	// cd, or a call of a function whose body changes the directory).
	Dir string
	// Words is the reading for allow rules: leading assignments and the
	// wrappers timeout, time, nice, nohup, stdbuf, command, builtin, exec
	// and noglob are stripped; xargs CMD ARGS reads as CMD ARGS followed by
	// one non-static word standing for the unknown arguments.
	Words []Word
	// Forms holds every reading for deny and ask rules, Words first: also
	// the command as written, and seen through sudo, doas, env, watch,
	// ionice, setsid and flock, with a program given by path read by its
	// base name, and with the global options of git, docker, kubectl, npm,
	// go and cargo removed. Each form is distinct.
	Forms [][]Word
	// Assigns names the leading assignments.
	Assigns []string
	// AssignWords holds the leading assignments as words, NAME=value after
	// quote removal, for patterns that begin with assignments.
	AssignWords []Word
	// Unanalysable, when non-empty, says why this command cannot be
	// analysed.
	Unanalysable string
	// ExactOnly reports that no prefix or wildcard allow rule may cover the
	// command (find -exec, watch, xargs with flags, sed e/w, awk system...).
	ExactOnly bool
	// Wrapper reports that the command only runs a script that was
	// analysed recursively (bash -c 'static', eval 'static', a shell fed a
	// here-document): it needs no allow rule itself.
	Wrapper bool
	// Delegated reports a command that another program runs for the
	// caller, on this machine or another: ssh's remote command, docker
	// exec's, npm exec -c's script. Deny and ask rules judge it; allow
	// rules judge the program that runs it (Bash(ssh:*) approves ssh h ls).
	Delegated bool
	// ReadOnly reports that the built-in classifier knows the command only
	// reads.
	ReadOnly bool
	// alts are the other directories the command may run in (a cd before
	// it may have failed); placeAlts places its relative paths there too.
	alts []string
	// MayWrite reports a command the model does not know (or an option or
	// subcommand it does not know): it may write any path it names, so
	// every path in ArgPaths faces edit deny rules and protected paths as
	// if it were in Writes.
	MayWrite bool
	// Unmodelled reports a command whose program the model does not know
	// (a program it has no model for, a script file, an unknown busybox
	// applet). Such a program may run any of its operands as a command
	// (bwrap --bind / / rm -rf x), so deny and ask rules also judge every
	// tail of a form that starts with a static word.
	Unmodelled bool
	// AcceptEdits reports a plain mkdir, touch, mv, cp, rm, rmdir or sed -i.
	AcceptEdits bool
	// Writes lists the files written: output redirection targets and the
	// targets of commands known to write.
	Writes []PathRef
	// Redirects lists the output redirection targets (a subset of Writes).
	Redirects []PathRef
	// Reads lists the files whose content is read.
	Reads []PathRef
	// Searches lists the directories searched recursively for content.
	Searches []PathRef
	// ArgPaths holds every argument word read as a path, and every part of
	// it after '=', '@' or ':', for deny checks.
	ArgPaths []PathRef
	// CriticalRemoval, when non-empty, says what this removal puts at risk
	// and the word that names it, ready to follow "critical removal of ":
	// /, a top-level or home directory, the working directory or one of its
	// parents (in any spelling: ~, $HOME, ${HOME:?}, ., $PWD, $(pwd), ~+,
	// a path that cleans to one of these), a glob that can match one or
	// lies directly inside one, a glob under a variable, or whatever xargs
	// passes: "the working directory /p (as '.')".
	CriticalRemoval string
	// Stdin is the here-document or here-string on descriptor 0 of the
	// command (one on another descriptor is data and is not here).
	Stdin string
	// StdinStatic reports that Stdin holds a static body. It is false when
	// a here-document or here-string meets another redirection of
	// descriptor 0: the program is then unknown.
	StdinStatic bool
}

// PathRef is a path named by a command.
type PathRef struct {
	// Text is the path as written (after quote removal when static).
	Text string
	// Path is the absolute, cleaned path, or "" when it cannot be placed.
	Path string
	// Glob reports unexpanded glob characters or braces in the word.
	Glob bool
	// Dynamic reports a non-static word.
	Dynamic bool
}

// Analyze parses src as a bash command string and reports everything in it
// the policy engine needs. It never executes or expands anything against
// the real environment, and it never panics: an internal failure becomes an
// Unanalysable issue.
func Analyze(src string, opts Options) *Analysis {
	res := new(Analysis)
	AnalyzeInto(res, src, opts)
	return res
}

// AnalyzeInto is [Analyze] writing its result into res, reusing the memory
// of the analysis res held before (a caller that analyses many commands
// keeps one Analysis). Everything the earlier analysis handed out — its
// commands, paths and word lists — is overwritten: nothing may still use
// it. Strings are never overwritten.
func AnalyzeInto(res *Analysis, src string, opts Options) {
	res.reset()
	an := analyzerPool.Get().(*analyzer)
	*an = analyzer{opts: opts, res: res, parser: an.parser, tmp: an.tmp, argvs: an.argvs}
	defer func() {
		if r := recover(); r != nil {
			res.Unanalysable = append(res.Unanalysable, Issue{Part: src, Message: fmt.Sprintf("internal error: %v", r)})
			res.ReadOnly = false
		}
		an.release()
	}()
	dir := opts.Cwd
	if dir != "" && dir[0] != '/' {
		dir = ""
	} else if dir != "" {
		dir = path.Clean(dir)
	}
	an.run(src, dir)
	if an.x != nil && an.x.rerun {
		// An option changed inside a loop: globs anywhere may match
		// dot-files.
		res.reset()
		an.nCmds, an.tooMany, an.tooDeep, an.loops, an.delegated = 0, false, false, 0, 0
		an.x = &analyzerExtra{dotGlobs: true}
		an.run(src, dir)
	}
	res.ReadOnly = len(res.Unanalysable) == 0 && len(res.UnsafeAssign) == 0
	for _, c := range res.Commands {
		if !c.ReadOnly || c.Unanalysable != "" {
			res.ReadOnly = false
		}
	}
}

// reset empties res for a new analysis, keeping its memory.
func (res *Analysis) reset() {
	clear(res.Unanalysable)
	clear(res.UnsafeAssign)
	res.Commands, res.Unanalysable, res.UnsafeAssign, res.ReadOnly = nil, res.Unanalysable[:0], res.UnsafeAssign[:0], false
	res.mem.reset()
}

var parserPool = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

type analyzer struct {
	opts    Options
	res     *Analysis
	parser  *syntax.Parser
	nCmds   int
	tooMany bool
	tooDeep bool
	// loops is how many loop bodies enclose the statement being walked.
	loops int32
	// x holds what only some commands need, allocated on first use.
	x *analyzerExtra
	// hashed maps names to the programs hash -p bound them to.
	hashed map[string]string
	// argvs holds the parsed words of the commands being read (a command
	// read inside another's, find -exec, takes the next one), so that
	// reading them allocates nothing.
	argvs     [2]argv
	argvDepth int
	// tmp is scratch space that lives only as long as one analysis and is
	// kept, cleared, across analyses.
	tmp scratch
	// rd feeds the parser (each parse reads its string to the end before
	// the next begins).
	rd strings.Reader
	// delegated counts the readings being inspected of commands that
	// another program runs (runsForms): commands found there are
	// Delegated.
	delegated int
}

// loop walks the body of a loop (its condition, body and step). A body
// that changes the directory runs its later iterations somewhere else: it
// is walked a second time with the directory unknown, so that no path of
// the later iterations is placed (or allowed) as if it were the first's.
func (an *analyzer) loop(sc scope, n syntax.Node, body func()) {
	before := *sc.dir
	an.loops++
	body()
	if *sc.dir != before && before != "" {
		*sc.dir = ""
		if an.mayRewalk(sc, n) {
			body()
		}
		*sc.dir = "" // it may also have run no time, or many
	}
	an.loops--
}

// maxRewalk caps the source bytes walked again for loops and function
// calls (twice the longest analysable command).
const maxRewalk = 2 * MaxAnalysable

// mayRewalk reports whether the body n may be walked again: not past the
// command limit or the maxRewalk budget. Past them the command is
// unanalysable (every command was already seen once for deny rules).
func (an *analyzer) mayRewalk(sc scope, n syntax.Node) bool {
	x := an.extra()
	size := int(n.End().Offset()) - int(n.Pos().Offset())
	if an.nCmds >= MaxCommands || x.rewalked+size > maxRewalk {
		if !x.rewalkCapped {
			x.rewalkCapped = true
			an.issue(sliceSrc(sc.src, n), "too many loops or function calls in other directories to analyse")
		}
		return false
	}
	x.rewalked += size
	return true
}

// analyzerExtra is the state of an analysis that few commands need.
type analyzerExtra struct {
	// optsChanged is the command that changed the shell's options (shopt,
	// set): every command after it is unanalysable.
	optsChanged string
	// dotGlobs reports that globs may match dot-files (after optsChanged).
	dotGlobs bool
	// rerun asks for the analysis to be made again with dotGlobs from the
	// start: an option changed inside a loop, so commands before it in the
	// source may run after it.
	rerun bool
	// shadowed holds, for a command whose here-document on descriptor 0
	// meets another redirection of it, the static here-documents: read for
	// deny rules only.
	shadowed map[*Command][]string
	// critNotes describe the critical removals found (criticalRemoval).
	critNotes []critNote
	// lastScript is the nested script whose analysis ended last, with the
	// directory it ended in (for eval, which runs in the same shell).
	lastScript scriptEnd
	// funcs holds the functions defined so far, by name.
	funcs map[string]*funcDef
	// vars holds the static values the script assigned to each variable
	// so far (vars.go), read for deny.
	vars map[string][]string
	// rewalked counts the source bytes walked again (mayRewalk).
	rewalked     int
	rewalkCapped bool
}

func (an *analyzer) extra() *analyzerExtra {
	if an.x == nil {
		an.x = &analyzerExtra{}
	}
	return an.x
}

// funcDef is a function definition: its body was walked where it was
// defined; a call from another directory walks it again there.
type funcDef struct {
	body    *syntax.Stmt
	src     string
	dir     string // the directory the body was walked in
	cds     bool   // the body changes the directory
	walking bool   // being walked for a call (recursion)
}

// scriptEnd records where a script analysed by [analyzer.script] ended.
type scriptEnd struct {
	src   string
	depth int
	dir   string
}

// release returns the analyzer (with its parser) to the pool; nothing it
// holds may be used after.
func (an *analyzer) release() {
	// Analyze sets every field again; drop only what would keep the last
	// command alive.
	an.tmp.reset()
	for i := range an.argvs {
		an.argvs[i].reset()
	}
	an.rd.Reset("")
	an.res, an.x, an.hashed = nil, nil, nil
	analyzerPool.Put(an)
}

// analyzerPool reuses analyzers, and the parser each keeps, across calls.
var analyzerPool = sync.Pool{New: func() any { return new(analyzer) }}

// run analyses the whole command string.
func (an *analyzer) run(src, dir string) {
	if len(src) > MaxAnalysable {
		an.issue(src, fmt.Sprintf("command longer than %d bytes", MaxAnalysable))
	}
	an.script(src, 0, dir, nil, "")
	for _, c := range an.res.Commands {
		if len(c.alts) > 0 {
			an.placeAlts(c)
		}
	}
}

// scope is where a statement runs.
type scope struct {
	src   string
	depth int
	dir   *string    // shared by a sequence; copied for subshells
	io    *redirInfo // redirections of enclosing compound commands
	cmd   *Command   // command whose words are being walked, if any
	// alts holds the other directories the sequence may be in: a cd that
	// may have failed or not run (cd x; ...) leaves the shell in either.
	alts *[]string
}

func (an *analyzer) sub(sc scope) scope {
	ds := an.tmp.dirState(*sc.dir)
	if sc.alts != nil {
		ds.alts = append(ds.alts, *sc.alts...)
	}
	sc.dir, sc.alts = &ds.dir, &ds.alts
	return sc
}

// dirState is where a sequence runs: one allocation for a scope's
// directory and its alternatives.
type dirState struct {
	dir  string
	alts []string
}

// maxAlts caps the directories a sequence may be in; past it the
// directory is unknown.
const maxAlts = 8

// seqStmt walks one statement of a sequence. A cd in it whose success does
// not gate what follows (cd x; y — cd fails on a missing directory and
// bash goes on; a || cd x; cd x & ...) leaves the commands after it in the
// new directory or the old: both are kept, and their relative paths are
// placed against each (see placeAlts).
func (an *analyzer) seqStmt(s *syntax.Stmt, sc scope) {
	before := *sc.dir
	var pre []string
	if sc.alts != nil {
		pre = append(pre, *sc.alts...)
	}
	if s.Background {
		// A background job runs in a subshell: its cd moves nothing here.
		an.stmt(s, an.sub(sc))
		return
	}
	an.stmt(s, sc)
	if *sc.dir == before || certainCD(s) {
		return
	}
	if sc.alts == nil {
		*sc.dir = "" // no record of the alternatives: unknown
		return
	}
	alts := *sc.alts
	for _, d := range append(pre, before) {
		if d != *sc.dir && !slices.Contains(alts, d) {
			alts = append(alts, d)
		}
	}
	if len(alts) > maxAlts || slices.Contains(alts, "") {
		*sc.dir, alts = "", alts[:0]
	}
	*sc.alts = alts
}

// promptCode reads the code an assignment may run (see assignCode), so
// that deny rules see it.
func (an *analyzer) promptCode(a *syntax.Assign, sc scope) {
	if a.Value == nil {
		return
	}
	v := evalWord(a.Value, sc.src)
	if !v.Static {
		if name := a.Name.Value; codeVars[name] || name == "BASH_ENV" || name == "ENV" || name == "PROMPT_COMMAND" ||
			strings.HasPrefix(name, "PS") && len(name) == 3 && name[2] >= '0' && name[2] <= '4' {
			// A value that is not static, of a variable a program runs as
			// a command or a shell reads a script from: as eval "$X".
			an.issue(sliceSrc(sc.src, a), name+" is set to a value that is not static, and a program runs it")
		}
		return
	}
	an.readAssigned(a.Name.Value, v.Value, sc.depth+1, *sc.dir)
}

// assignCode returns the script that the static value of variable name may
// run, or "": the substitutions of PS0-PS4 (PS4 is expanded before each
// command under set -x), the commands of PROMPT_COMMAND, the substitution
// in a value naming an array element, and for any other variable not known
// to hold data the value itself, since a program may run it (PAGER, EDITOR,
// GIT_SSH_COMMAND, LESSOPEN='|cmd %s', a git alias '!cmd' through
// GIT_CONFIG_VALUE_0). The assignment already rules out allow: the script
// is read for deny rules.
func assignCode(name, value string) string {
	switch name {
	case "PS0", "PS1", "PS2", "PS3", "PS4":
		return ": \"" + value + "\""
	case "PROMPT_COMMAND":
		return value
	}
	if subscriptSubst(value) {
		// It runs when arithmetic or a nameref evaluates the variable
		// (x='a[$(id)]'; (( x ))).
		return ": \"" + value + "\""
	}
	if isSafeVar(name) {
		return ""
	}
	return strings.TrimLeft(value, "!| \t")
}

// netRedirect reports a path bash opens as a network connection.
func netRedirect(refs []PathRef) bool {
	for _, r := range refs {
		if strings.HasPrefix(r.Path, "/dev/tcp/") || strings.HasPrefix(r.Path, "/dev/udp/") {
			return true
		}
	}
	return false
}

// placeAlts adds, for every relative path a command names, its placement
// in each other directory the command may run in: deny sees each, allow
// and the workspace test need all.
func (an *analyzer) placeAlts(c *Command) {
	for _, list := range []*[]PathRef{&c.Writes, &c.Redirects, &c.Reads, &c.Searches, &c.ArgPaths} {
		n := len(*list)
		for i := 0; i < n; i++ {
			r := (*list)[i]
			if r.Path == "" || r.Dynamic || r.Text == "" || r.Text[0] == '/' || r.Text[0] == '~' {
				continue
			}
			for _, d := range c.alts {
				*list = an.appendRef(*list, PathRef{Text: r.Text, Path: path.Join(d, r.Text), Glob: r.Glob})
			}
		}
	}
}

// exits reports a statement that ends the shell or function (exit,
// return).
func exits(s *syntax.Stmt) bool {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return false
	}
	switch ce.Args[0].Lit() {
	case "exit", "return":
		return true
	}
	return false
}

// certainCD reports a statement after which the directory it changed to is
// certain: cd x || exit (or return).
func certainCD(s *syntax.Stmt) bool {
	b, ok := s.Cmd.(*syntax.BinaryCmd)
	return ok && b.Op == syntax.OrStmt && b.Y != nil && exits(b.Y)
}

func (an *analyzer) issue(part, msg string) {
	an.res.Unanalysable = append(an.res.Unanalysable, Issue{Part: part, Message: msg})
}

// parse parses src, returning the statements that parsed and the error.
func (an *analyzer) parse(src string) ([]*syntax.Stmt, error) {
	if stmts, ok := an.plainParse(src); ok {
		return stmts, nil
	}
	if an.parser == nil {
		an.parser = parserPool.Get().(*syntax.Parser)
	}
	an.rd.Reset(src)
	f, err := an.parser.Parse(&an.rd, "")
	if f == nil {
		return nil, err
	}
	return f.Stmts, err
}

// Limits of the strings plainParse reads; a larger one goes to the parser.
const (
	maxPlainLen    = 4096
	maxPlainTokens = 64
)

// A plainTok is a word or an operator of a plain command list.
type plainTok struct {
	start, end int32 // the bytes of a word or a redirection operator; start only for another operator
	nStart     int32 // a redirection's descriptor number: its start (it ends at start); -1 for none
	op         byte  // 0 for a word, else opAnd, opOr, opPipe, opSemi or opRedir
	rop        syntax.RedirOperator
}

const (
	opAnd   = '&' // &&
	opOr    = 'o' // ||
	opPipe  = '|'
	opSemi  = ';'
	opRedir = '>' // >, >>, <, >&, <&, &> or &>>, followed by its word
)

// plainCount counts the nodes of the words of a plain command list.
type plainCount struct {
	words, parts, lits, sqs, dqs, redirs int
}

// plainParse builds, without the parser, the statements of a plain command
// list: words made of runs of plainByte characters, single-quoted strings
// and double-quoted strings of printable characters other than $, ` and \
// (plainQuoted), separated by blanks and joined by ;, &&, || and |, with
// no command starting with a reserved word, a declaration, an assignment
// or a redirection, and redirections (>, >>, <, >&, <&, &>, &>>, the
// first five with a descriptor number before them) after a command's
// first word.
// Most commands an agent runs are such lists (git status, cargo build &&
// npm test | tee out.log, grep -n 'x y' src, go test ./... 2>&1), and the
// parser allocates two batches of nodes on every parse, which it drops
// the next time. plainParse builds exactly the tree the parser builds for
// such a string, node for node and position for position
// (TestPlainParse, TestPlainParseExhaustive, TestPlainParseRandom and
// FuzzPlainParse compare the two), in memory the analyzer keeps; anything
// else it leaves to the parser by reporting false.
func (an *analyzer) plainParse(src string) ([]*syntax.Stmt, bool) {
	if len(src) > maxPlainLen {
		return nil, false
	}
	if cap(an.tmp.plainToks) < maxPlainTokens {
		an.tmp.plainToks = make([]plainTok, 0, maxPlainTokens) // kept by the analyzer
	}
	toks := an.tmp.plainToks[:0]
	var cnt plainCount
	cmds, bins, stmts := 0, 0, 0
	prev := byte(opSemi) // the previous token's op; a list starts like one after ;
	for i := 0; i < len(src); {
		c := src[i]
		if c == ' ' || c == '\t' {
			i++
			continue
		}
		if len(toks) == maxPlainTokens {
			return nil, false
		}
		t := plainTok{start: int32(i), nStart: -1}
		switch {
		case plainByte(c) || c == '\'' || c == '"':
			j, ok := scanPlainWord(src, i, &cnt)
			if !ok {
				return nil, false
			}
			if j < len(src) && (src[j] == '>' || src[j] == '<') && strings.IndexByte(src[i:j], '{') >= 0 {
				// {NAME}>file: bash's named descriptor (the parser reads
				// the word as the redirection's N), left to the parser.
				return nil, false
			}
			if j < len(src) && (src[j] == '>' || src[j] == '<') && isDigits(src[i:j]) {
				// A descriptor number: a literal of the redirection
				// that follows it, not a word.
				if prev != 0 {
					return nil, false
				}
				rop, k, ok := plainRedirOp(src, j)
				if !ok {
					return nil, false
				}
				cnt.words, cnt.parts = cnt.words-1, cnt.parts-1
				t = plainTok{start: int32(j), end: int32(k), nStart: int32(i), op: opRedir, rop: rop}
				cnt.redirs++
				i = k
				break
			}
			if prev == opRedir {
				// A redirection's word.
			} else if prev != 0 {
				// The first word of a command: the parser reads some
				// words there as keywords or assignments.
				w := src[i:j]
				if strings.IndexByte(w, '=') >= 0 || plainReserved(w[:plainRun(w, 0)]) {
					return nil, false
				}
				cmds++
				if prev == opSemi {
					stmts++
				}
			}
			t.end, i = int32(j), j
		case prev != 0:
			// An operator must follow a word.
			return nil, false
		case c == '>' || c == '<' || c == '&' && i+1 < len(src) && src[i+1] == '>':
			rop, k, ok := plainRedirOp(src, i)
			if !ok {
				return nil, false
			}
			t.end, t.op, t.rop, i = int32(k), opRedir, rop, k
			cnt.redirs++
		case c == '&' && i+1 < len(src) && src[i+1] == '&':
			t.op, i = opAnd, i+2
		case c == '|' && i+1 < len(src) && src[i+1] == '|':
			t.op, i = opOr, i+2
		case c == '|':
			t.op, i = opPipe, i+1 // |& is refused as an operator after an operator
		case c == ';':
			t.op, i = opSemi, i+1
		default:
			return nil, false
		}
		if t.op == opAnd || t.op == opOr || t.op == opPipe {
			bins++
		}
		prev = t.op
		toks = append(toks, t)
	}
	n := len(toks)
	if n == 0 || prev != 0 && prev != opSemi {
		return nil, false
	}
	b := plainBuilder{src: src, toks: toks,
		words: take(&an.tmp.plainWords, cnt.words, cnt.words, 16),
		parts: take(&an.tmp.wordParts, cnt.parts, cnt.parts, 16),
		lits:  take(&an.tmp.plainLits, cnt.lits, cnt.lits, 16),
		sqs:   take(&an.tmp.plainSqs, cnt.sqs, cnt.sqs, 4),
		dqs:   take(&an.tmp.plainDqs, cnt.dqs, cnt.dqs, 4),
		cmds:  take(&an.tmp.plainCmds, cmds, cmds, 4),
		bins:  take(&an.tmp.plainBins, bins, bins, 4),
		argv:  take(&an.tmp.wordPtrs, cnt.words, cnt.words, 16),
	}
	if cnt.redirs > 0 {
		b.redirs = take(&an.tmp.plainRedirs, cnt.redirs, cnt.redirs, 4)
		b.redirPtrs = take(&an.tmp.redirPtrs, cnt.redirs, cnt.redirs, 4)
	}
	list := take(&an.tmp.stmtPtrs, 0, stmts, 4)
	for b.k < n {
		// As the parser reads a list: pipelines joined left to right by
		// && and ||, each statement ended by an optional ;.
		s := b.pipeline()
		for b.k < n && (b.toks[b.k].op == opAnd || b.toks[b.k].op == opOr) {
			op := syntax.AndStmt
			if b.toks[b.k].op == opOr {
				op = syntax.OrStmt
			}
			at := b.toks[b.k].start
			b.k++
			y := b.pipeline()
			s = b.bin(op, at, s, y)
		}
		if b.k < n && b.toks[b.k].op == opSemi {
			s.Semicolon = plainPos(b.toks[b.k].start)
			b.k++
		}
		list = append(list, s)
	}
	return list, true
}

// scanPlainWord returns the end of the word of a plain command list that
// starts at i, counting its nodes into cnt, or false when the word holds
// something plainParse does not read.
func scanPlainWord(src string, i int, cnt *plainCount) (int, bool) {
	cnt.words++
	for i < len(src) {
		switch c := src[i]; {
		case plainByte(c):
			i = plainRun(src, i)
			cnt.lits++
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(src) && src[j] != c {
				if !plainQuoted(src[j], c) {
					return 0, false
				}
				j++
			}
			if j == len(src) {
				return 0, false // unterminated
			}
			if c == '\'' {
				cnt.sqs++
			} else {
				cnt.dqs++
				if j > i+1 {
					cnt.lits++
				}
			}
			i = j + 1
		default:
			// A blank or an operator ends the word; anything else is
			// refused where the caller reads it.
			return i, true
		}
		cnt.parts++
	}
	return i, true
}

// plainRedirOp reads the redirection operator at src[i], returning it and
// its end, or false for one plainParse does not read (<<, <<<, <>, >|,
// and any other).
func plainRedirOp(src string, i int) (syntax.RedirOperator, int, bool) {
	next := func(j int) byte {
		if j < len(src) {
			return src[j]
		}
		return 0
	}
	switch src[i] {
	case '>':
		switch next(i + 1) {
		case '>':
			return syntax.AppOut, i + 2, true
		case '&':
			return syntax.DplOut, i + 2, true
		case '|':
			return 0, 0, false
		}
		return syntax.RdrOut, i + 1, true
	case '<':
		switch next(i + 1) {
		case '&':
			return syntax.DplIn, i + 2, true
		case '<', '>':
			return 0, 0, false
		}
		return syntax.RdrIn, i + 1, true
	case '&':
		if next(i+1) == '>' {
			if next(i+2) == '>' {
				return syntax.AppAll, i + 3, true
			}
			return syntax.RdrAll, i + 2, true
		}
	}
	return 0, 0, false
}

// plainRun returns the end of the run of plainByte characters at i.
func plainRun(s string, i int) int {
	for i < len(s) && plainByte(s[i]) {
		i++
	}
	return i
}

// plainQuoted reports whether c may stand between quotes q in a word of a
// plain command list: a printable character, and in double quotes none
// that the parser reads there ($, ` and \).
func plainQuoted(c, q byte) bool {
	if c < 0x20 || c > 0x7e {
		return false
	}
	return q == '\'' || c != '$' && c != '`' && c != '\\'
}

// plainBuilder builds a plain command list's tree from its tokens.
type plainBuilder struct {
	src   string
	toks  []plainTok
	k     int // the next token
	words []plainWord
	parts []syntax.WordPart
	lits  []syntax.Lit
	sqs   []syntax.SglQuoted
	dqs   []plainDbl
	cmds  []plainCmd
	bins  []plainBin
	argv  []*syntax.Word

	redirs    []syntax.Redirect
	redirPtrs []*syntax.Redirect
}

// pipeline reads commands joined left to right by |.
func (b *plainBuilder) pipeline() *syntax.Stmt {
	s := b.command()
	for b.k < len(b.toks) && b.toks[b.k].op == opPipe {
		at := b.toks[b.k].start
		b.k++
		y := b.command()
		s = b.bin(syntax.Pipe, at, s, y)
	}
	return s
}

// command reads the words and redirections of a simple command.
func (b *plainBuilder) command() *syntax.Stmt {
	first := b.k
	nargs, nredirs := 0, 0
	for k := first; k < len(b.toks) && (b.toks[k].op == 0 || b.toks[k].op == opRedir); k++ {
		if b.toks[k].op == opRedir {
			nredirs++
			k++ // its word
		} else {
			nargs++
		}
	}
	c := &b.cmds[0]
	b.cmds = b.cmds[1:]
	args := b.argv[:0:nargs]
	b.argv = b.argv[nargs:]
	var redirs []*syntax.Redirect // nil when there is none, as the parser leaves it
	if nredirs > 0 {
		redirs = b.redirPtrs[:0:nredirs]
		b.redirPtrs = b.redirPtrs[nredirs:]
	}
	for b.k < len(b.toks) && (b.toks[b.k].op == 0 || b.toks[b.k].op == opRedir) {
		t := b.toks[b.k]
		if t.op == 0 {
			args = append(args, b.word(t))
			b.k++
			continue
		}
		r := &b.redirs[0]
		b.redirs = b.redirs[1:]
		*r = syntax.Redirect{OpPos: plainPos(t.start), Op: t.rop}
		if t.nStart >= 0 {
			r.N = b.lit(int(t.nStart), int(t.start))
		}
		r.Word = b.word(b.toks[b.k+1])
		redirs = append(redirs, r)
		b.k += 2
	}
	c.ce.Args = args
	c.st = syntax.Stmt{Position: plainPos(b.toks[first].start), Cmd: &c.ce, Redirs: redirs}
	return &c.st
}

// word builds the word of token t, part by part as scanPlainWord counted
// them.
func (b *plainBuilder) word(t plainTok) *syntax.Word {
	w := &b.words[0]
	b.words = b.words[1:]
	// A word of one part keeps it inline, as the parser's does.
	parts := w.part[:0:1]
	if n := b.countParts(t); n > 1 {
		parts = b.parts[:0:n]
		b.parts = b.parts[n:]
	}
	s, i, end := b.src, int(t.start), int(t.end)
	for i < end {
		var p syntax.WordPart
		if c := s[i]; c == '\'' || c == '"' {
			j := i + 1 + strings.IndexByte(s[i+1:end], c)
			if c == '\'' {
				q := &b.sqs[0]
				b.sqs = b.sqs[1:]
				*q = syntax.SglQuoted{Left: plainPos(int32(i)), Right: plainPos(int32(j)), Value: s[i+1 : j]}
				p = q
			} else {
				d := &b.dqs[0]
				b.dqs = b.dqs[1:]
				d.dq = syntax.DblQuoted{Left: plainPos(int32(i)), Right: plainPos(int32(j))}
				if j > i+1 {
					d.part[0] = b.lit(i+1, j)
					d.dq.Parts = d.part[:1:1]
				}
				p = &d.dq
			}
			i = j + 1
		} else {
			j := plainRun(s, i)
			p = b.lit(i, j)
			i = j
		}
		parts = append(parts, p)
	}
	w.w.Parts = parts
	return &w.w
}

// countParts returns how many parts the word of token t has.
func (b *plainBuilder) countParts(t plainTok) int {
	s, i, end, n := b.src, int(t.start), int(t.end), 0
	for i < end {
		if c := s[i]; c == '\'' || c == '"' {
			i += 2 + strings.IndexByte(s[i+1:end], c)
		} else {
			i = plainRun(s, i)
		}
		n++
	}
	return n
}

// lit returns a literal of the bytes [i, j).
func (b *plainBuilder) lit(i, j int) *syntax.Lit {
	l := &b.lits[0]
	b.lits = b.lits[1:]
	*l = syntax.Lit{ValuePos: plainPos(int32(i)), ValueEnd: plainPos(int32(j)), Value: b.src[i:j]}
	return l
}

// bin joins x and y by op, at offset at, as the parser does: the statement
// holding them starts where x does.
func (b *plainBuilder) bin(op syntax.BinCmdOperator, at int32, x, y *syntax.Stmt) *syntax.Stmt {
	n := &b.bins[0]
	b.bins = b.bins[1:]
	n.b = syntax.BinaryCmd{OpPos: plainPos(at), Op: op, X: x, Y: y}
	n.st = syntax.Stmt{Position: x.Position, Cmd: &n.b}
	return &n.st
}

// plainPos is the position of byte offset off of a one-line string.
func plainPos(off int32) syntax.Pos { return syntax.NewPos(uint(off), 1, uint(off)+1) }

// plainByte reports whether c may be part of a word of a plain command
// list outside quotes: a character the parser reads as part of one literal
// wherever it stands in such a word (a glob's * and ?, a tilde and braces
// included: the analysis reads those from the literal's text).
func plainByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '_', '-', '.', '/', ',', ':', '@', '%', '+', '=', '*', '?', '~', '{', '}':
		return true
	}
	return false
}

// plainReserved reports whether a plain word at the start of a command is
// one the parser reads as more than a command name: a reserved word (a
// brace of a block among them), or a declaration, let or bats test clause.
func plainReserved(w string) bool {
	switch w {
	case "{", "}", "{}", "case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function",
		"if", "in", "select", "then", "time", "until", "while",
		"declare", "export", "local", "nameref", "readonly", "typeset", "let", "@test":
		return true
	}
	return false
}

// script analyses src as a shell script at the given depth.
func (an *analyzer) script(src string, depth int, dir string, io *redirInfo, part string) {
	if depth > MaxDepth {
		an.deep(part)
	}
	if strings.IndexByte(src, '\r') >= 0 {
		// The parser reads a carriage return as a blank (and backslash,
		// CR, LF as a line continuation); bash reads it as an ordinary
		// character of a word, so that `ls <CR>#; rm x` runs rm. The
		// script is read with every CR replaced by a word character, as
		// bash splits it, for deny only.
		an.issue(src, "carriage return: bash reads it as part of a word, the parser as a blank")
		src = strings.ReplaceAll(src, "\r", "_")
	}
	if strings.Contains(src, "\\\n") && strings.IndexByte(src, '#') >= 0 {
		// The parser reads a backslash that ends a comment as a line
		// continuation, joining the next line to the command before the
		// comment (ls # x\<newline>rm y is one ls); bash ends the comment
		// at the newline and runs the next line. The script is read with
		// those backslashes blanked, as bash reads it.
		if r, ok := blankCommentEnds(src); ok {
			an.issue(src, "comment ending in a backslash: bash runs the next line as a command")
			src = r
		}
	}
	if strings.Contains(src, "$\\\n") {
		// bash joins a backslash-newline before it reads words, so that
		// $\<newline>(rm x) and "$\<newline>{HOME}" are a substitution and
		// an expansion; the parser reads a lone $ and a literal. The
		// script is read joined, as bash reads it.
		if j, ok := joinContinuations([]byte(src)); ok {
			an.issue(src, "backslash-newline after $: bash joins the lines into an expansion")
			src = string(j)
		}
	}
	stmts, err := an.parse(src)
	walked := src
	if err != nil {
		// bash runs some strings the parser rejects; read the repaired
		// string for deny (the command stays unanalysable).
		if r, st, extra, ok := an.repairParse(src, err); ok {
			walked, stmts = r, st
			// The blanked words' substitutions still run in bash.
			for _, x := range extra {
				an.script(x, depth+1, dir, nil, x)
			}
		}
	}
	ds := an.tmp.dirState(dir)
	sc := scope{src: walked, depth: depth, dir: &ds.dir, io: io, alts: &ds.alts}
	for _, s := range stmts {
		an.safeStmt(s, sc)
	}
	if err != nil {
		an.issue(src, "parse error: "+err.Error())
		if walked == src && (len(stmts) == 0 || !strings.Contains(src, "\n")) {
			an.fallback(src, sc)
		}
	}
	if depth > 0 {
		an.extra().lastScript = scriptEnd{src: src, depth: depth, dir: ds.dir}
	}
}

// blankCommentEnds returns src with the backslashes that end its comments
// replaced by blanks, and whether there were any.
func blankCommentEnds(src string) (string, bool) {
	f, _ := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if f == nil {
		return src, false
	}
	b := []byte(src)
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok || !c.Pos().IsValid() {
			return true
		}
		start := int(c.Pos().Offset())
		if start < 0 || start >= len(b) {
			return true
		}
		nl := strings.IndexByte(src[start:], '\n')
		if nl < 0 {
			return true
		}
		for i := start + nl - 1; i > start && b[i] == '\\'; i-- {
			b[i] = ' '
			found = true
		}
		return true
	})
	return string(b), found
}

// repairParse mends, as bash reads them, the strings bash runs but the
// parser rejects: a `!` where the parser takes no negation (time ! cmd,
// a | ! b, ! ! c) is dropped, and an array assignment before a command
// (a[0]=x cmd, which bash rejects before running cmd) is blanked. Each
// repair replaces the offending text by spaces, so offsets keep their
// meaning. It reports the repaired string and its statements when it
// parses.
func (an *analyzer) repairParse(src string, err error) (string, []*syntax.Stmt, []string, bool) {
	b := []byte(src)
	var extra []string
	for range 16 {
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			return "", nil, nil, false
		}
		off := int(pe.Pos.Offset())
		if off < 0 || off >= len(b) {
			return "", nil, nil, false
		}
		switch {
		case strings.Contains(pe.Text, "`!` can only be used") || strings.Contains(pe.Text, "cannot negate a command multiple times"):
			if b[off] != '!' {
				return "", nil, nil, false
			}
			b[off] = ' '
		case strings.Contains(pe.Text, "inline variables cannot be arrays"):
			end := wordEnd(b, off)
			// bash still expands the subscript: its code is read as a
			// string's substitutions.
			if w := string(b[off:end]); strings.ContainsAny(w, "$`") {
				extra = append(extra, ": \""+w+"\"")
			}
			for i := off; i < end; i++ {
				b[i] = ' '
			}
		default:
			// bash joins a backslash-newline before it reads words, also
			// where the parser does not ($\<newline>(rm x) is $(rm x)).
			j, ok := joinContinuations(b)
			if !ok {
				return "", nil, nil, false
			}
			b = j
		}
		r := string(b)
		stmts, perr := an.parse(r)
		if perr == nil {
			return r, stmts, extra, true
		}
		err = perr
	}
	return "", nil, nil, false
}

// joinContinuations returns b with every backslash-newline outside single
// quotes removed, as bash's input reader removes them, and whether there
// was one.
func joinContinuations(b []byte) ([]byte, bool) {
	out := make([]byte, 0, len(b))
	found := false
	var quote byte // 0, '"', '\'' or '$' for $'…'
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case quote == '$':
			if c == '\\' && i+1 < len(b) {
				out = append(out, c)
				i++
				c = b[i]
			} else if c == '\'' {
				quote = 0
			}
		case c == '\\' && i+1 < len(b):
			if b[i+1] == '\n' {
				i++
				found = true
				continue
			}
			out = append(out, c)
			i++
			c = b[i]
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '"':
			quote = c
		case c == '\'':
			quote = c
			if i > 0 && b[i-1] == '$' {
				quote = '$'
			}
		}
		out = append(out, c)
	}
	return out, found
}

// wordEnd returns the end of the shell word starting at off: the first
// blank or operator outside quotes, brackets and parentheses.
func wordEnd(b []byte, off int) int {
	depth := 0
	var quote byte
	for i := off; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\\':
			i++
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case depth == 0 && strings.IndexByte(" \t\n;&|<>", c) >= 0:
			return i
		}
	}
	return len(b)
}

// safeStmt walks one top-level statement, turning a panic into an issue so
// that the other statements are still seen.
func (an *analyzer) safeStmt(s *syntax.Stmt, sc scope) {
	defer func() {
		if r := recover(); r != nil {
			an.issue(sliceSrc(sc.src, s), fmt.Sprintf("internal error: %v", r))
		}
	}()
	an.seqStmt(s, sc)
}

// fallback adds a deny-only reading of text that did not parse: its
// whitespace-separated fields.
func (an *analyzer) fallback(src string, sc scope) {
	fields := strings.Fields(src)
	if len(fields) == 0 {
		return
	}
	ws := make([]Word, len(fields))
	for i, f := range fields {
		ws[i] = Word{Value: f, Static: true}
	}
	c := an.newCommand(src, sc)
	c.Words = ws
	c.Forms = [][]Word{ws}
	c.Unanalysable = "parse error"
}

func (an *analyzer) deep(part string) {
	if !an.tooDeep {
		an.tooDeep = true
		an.issue(part, fmt.Sprintf("nesting deeper than %d", MaxDepth))
	}
}

func (an *analyzer) newCommand(text string, sc scope) *Command {
	c := an.res.mem.command()
	c.Text, c.Depth, c.Dir = text, sc.depth, *sc.dir
	c.Delegated = an.delegated > 0
	if sc.alts != nil && len(*sc.alts) > 0 && c.Dir != "" {
		c.alts = append([]string(nil), *sc.alts...)
	}
	an.res.Commands = an.res.mem.addCommand(an.res.Commands, c)
	an.nCmds++
	if an.nCmds > MaxCommands && !an.tooMany {
		an.tooMany = true
		an.issue(text, fmt.Sprintf("more than %d simple commands", MaxCommands))
	}
	if sc.depth > MaxDepth {
		an.deep(text)
	}
	if an.x != nil && an.x.optsChanged != "" {
		c.Unanalysable = "runs after " + an.x.optsChanged + " changed the shell's options"
	}
	return c
}

func (an *analyzer) stmts(list []*syntax.Stmt, sc scope) {
	for _, s := range list {
		an.seqStmt(s, sc)
	}
}

// nested returns the scope for a subshell-like construct.
func (an *analyzer) nested(sc scope, n syntax.Node) scope {
	sc = an.sub(sc)
	sc.depth++
	sc.cmd = nil
	if sc.depth > MaxDepth {
		an.deep(sliceSrc(sc.src, n))
	}
	return sc
}

func (an *analyzer) stmt(s *syntax.Stmt, sc scope) {
	if s == nil {
		return
	}
	io := an.redirs(s.Redirs, sc)
	if io != nil && sc.io != nil {
		io.merge(sc.io)
	} else if io == nil {
		io = sc.io
	}
	inner := sc
	inner.io = io
	inner.cmd = nil
	n := len(an.res.Commands)
	an.command(s, sc, inner, io)
	if len(s.Redirs) > 0 {
		// Redirection words come after the command in the source; the
		// command they belong to is the first one the statement added.
		rs := sc
		rs.cmd = nil
		if len(an.res.Commands) > n && an.res.Commands[n].Depth == sc.depth {
			rs.cmd = an.res.Commands[n]
		}
		for _, r := range s.Redirs {
			an.walkWord(r.Word, rs)
			an.walkWord(r.Hdoc, rs)
			if rest, ok := heredocEarlyEnd(r, sc.src); ok {
				// bash ends the here-document where the parser does not:
				// what follows runs as commands.
				an.issue(sliceSrc(sc.src, r.Hdoc), "here-document: bash joins a line ending in a backslash with the next before looking for the delimiter")
				an.script(rest, sc.depth+1, *sc.dir, nil, rest)
			} else if joined, ok := heredocJoined(r, sc.src); ok {
				// Joined lines may form substitutions ($\<newline>(cmd))
				// that the parser does not see; the joined body is read for
				// deny.
				an.issue(sliceSrc(sc.src, r.Hdoc), "here-document: bash joins a line ending in a backslash with the next before expanding it")
				body := ":<<" + joinedDelim + "\n" + joined + "\n" + joinedDelim + "\n"
				an.script(body, sc.depth+1, *sc.dir, nil, body)
			}
		}
	}
}

// command walks the command of statement s.
func (an *analyzer) command(s *syntax.Stmt, sc, inner scope, io *redirInfo) {
	switch cm := s.Cmd.(type) {
	case nil:
		if len(s.Redirs) > 0 {
			c := an.newCommand(sliceSrc(sc.src, s), sc)
			an.applyIO(c, io)
			c.Forms = [][]Word{nil}
		}
	case *syntax.CallExpr:
		an.call(cm, s, inner)
	case *syntax.BinaryCmd:
		// Flatten left-deep chains (a | b | c, a && b || c) so that long
		// lists do not recurse deeply.
		chain := []*syntax.BinaryCmd{cm}
		x := cm.X
		for x != nil && len(x.Redirs) == 0 {
			b, ok := x.Cmd.(*syntax.BinaryCmd)
			if !ok {
				break
			}
			chain = append(chain, b)
			x = b.X
		}
		part := func(st *syntax.Stmt, op syntax.BinCmdOperator) {
			if op == syntax.Pipe || op == syntax.PipeAll {
				an.stmt(st, an.sub(inner))
			} else {
				an.stmt(st, inner)
			}
		}
		d0 := *inner.dir
		part(x, chain[len(chain)-1].Op)
		for i := len(chain) - 1; i >= 0; i-- {
			y := chain[i].Y
			if op := chain[i].Op; (op == syntax.AndStmt || op == syntax.OrStmt) && chain[i].X != nil && chain[i].X.Negated {
				// ! a && b, ! a || b: whether b runs after a succeeded or
				// failed is turned round, so b may be in the directory
				// before a or after it.
				if dl := *inner.dir; dl != d0 {
					if inner.alts == nil || d0 == "" {
						*inner.dir = ""
					} else if !slices.Contains(*inner.alts, d0) {
						*inner.alts = append(*inner.alts, d0)
					}
				}
				part(y, op)
				continue
			}
			if chain[i].Op == syntax.OrStmt {
				// The right of || runs only when the left failed: in the
				// directory before it. Afterwards the shell is where the
				// left left it, or where the right did (unless it exits).
				dl := *inner.dir
				*inner.dir = d0
				part(y, chain[i].Op)
				dy := *inner.dir
				*inner.dir = dl
				if dy != dl && !exits(y) {
					if inner.alts == nil {
						*inner.dir = ""
					} else if !slices.Contains(*inner.alts, dy) {
						*inner.alts = append(*inner.alts, dy)
					}
				}
				continue
			}
			if op := chain[i].Op; op == syntax.Pipe || op == syntax.PipeAll {
				// time is bash's keyword only at the start of a pipeline;
				// after a pipe it is the time program.
				y = externalTime(y)
			}
			part(y, chain[i].Op)
		}
	case *syntax.Subshell:
		an.stmts(cm.Stmts, an.nested(inner, cm))
	case *syntax.Block:
		an.stmts(cm.Stmts, inner)
	case *syntax.IfClause:
		for ic := cm; ic != nil; ic = ic.Else {
			an.stmts(ic.Cond, inner)
			an.stmts(ic.Then, inner)
		}
	case *syntax.WhileClause:
		an.loop(inner, cm, func() {
			an.stmts(cm.Cond, inner)
			an.stmts(cm.Do, inner)
		})
	case *syntax.ForClause:
		switch l := cm.Loop.(type) {
		case *syntax.WordIter:
			if l.Name != nil {
				an.dangerousAssign(l.Name.Value)
				an.noteLoop(l.Name.Value, l.Items, inner)
			}
			for _, w := range l.Items {
				an.walkWord(w, inner)
			}
			an.loop(inner, cm, func() { an.stmts(cm.Do, inner) })
		case *syntax.CStyleLoop:
			an.walkArithm(l.Init, inner)
			an.loop(inner, cm, func() {
				an.walkArithm(l.Cond, inner)
				an.stmts(cm.Do, inner)
				an.walkArithm(l.Post, inner)
			})
		default:
			an.loop(inner, cm, func() { an.stmts(cm.Do, inner) })
		}
	case *syntax.CaseClause:
		an.walkWord(cm.Word, inner)
		for _, it := range cm.Items {
			for _, p := range it.Patterns {
				an.walkWord(p, inner)
			}
			an.stmts(it.Stmts, inner)
		}
	case *syntax.FuncDecl:
		fs := an.sub(inner)
		an.stmt(cm.Body, fs)
		if cm.Name != nil {
			x := an.extra()
			if x.funcs == nil {
				x.funcs = map[string]*funcDef{}
			}
			x.funcs[cm.Name.Value] = &funcDef{body: cm.Body, src: inner.src, dir: *inner.dir, cds: *fs.dir != *inner.dir}
		}
	case *syntax.ArithmCmd:
		an.walkArithm(cm.X, inner)
	case *syntax.TestClause:
		c := an.newCommand(sliceSrc(sc.src, s), inner)
		c.Words = []Word{{Value: "[[", Static: true}}
		inner.cmd = c
		an.walkTest(cm.X, inner, &c.Words)
		c.Words = append(c.Words, Word{Value: "]]", Static: true})
		c.Forms = [][]Word{c.Words}
		c.ReadOnly = true
		an.applyIO(c, io)
	case *syntax.DeclClause:
		an.decl(cm, s, inner)
	case *syntax.LetClause:
		c := an.newCommand(sliceSrc(sc.src, s), inner)
		c.Words = []Word{{Value: "let", Static: true}}
		for _, e := range cm.Exprs {
			c.Words = append(c.Words, Word{Value: sliceSrc(sc.src, e)})
		}
		c.Forms = [][]Word{c.Words}
		c.Unanalysable = "let evaluates its arguments as code"
		inner.cmd = c
		for _, e := range cm.Exprs {
			an.walkArithm(e, inner)
		}
		an.applyIO(c, io)
	case *syntax.TimeClause:
		// At the start of a pipeline time is bash's keyword, which takes
		// only -p: `time -o x ls` runs a program named -o.
		an.stmt(cm.Stmt, inner)
	case *syntax.CoprocClause:
		c := an.newCommand(sliceSrc(sc.src, s), inner)
		c.Words = []Word{{Value: "coproc", Static: true}}
		c.Forms = [][]Word{c.Words}
		c.Unanalysable = "coproc"
		an.stmt(coprocStmt(cm), an.nested(inner, cm))
	case *syntax.TestDecl:
		an.stmt(cm.Body, inner)
	default:
		c := an.newCommand(sliceSrc(sc.src, s), inner)
		c.Unanalysable = "unsupported construct"
		c.Forms = [][]Word{nil}
	}
}

// coprocStmt returns the statement a coproc runs. The parser reads the
// first word of `coproc NAME args` as the coprocess's name, but bash takes
// a name only before a compound command: with a simple command, the name
// is the command.
func coprocStmt(cm *syntax.CoprocClause) *syntax.Stmt {
	st := cm.Stmt
	if cm.Name != nil && st != nil {
		st = prependName(st, cm.Name, 0)
	}
	return hoistAssigns(st, 0)
}

// hoistAssigns reads leading NAME=value words of the first simple command
// of st as its assignments (after coproc the parser takes them as words).
func hoistAssigns(st *syntax.Stmt, depth int) *syntax.Stmt {
	if st == nil || depth > MaxDepth {
		return st
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		i := 0
		var as []*syntax.Assign
		for i < len(c.Args)-1 {
			a := assignOf(c.Args[i])
			if a == nil {
				break
			}
			as = append(as, a)
			i++
		}
		if i == 0 {
			return st
		}
		ce := &syntax.CallExpr{Assigns: append(append([]*syntax.Assign(nil), c.Assigns...), as...), Args: c.Args[i:]}
		n := *st
		n.Cmd = ce
		return &n
	case *syntax.BinaryCmd:
		b := *c
		b.X = hoistAssigns(c.X, depth+1)
		n := *st
		n.Cmd = &b
		return &n
	}
	return st
}

// prependName puts name in front of the first simple command of st (the
// parser may hold a whole pipeline in a coproc's statement).
func prependName(st *syntax.Stmt, name *syntax.Word, depth int) *syntax.Stmt {
	if st == nil || depth > MaxDepth {
		return st
	}
	switch c := st.Cmd.(type) {
	case nil:
		return &syntax.Stmt{Position: name.Pos(), Cmd: &syntax.CallExpr{Args: []*syntax.Word{name}}, Redirs: st.Redirs}
	case *syntax.CallExpr:
		if as := assignOf(name); as != nil {
			// coproc X=1 cmd: the "name" is the command's assignment.
			ce := &syntax.CallExpr{Assigns: append([]*syntax.Assign{as}, c.Assigns...), Args: c.Args}
			return &syntax.Stmt{Position: name.Pos(), Cmd: ce, Redirs: st.Redirs}
		}
		ce := &syntax.CallExpr{Assigns: c.Assigns, Args: append([]*syntax.Word{name}, c.Args...)}
		return &syntax.Stmt{Position: name.Pos(), Cmd: ce, Redirs: st.Redirs}
	case *syntax.BinaryCmd:
		b := *c
		b.X = prependName(c.X, name, depth+1)
		return &syntax.Stmt{Position: name.Pos(), Cmd: &b, Redirs: st.Redirs, Negated: st.Negated, Background: st.Background}
	}
	return st
}

// assignOf returns the assignment a literal word NAME=value spells, or nil.
func assignOf(w *syntax.Word) *syntax.Assign {
	if len(w.Parts) == 0 {
		return nil
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return nil
	}
	i := strings.IndexByte(l.Value, '=')
	if i <= 0 || !syntax.ValidName(l.Value[:i]) {
		return nil
	}
	rest := &syntax.Lit{ValuePos: l.ValuePos, ValueEnd: l.ValueEnd, Value: l.Value[i+1:]}
	val := &syntax.Word{Parts: append([]syntax.WordPart{rest}, w.Parts[1:]...)}
	return &syntax.Assign{Name: &syntax.Lit{ValuePos: l.ValuePos, ValueEnd: l.ValuePos, Value: l.Value[:i]}, Value: val}
}

// externalTime reads a time clause that bash would run as the time
// program (after a pipe) as a call of it.
func externalTime(st *syntax.Stmt) *syntax.Stmt {
	tc, ok := st.Cmd.(*syntax.TimeClause)
	if !ok || tc.Stmt == nil {
		return st
	}
	ce, ok := tc.Stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || tc.Stmt.Negated {
		return st
	}
	args := []*syntax.Word{litWord("time", tc.Time)}
	if tc.PosixFormat {
		args = append(args, litWord("-p", tc.Time))
	}
	call := &syntax.CallExpr{Assigns: ce.Assigns, Args: append(args, ce.Args...)}
	return &syntax.Stmt{Position: tc.Time, Cmd: call, Redirs: append(append([]*syntax.Redirect(nil), st.Redirs...), tc.Stmt.Redirs...), Background: st.Background}
}

// litWord makes a word of literal text for a reading the analysis builds.
func litWord(v string, pos syntax.Pos) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: v}}}
}

// stmtText returns the text of a statement without a trailing separator.
func stmtText(src string, s *syntax.Stmt) string {
	start := s.Pos()
	end := s.Cmd.End()
	for _, r := range s.Redirs {
		if r.Pos().Offset() < start.Offset() {
			start = r.Pos()
		}
		if r.End().Offset() > end.Offset() {
			end = r.End()
		}
	}
	so, eo := int(start.Offset()), int(end.Offset())
	if so < 0 || eo > len(src) || so > eo {
		return ""
	}
	return strings.TrimRight(src[so:eo], " \t")
}

func (an *analyzer) call(ce *syntax.CallExpr, s *syntax.Stmt, sc scope) {
	if len(ce.Args) == 0 {
		// A standalone assignment.
		for _, a := range ce.Assigns {
			if a.Name != nil {
				an.assign(a.Name.Value)
				an.promptCode(a, sc)
				an.noteAssign(a, sc)
				if a.Name.Value == "HOME" {
					// Later ~ and $HOME expand to the new value (unknown
					// when it is not static).
					home := ""
					if a.Value != nil {
						if v := evalWord(a.Value, sc.src); v.Static {
							home = resolve(v.Value, *sc.dir, an.opts.Home)
						}
					}
					an.opts.Home = home
				}
			}
		}
		var c *Command
		if sc.io != nil && (len(sc.io.writes) > 0 || len(sc.io.reads) > 0) {
			c = an.newCommand(stmtText(sc.src, s), sc)
			c.Forms = [][]Word{nil}
			an.applyIO(c, sc.io)
		}
		sc.cmd = c
		an.walkAssigns(ce.Assigns, sc)
		return
	}
	c := an.newCommand(stmtText(sc.src, s), sc)
	for _, a := range ce.Assigns {
		if a.Name != nil {
			c.Assigns = append(c.Assigns, a.Name.Value)
			c.AssignWords = append(c.AssignWords, assignWord(a, sc.src))
			an.assign(a.Name.Value)
			an.promptCode(a, sc)
		}
	}
	ws := take(&an.tmp.words, len(ce.Args), len(ce.Args), 16)
	for i, w := range ce.Args {
		ws[i] = evalWord(w, sc.src)
	}
	an.applyIO(c, sc.io)
	notes := 0
	if an.x != nil {
		notes = len(an.x.critNotes)
	}
	an.classify(c, ws, sc)
	an.afterClassify(c, sc, notes)
	for _, a := range ce.Assigns {
		if a.Value != nil {
			an.argPaths(c, evalWord(a.Value, sc.src))
		}
	}
	sc.cmd = c
	an.walkAssigns(ce.Assigns, sc)
	for _, w := range ce.Args {
		an.walkWord(w, sc)
	}
	if c.Wrapper {
		// A wrapper is read through: its script's commands decide.
		c.ReadOnly = true
	}
	// A redirection from or to /dev/tcp or /dev/udp opens a connection.
	c.ReadOnly = c.ReadOnly && c.Unanalysable == "" && len(c.Redirects) == 0 && !netRedirect(c.Reads)
}

func (an *analyzer) walkAssigns(as []*syntax.Assign, sc scope) {
	for _, a := range as {
		if a.Index != nil {
			an.walkArithm(a.Index, sc)
		}
		an.walkWord(a.Value, sc)
		if a.Array != nil {
			for _, e := range a.Array.Elems {
				if e.Index != nil {
					an.walkArithm(e.Index, sc)
				}
				an.walkWord(e.Value, sc)
			}
		}
	}
}

func (an *analyzer) decl(d *syntax.DeclClause, s *syntax.Stmt, sc scope) {
	c := an.newCommand(stmtText(sc.src, s), sc)
	variant := "declare"
	if d.Variant != nil {
		variant = d.Variant.Value
	}
	c.Words = []Word{{Value: variant, Static: true}}
	for _, a := range d.Args {
		switch {
		case a.Name != nil:
			an.assign(a.Name.Value)
			an.noteAssign(a, sc)
			if a.Index != nil {
				c.Unanalysable = variant + " with an array subscript"
			}
			if a.Array != nil || a.Value == nil {
				c.Words = append(c.Words, Word{Value: sliceSrc(sc.src, a), Static: a.Array == nil})
			} else {
				v := evalWord(a.Value, sc.src)
				if v.Static && subscriptSubst(v.Value) {
					// declare -n r='a[$(…)]': a nameref's subscript runs when
					// it is assigned through.
					c.Unanalysable = variant + " of a value naming an array element with a substitution"
					code := ": \"" + v.Value + "\""
					an.script(code, sc.depth+1, *sc.dir, nil, code)
				}
				if !v.Static || !subscriptSubst(v.Value) {
					// export PROMPT_COMMAND='…', declare -x PAGER='…'; a
					// value that is not static is an issue there.
					an.promptCode(a, sc)
				}
				if v.Static {
					c.Words = append(c.Words, Word{Value: a.Name.Value + "=" + v.Value, Static: true})
				} else {
					c.Words = append(c.Words, Word{Value: sliceSrc(sc.src, a)})
				}
				an.argPaths(c, v)
			}
		case a.Value != nil:
			v := evalWord(a.Value, sc.src)
			c.Words = append(c.Words, v.Word)
			if !v.Static {
				c.Unanalysable = variant + " with a non-static argument"
			} else if strings.Contains(v.Value, "[") {
				c.Unanalysable = variant + " with an array subscript"
			}
		}
	}
	c.Forms = [][]Word{c.Words}
	an.applyIO(c, sc.io)
	sc.cmd = c
	an.walkAssigns(d.Args, sc)
	// Without arguments a declaration prints variables and their values
	// (export and declare the whole environment), which may hold secrets;
	// with arguments it sets attributes or values. Neither only reads.
	c.ReadOnly = false
}

// safeVars are variables whose assignment cannot change what commands do
// in a way that matters for the policy.
var safeVars = map[string]bool{
	"NODE_ENV": true, "CI": true, "DEBUG": true, "LANG": true, "LANGUAGE": true, "TZ": true,
	"NO_COLOR": true, "RUST_LOG": true, "RUST_BACKTRACE": true, "GOOS": true, "GOARCH": true,
	"CGO_ENABLED": true, "TERM": true, "FORCE_COLOR": true, "PYTHONDONTWRITEBYTECODE": true,
	"PYTHONUNBUFFERED": true, "COLUMNS": true, "LINES": true, "CLICOLOR": true,
}

func isSafeVar(name string) bool {
	return safeVars[name] || strings.HasPrefix(name, "LC_")
}

// assign records an assignment of name.
func (an *analyzer) assign(name string) {
	if isSafeVar(name) {
		return
	}
	for _, n := range an.res.UnsafeAssign {
		if n == name {
			return
		}
	}
	an.res.UnsafeAssign = append(an.res.UnsafeAssign, name)
}

// dangerousAssign records an assignment made by a command that is not an
// assignment statement (read, for, printf -v, ${x:=y}, arithmetic) when the
// variable changes what later commands do.
func (an *analyzer) dangerousAssign(name string) {
	if isDangerousVar(name) {
		an.assign(name)
	}
}

func isDangerousVar(name string) bool {
	switch name {
	case "PATH", "IFS", "ENV", "BASH_ENV", "CDPATH", "HOME", "SHELL", "SHELLOPTS", "BASHOPTS",
		"PS1", "PS2", "PS4", "PROMPT_COMMAND", "GLOBIGNORE", "HISTFILE", "TMPDIR", "PWD", "OLDPWD",
		"EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "PYTHONPATH", "PYTHONSTARTUP",
		"NODE_OPTIONS", "PERL5LIB", "PERL5OPT", "RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS",
		"SSH_ASKPASS", "SUDO_ASKPASS", "ZDOTDIR", "XDG_CONFIG_HOME":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "BASH_") ||
		strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "NPM_CONFIG")
}

// redirInfo is what the redirections of a statement do.
type redirInfo struct {
	writes []PathRef
	reads  []PathRef
	// stdin is the here-document or here-string that ends up on descriptor
	// 0 (stdinSet), and whether it is static. Only a here-document on
	// descriptor 0 is a shell's program; one on another descriptor is data.
	stdin       string
	stdinSet    bool
	stdinStatic bool
	// fd0 counts the redirections of descriptor 0 (input files, here-docs,
	// duplications, closing); fd0Doc reports that one was a here-document
	// or here-string. A here-document together with another redirection of
	// descriptor 0 makes the program unreadable: stdinSet with
	// stdinStatic false.
	fd0    int
	fd0Doc bool
	// docs holds the static bodies of the here-documents on descriptor 0.
	docs []string
}

func (r *redirInfo) merge(outer *redirInfo) {
	r.writes = append(r.writes, outer.writes...)
	r.reads = append(r.reads, outer.reads...)
	switch {
	case outer.fd0 == 0:
	case r.fd0 == 0:
		// The inner statement leaves descriptor 0 as the enclosing
		// command set it.
		r.stdin, r.stdinSet, r.stdinStatic = outer.stdin, outer.stdinSet, outer.stdinStatic
		r.fd0, r.fd0Doc = outer.fd0, outer.fd0Doc
	default:
		// Both set descriptor 0 (the inner one wins in bash); with a
		// here-document on either side the program is not read.
		r.fd0 += outer.fd0
		if r.fd0Doc || outer.fd0Doc {
			r.fd0Doc = true
			r.stdin, r.stdinSet, r.stdinStatic = "", true, false
			r.docs = append(r.docs, outer.docs...)
		}
	}
}

func isNullDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}

// redirFD returns the descriptor a redirection sets: its number, or the
// operator's default (0 for input, 1 for output). It returns -1 for a
// descriptor that is not a plain number ({var}) and 1 for &> forms.
func redirFD(r *syntax.Redirect) int {
	if r.N != nil {
		v := r.N.Value
		if !isDigits(v) {
			return -1
		}
		n := 0
		for i := 0; i < len(v) && n < 1<<20; i++ {
			n = n*10 + int(v[i]-'0')
		}
		return n
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return 0
	}
	return 1
}

func (an *analyzer) redirs(rs []*syntax.Redirect, sc scope) *redirInfo {
	if len(rs) == 0 {
		return nil
	}
	ri := &redirInfo{}
	for _, r := range rs {
		fd := redirFD(r)
		if fd == 0 {
			// Redirections apply in order: the last one of descriptor 0
			// decides what the command reads. ({var} descriptors are
			// never 0: bash allocates them from 10 up.)
			ri.fd0++
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if fd != 0 {
				continue // data on another descriptor, not the program
			}
			ri.fd0Doc = true
			ri.stdinSet = true
			if r.Op == syntax.WordHdoc {
				wi := evalWord(r.Word, sc.src)
				ri.stdin, ri.stdinStatic = wi.Value+"\n", wi.Static
			} else {
				ri.stdin, ri.stdinStatic = heredocBody(r, sc.src)
			}
			if ri.stdinStatic {
				ri.docs = append(ri.docs, ri.stdin)
			}
			continue
		}
		if fd == 0 {
			ri.stdin, ri.stdinSet, ri.stdinStatic = "", false, false
		}
		wi := evalWord(r.Word, sc.src)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll,
			syntax.RdrAllClob, syntax.AppAllClob:
			if wi.Static && isNullDevice(wi.Value) {
				continue
			}
			ri.writes = append(ri.writes, an.pathRefs(wi, *sc.dir)...)
		case syntax.DplOut:
			// >&word: a file when word is not a descriptor number or '-'.
			if wi.Static && (wi.Value == "-" || isDigits(wi.Value) || isNullDevice(wi.Value)) {
				continue
			}
			ri.writes = append(ri.writes, an.pathRefs(wi, *sc.dir)...)
		case syntax.RdrIn:
			ri.reads = append(ri.reads, an.pathRefs(wi, *sc.dir)...)
		case syntax.RdrInOut:
			refs := an.pathRefs(wi, *sc.dir)
			ri.reads = append(ri.reads, refs...)
			if !(wi.Static && isNullDevice(wi.Value)) {
				ri.writes = append(ri.writes, refs...)
			}
		}
	}
	if ri.fd0Doc && ri.fd0 > 1 {
		// A here-document or here-string and another redirection of
		// descriptor 0: never read as the program.
		ri.stdin, ri.stdinSet, ri.stdinStatic = "", true, false
	}
	return ri
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// heredocEarlyEnd reports where bash, not the parser, finds the end of a
// here-document with an unquoted delimiter: bash joins a body line ending
// in a backslash with the next one before comparing it with the
// delimiter, so "EO\<newline>F" ends a here-document delimited by EOF. It
// returns the rest of the body, and the delimiter line the parser ended
// it with, which bash runs as commands.
func heredocEarlyEnd(r *syntax.Redirect, src string) (string, bool) {
	if r.Hdoc == nil || r.Word == nil || r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
		return "", false
	}
	var delim strings.Builder
	for _, p := range r.Word.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.ContainsRune(l.Value, '\\') {
			return "", false // quoted: bash joins no lines
		}
		delim.WriteString(l.Value)
	}
	body := sliceSrc(src, r.Hdoc)
	for start := 0; start < len(body); {
		var line strings.Builder
		end, joined := start, false
		for {
			nl := strings.IndexByte(body[end:], '\n')
			if nl < 0 {
				line.WriteString(body[end:])
				end = len(body)
				break
			}
			phys := body[end : end+nl]
			end += nl + 1
			if n := len(phys) - len(strings.TrimRight(phys, "\\")); n%2 == 1 {
				line.WriteString(phys[:len(phys)-1])
				joined = true
				continue
			}
			line.WriteString(phys)
			break
		}
		l := line.String()
		if r.Op == syntax.DashHdoc {
			l = strings.TrimLeft(l, "\t")
		}
		if joined && l == delim.String() {
			return body[end:] + delim.String(), true
		}
		start = end
	}
	return "", false
}

// joinedDelim delimits the joined body of a here-document read again.
const joinedDelim = "TOOLGATE_JOINED_BODY"

// heredocJoined returns the body of a here-document with an unquoted
// delimiter as bash expands it, each backslash-newline removed, when that
// removal may form an expansion: the body has a backslash-newline and a $
// or a backquote.
func heredocJoined(r *syntax.Redirect, src string) (string, bool) {
	if r.Hdoc == nil || r.Word == nil || r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc {
		return "", false
	}
	for _, p := range r.Word.Parts {
		if l, ok := p.(*syntax.Lit); !ok || strings.ContainsRune(l.Value, '\\') {
			return "", false
		}
	}
	body := sliceSrc(src, r.Hdoc)
	if !strings.Contains(body, "\\\n") || !strings.ContainsAny(body, "$`") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			if body[i+1] == '\n' {
				i++
				continue
			}
			b.WriteByte(body[i])
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String(), true
}

// heredocBody returns the body of a here-document and whether it is static.
func heredocBody(r *syntax.Redirect, src string) (string, bool) {
	if r.Hdoc == nil {
		return "", true
	}
	quoted := false
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			if _, ok := p.(*syntax.Lit); !ok {
				quoted = true
			} else if strings.ContainsRune(p.(*syntax.Lit).Value, '\\') {
				quoted = true
			}
		}
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return sliceSrc(src, r.Hdoc), false
		}
		if quoted {
			b.WriteString(l.Value)
			continue
		}
		v := l.Value
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) {
				switch v[i+1] {
				case '$', '`', '\\':
					i++
				case '\n':
					i++
					continue
				}
			}
			b.WriteByte(v[i])
		}
	}
	return b.String(), true
}

func (an *analyzer) applyIO(c *Command, io *redirInfo) {
	if io == nil {
		return
	}
	for _, w := range io.writes {
		c.Redirects = an.appendRef(c.Redirects, w)
		c.Writes = an.appendRef(c.Writes, w)
	}
	for _, r := range io.reads {
		c.Reads = an.appendRef(c.Reads, r)
	}
	if io.stdinSet {
		c.Stdin, c.StdinStatic = io.stdin, io.stdinStatic
		if !io.stdinStatic && io.fd0Doc && len(io.docs) > 0 {
			x := an.extra()
			if x.shadowed == nil {
				x.shadowed = map[*Command][]string{}
			}
			x.shadowed[c] = io.docs
		}
	}
}

func (an *analyzer) appendRef(list []PathRef, r PathRef) []PathRef {
	return an.res.mem.appendRef(list, r)
}

// walkWord finds the commands nested in a word and the parts of it that
// cannot be analysed.
func (an *analyzer) walkWord(w *syntax.Word, sc scope) {
	if w == nil {
		return
	}
	if zshNamedDir(w) {
		an.unanalysable(sc, sliceSrc(sc.src, w), "zsh named directory (~[…])")
	}
	for _, p := range w.Parts {
		an.walkPart(p, sc)
	}
}

func (an *analyzer) unanalysable(sc scope, part, msg string) {
	if sc.cmd != nil {
		if sc.cmd.Unanalysable == "" {
			sc.cmd.Unanalysable = msg
		}
		return
	}
	an.issue(part, msg)
}

func (an *analyzer) walkPart(p syntax.WordPart, sc scope) {
	switch p := p.(type) {
	case *syntax.SglQuoted:
		if p.Dollar {
			if _, nul := ansicValue(p.Value); nul {
				an.unanalysable(sc, sliceSrc(sc.src, p), "$'…' word holding a NUL (bash cuts its value there)")
			}
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			an.walkPart(q, sc)
		}
	case *syntax.CmdSubst:
		an.stmts(p.Stmts, an.nested(sc, p))
	case *syntax.ProcSubst:
		an.stmts(p.Stmts, an.nested(sc, p))
	case *syntax.ArithmExp:
		an.walkArithm(p.X, sc)
	case *syntax.ParamExp:
		if p.Excl && p.Names == 0 && p.Index == nil {
			an.unanalysable(sc, sliceSrc(sc.src, p), "indirect expansion")
		}
		if p.Exp != nil {
			if p.Exp.Op == syntax.OtherParamOps {
				switch evalWord(p.Exp.Word, sc.src).Value {
				case "Q", "U", "u", "L", "a", "K", "k":
				default:
					an.unanalysable(sc, sliceSrc(sc.src, p), "parameter transformation")
				}
			}
			if (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) && p.Param != nil {
				an.dangerousAssign(p.Param.Value)
			}
			an.walkWord(p.Exp.Word, sc)
		}
		if p.Index != nil && !allElements(p.Index) {
			an.walkArithm(p.Index, sc)
		}
		if p.Slice != nil {
			an.walkArithm(p.Slice.Offset, sc)
			an.walkArithm(p.Slice.Length, sc)
		}
		if p.Repl != nil {
			an.walkWord(p.Repl.Orig, sc)
			an.walkWord(p.Repl.With, sc)
		}
		if p.NestedParam != nil {
			an.walkPart(p.NestedParam, sc)
		}
	case *syntax.ExtGlob:
		if p.Op == syntax.GlobZeroOrMore && p.Pattern != nil && zshQualifier(p.Pattern.Value) {
			an.unanalysable(sc, sliceSrc(sc.src, p), "zsh glob qualifier")
		}
	case *syntax.BraceExp:
		for _, e := range p.Elems {
			an.walkWord(e, sc)
		}
	}
}

func zshQualifier(s string) bool {
	return strings.HasPrefix(s, "e") || strings.HasPrefix(s, "+") || strings.ContainsAny(s, ":'\"")
}

func (an *analyzer) walkArithm(x syntax.ArithmExpr, sc scope) {
	switch x := x.(type) {
	case nil:
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
			syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
			syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
			if w, ok := x.X.(*syntax.Word); ok {
				if l := w.Lit(); l != "" {
					an.dangerousAssign(l)
				}
			}
		}
		an.walkArithm(x.X, sc)
		an.walkArithm(x.Y, sc)
	case *syntax.UnaryArithm:
		if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.Inc || x.Op == syntax.Dec) {
			if l := w.Lit(); l != "" {
				an.dangerousAssign(l)
			}
		}
		an.walkArithm(x.X, sc)
	case *syntax.ParenArithm:
		an.walkArithm(x.X, sc)
	case *syntax.FlagsArithm:
		an.walkArithm(x.X, sc)
	case *syntax.Word:
		if !arithStatic(x) {
			an.unanalysable(sc, sliceSrc(sc.src, x), "arithmetic on a non-static operand (bash evaluates array subscripts inside values)")
		}
		an.walkWord(x, sc)
	}
}

// zshNamedDir reports whether w starts with an unquoted ~[, which zsh
// expands by running a function (dynamic named directories).
func zshNamedDir(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || len(l.Value) == 0 || l.Value[0] != '~' {
		return false
	}
	if len(l.Value) > 1 {
		return l.Value[1] == '['
	}
	if len(w.Parts) < 2 {
		return false
	}
	n, ok := w.Parts[1].(*syntax.Lit)
	return ok && strings.HasPrefix(n.Value, "[")
}

// allElements reports whether an array index is @ or *.
func allElements(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := w.Lit()
	return l == "@" || l == "*"
}

// walkTest walks a [[ ]] expression, appending its words to ws.
func (an *analyzer) walkTest(x syntax.TestExpr, sc scope, ws *[]Word) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		an.walkTest(x.X, sc, ws)
		*ws = append(*ws, Word{Value: x.Op.String(), Static: true})
		an.walkTest(x.Y, sc, ws)
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			// Both sides are evaluated as arithmetic.
			for _, y := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := y.(*syntax.Word); !ok || !arithStatic(w) {
					an.unanalysable(sc, sliceSrc(sc.src, y), "arithmetic test on a non-static operand (bash evaluates array subscripts inside values)")
				}
			}
		}
	case *syntax.UnaryTest:
		*ws = append(*ws, Word{Value: x.Op.String(), Static: true})
		an.walkTest(x.X, sc, ws)
		if x.Op == syntax.TsVarSet {
			if w, ok := x.X.(*syntax.Word); ok && strings.Contains(evalWord(w, sc.src).Value, "[") {
				an.unanalysable(sc, sliceSrc(sc.src, w), "test -v with an array subscript")
			}
		}
	case *syntax.ParenTest:
		an.walkTest(x.X, sc, ws)
	case *syntax.Word:
		*ws = append(*ws, evalWord(x, sc.src).Word)
		an.walkWord(x, sc)
	}
}

// hasSubscript reports whether s looks like name[...], which bash evaluates
// (including command substitutions) in arithmetic context.
func hasSubscript(s string) bool {
	i := strings.IndexByte(s, '[')
	return i > 0 && strings.IndexByte(s[i:], ']') > 0
}

// afterClassify applies to c what the analysis knows beyond the command
// model: builtins that run code or change the shell's options, the
// directory left by eval and by functions that cd, a patch that apply_patch
// cannot be given, and the description of a critical removal. notes is the
// length of critNotes before c was classified.
func (an *analyzer) afterClassify(c *Command, sc scope, notes int) {
	if x := an.x; x != nil {
		if c.CriticalRemoval != "" {
			for _, n := range x.critNotes[notes:] {
				if n.key == c.CriticalRemoval {
					c.CriticalRemoval = n.what
					break
				}
			}
		}
		x.critNotes = x.critNotes[:notes]
	}
	for _, f := range c.Forms {
		if len(f) == 0 || !f[0].Static {
			continue
		}
		switch f[0].Value {
		case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash":
			// A shell whose here-document meets another redirection of
			// descriptor 0 is unanalysable (it reads no static program);
			// deny rules still see the here-documents' commands.
			if an.x == nil {
				break
			}
			docs := an.x.shadowed[c]
			delete(an.x.shadowed, c)
			for _, d := range docs {
				an.script(d, sc.depth+1, *sc.dir, nil, d)
			}
		case "apply_patch":
			if !c.StdinStatic {
				setUnanalysable(c, "apply_patch without a static patch on descriptor 0")
			}
		default:
			an.builtinCode(c, f)
		}
	}
	if len(c.Words) == 0 || !c.Words[0].Static {
		return
	}
	x := an.x
	if x == nil {
		return
	}
	switch name := c.Words[0].Value; {
	case name == "eval" && c.Wrapper:
		// eval runs its script in the same shell: a cd inside it moves the
		// commands after it (bash -c runs a child and does not).
		if x.lastScript.depth == sc.depth+1 && x.lastScript.src == joinWords(c.Words[1:]) {
			*sc.dir = x.lastScript.dir
		}
	case x.funcs[name] != nil:
		fd := x.funcs[name]
		if fd.dir != *sc.dir && !fd.walking && fd.body != nil && an.mayRewalk(scope{src: fd.src}, fd.body) {
			// The body runs in the caller's directory: walk it there too.
			fd.walking = true
			d := *sc.dir
			an.stmt(fd.body, scope{src: fd.src, depth: sc.depth, dir: &d, io: sc.io})
			fd.walking = false
		}
		if fd.cds {
			*sc.dir = "" // a function that changes the directory
		}
	}
}

func setUnanalysable(c *Command, msg string) {
	if c.Unanalysable == "" {
		c.Unanalysable = msg
	}
}

func joinWords(ws []Word) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Value)
	}
	return b.String()
}

// joinValues joins the values of words with single spaces.
func joinValues(ws []wordInfo) string { return joinWords(values(ws)) }

// nameBuiltin reports whether a builtin takes variable names, whose array
// subscripts bash evaluates (running the substitutions they hold).
func nameBuiltin(name string) bool {
	switch name {
	case "unset", "export", "readonly", "declare", "typeset", "local", "read", "mapfile", "readarray", "wait", "getopts":
		return true
	}
	return false
}

// builtinCode judges one form of a builtin that can run code or change how
// the rest of the script is read: compgen and complete with -C, -F (and
// compgen -W, whose word list is expanded), unset of an array element,
// any name-taking builtin given a subscript holding a substitution, and
// shopt and set option changes. It reports whether f names such a builtin.
func (an *analyzer) builtinCode(c *Command, f []Word) bool {
	name := f[0].Value
	switch name {
	case "compgen", "complete", "shopt", "set":
	default:
		if !nameBuiltin(name) {
			return false
		}
	}
	if nameBuiltin(name) {
		for _, w := range f[1:] {
			if w.Static && subscriptSubst(w.Value) {
				setUnanalysable(c, name+" given an array subscript holding a substitution")
			}
		}
	}
	switch name {
	case "compgen", "complete":
		code := "CF"
		if name == "compgen" {
			code = "CFW"
		}
		for i := 1; i < len(f); i++ {
			w := f[i]
			if !w.Static {
				setUnanalysable(c, name+" with a non-static argument")
				return true
			}
			v := w.Value
			if v == "--" || len(v) < 2 || v[0] != '-' && v[0] != '+' {
				break
			}
			for j := 1; j < len(v); j++ {
				ch := v[j]
				if strings.IndexByte(code, ch) >= 0 {
					setUnanalysable(c, name+" -"+string(ch)+" runs code")
					return true
				}
				if strings.IndexByte("oAGWFCXPS", ch) >= 0 {
					if j == len(v)-1 {
						i++
					}
					break
				}
			}
		}
	case "unset":
		for _, w := range f[1:] {
			if !w.Static {
				setUnanalysable(c, "unset of a non-static name")
				continue
			}
			if i := strings.IndexByte(w.Value, '['); i >= 0 {
				sub := strings.TrimSuffix(w.Value[i+1:], "]")
				if !isDigits(sub) && sub != "@" && sub != "*" {
					setUnanalysable(c, "unset of an array element whose subscript bash evaluates")
				}
			}
		}
	case "shopt":
		for _, w := range f[1:] {
			if !w.Static || len(w.Value) > 1 && w.Value[0] == '-' && strings.ContainsAny(w.Value, "su") {
				an.changeOpts(c, f)
				break
			}
		}
	case "set":
		if setChanges(f[1:]) {
			an.changeOpts(c, f)
		}
	}
	return true
}

// subscriptSubst reports whether s holds name[...] with a substitution or
// expansion inside the brackets.
func subscriptSubst(s string) bool {
	i := strings.IndexByte(s, '[')
	if i <= 0 {
		return false
	}
	j := strings.LastIndexByte(s, ']')
	return j > i && strings.ContainsAny(s[i+1:j], "$`")
}

// harmlessSetOpts are the set -o names that change nothing the analysis
// reads.
var harmlessSetOpts = map[string]bool{"errexit": true, "nounset": true, "xtrace": true, "verbose": true, "pipefail": true}

// setChanges reports whether set's arguments change a shell option other
// than -e, -u, -x, -v and -o pipefail (and their -o names). Positional
// parameters (after --, -, or the first word not starting with - or +)
// change nothing the analysis reads.
func setChanges(args []Word) bool {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			return true
		}
		v := w.Value
		if v == "--" || v == "-" || len(v) < 2 || v[0] != '-' && v[0] != '+' {
			return false
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'e', 'u', 'x', 'v':
			case 'o':
				if i+1 >= len(args) {
					return false // set -o alone prints the options
				}
				i++
				if !args[i].Static || !harmlessSetOpts[args[i].Value] {
					return true
				}
			default:
				return true
			}
		}
	}
	return false
}

// changeOpts records that c changed the shell's options: c and every
// command after it are unanalysable, and globs from here on may match
// dot-files.
func (an *analyzer) changeOpts(c *Command, f []Word) {
	setUnanalysable(c, f[0].Value+" changes the shell's options; what follows cannot be analysed")
	x := an.extra()
	if x.optsChanged == "" {
		x.optsChanged = "'" + joinWords(f) + "'"
	}
	if an.loops > 0 && !x.dotGlobs {
		x.rerun = true
	}
	x.dotGlobs = true
}

// arithStatic reports whether an arithmetic operand is static: number
// literals, $#, $?, $$, $!, lengths (${#x}) and nested arithmetic (judged
// on its own). A variable name or any other expansion is not: bash
// evaluates the array subscripts a value holds as code.
func arithStatic(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if !arithStaticPart(p) {
			return false
		}
	}
	return true
}

func arithStaticPart(p syntax.WordPart) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		return isArithNumber(p.Value)
	case *syntax.ArithmExp:
		return true
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			if !arithStaticPart(q) {
				return false
			}
		}
		return true
	case *syntax.ParamExp:
		if p.Length && !p.Excl && p.Exp == nil && p.Slice == nil && p.Repl == nil {
			return true
		}
		if p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Exp != nil || p.Slice != nil || p.Repl != nil || p.NestedParam != nil {
			return false
		}
		switch p.Param.Value {
		case "#", "?", "$", "!":
			return true
		}
	}
	return false
}

// isArithNumber reports whether s is a number literal of bash arithmetic
// (decimal, 0x.., octal, base#digits).
func isArithNumber(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isIdentByte(c) || c == '#' || c == '@') {
			return false
		}
	}
	return true
}
