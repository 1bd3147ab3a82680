package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// inspector applies the built-in knowledge of commands to each form of one
// command.
type inspector struct {
	an      *analyzer
	c       *Command
	sc      scope
	dir     string
	scripts map[string]bool // scripts already analysed for this command
	// mayWrite: the command, an option or a subcommand is not modelled,
	// so it may write any path it names.
	mayWrite bool
	// posixShell: the script being read is run by sh or dash, not bash.
	posixShell bool
}

func (in *inspector) unanalysable(msg string) {
	if in.c.Unanalysable == "" {
		in.c.Unanalysable = msg
	}
}

func (in *inspector) refs(w wordInfo) []PathRef { return in.an.pathRefs(w, in.dir) }

func (in *inspector) write(ws ...wordInfo) {
	for _, w := range ws {
		for _, r := range in.refs(w) {
			in.c.Writes = in.an.appendRef(in.c.Writes, r)
		}
	}
}

// scriptWrites marks every word of a sed or awk program that writes files
// as a possible write target. The program's own grammar is not parsed: the
// over-approximation only widens what edit deny rules and protected paths
// see (a write target needs no allow rule), so "w .git/config" or
// print > ".bashrc" cannot slip past them.
func (in *inspector) scriptWrites(prog string) {
	for _, tok := range strings.FieldsFunc(prog, func(r rune) bool {
		return strings.ContainsRune(" \t\n;{}()<>|&,\"'", r)
	}) {
		if tok != "" && tok[0] != '$' {
			in.write(staticWord(tok))
		}
	}
}

func (in *inspector) read(ws ...wordInfo) {
	for _, w := range ws {
		if w.Static && w.Value == "-" {
			continue
		}
		if w.xargs {
			// Deny reads the names as a content search of the working
			// directory (SPEC §4.1); they can also be any path at all, so
			// they are an unplaced path too, which nothing allows as
			// read-only or inside the workspace (as "cat $X").
			in.searchDir()
			in.c.Reads = in.an.appendRef(in.c.Reads, xargsRef)
			continue
		}
		for _, r := range in.refs(w) {
			in.c.Reads = in.an.appendRef(in.c.Reads, r)
		}
	}
}

func (in *inspector) search(ws ...wordInfo) {
	for _, w := range ws {
		if w.xargs {
			in.searchDir()
			in.c.Searches = in.an.appendRef(in.c.Searches, xargsRef)
			continue
		}
		for _, r := range in.refs(w) {
			in.c.Searches = in.an.appendRef(in.c.Searches, r)
		}
	}
}

// xargsRef is the path xargs passes: any, known only when it runs.
var xargsRef = PathRef{Text: "…", Dynamic: true}

func (in *inspector) searchDir() {
	in.c.Searches = in.an.appendRef(in.c.Searches, PathRef{Text: ".", Path: in.dir})
}

func (in *inspector) writeDir(d string) {
	in.c.Writes = in.an.appendRef(in.c.Writes, PathRef{Text: ".", Path: d})
}

func (in *inspector) remove(w wordInfo) {
	if in.c.CriticalRemoval == "" && in.an.criticalRemoval(w, in.dir) {
		in.c.CriticalRemoval = w.Value
		if w.xargs {
			in.c.CriticalRemoval = "xargs"
		}
	}
}

// runScript analyses a script run by a shell wrapper.
func (in *inspector) runScript(script string, primary bool) {
	if primary {
		in.c.Wrapper = true
	}
	if in.scripts[script] {
		return
	}
	if in.scripts == nil {
		in.scripts = map[string]bool{}
	}
	in.scripts[script] = true
	if in.posixShell && bashOnly(script) {
		// sh is dash here, which reads these differently from bash (or not
		// at all): the script is read as bash for deny, but cannot be
		// relied on.
		in.unanalysable("bash syntax in a script run by a POSIX shell")
	}
	in.an.script(script, in.sc.depth+1, in.dir, nil, script)
}

// delegatedScript reads the command that an option makes the program run
// (sort --compress-program=CMD, tar --to-command=CMD, tar's
// --checkpoint-action=exec=CMD) for deny and ask rules. Its commands are
// Delegated: such an option already needs an exact rule, which decides
// allow.
func (in *inspector) delegatedScript(s string) {
	if strings.Trim(s, " \t\n") == "" {
		return
	}
	in.an.delegated++
	in.runScript(s, false)
	in.an.delegated--
}

// bashOnly reports text a POSIX shell (dash) reads differently from bash:
// ANSI-C quotes, here-strings, [[, coproc, the time keyword, function,
// arrays, process substitution. It errs on the side of yes.
func bashOnly(script string) bool {
	for _, t := range []string{"$'", "<<<", "[[", "=(", "<(", ">(", "${!", "&>", "|&", "$\""} {
		if strings.Contains(script, t) {
			return true
		}
	}
	// Reserved words only bash has, as whole words (a flag, not a reading:
	// the script itself is parsed by the shell parser).
	for _, f := range strings.FieldsFunc(script, func(r rune) bool { return strings.ContainsRune(" \t\n;&|(){}", r) }) {
		switch f {
		case "time", "coproc", "function", "select":
			return true
		}
	}
	return false
}

// parseArgv splits args by a flat option list (GNU style: options
// anywhere before "--"): short lists the short options that take an
// argument, long the long ones, each surrounded by spaces. It serves the
// commands that are never read-only and whose options are not modelled
// one by one (git subcommands that write); every word still faces deny.
func parseArgv(args []wordInfo, short, long string) argv {
	var a argv
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static || len(w.Value) < 2 || w.Value[0] != '-' {
			a.ops = append(a.ops, w)
			continue
		}
		v := w.Value
		if v == "--" {
			a.ops = append(a.ops, args[i+1:]...)
			break
		}
		if strings.HasPrefix(v, "--") {
			if eq := strings.IndexByte(v, '='); eq > 0 {
				a.opts = append(a.opts, opt{name: v[:eq], val: staticWord(v[eq+1:]), has: true})
				continue
			}
			o := opt{name: v}
			if strings.Contains(long, " "+v+" ") && i+1 < len(args) {
				i++
				o.val, o.has = args[i], true
			}
			a.opts = append(a.opts, o)
			continue
		}
		for j := 1; j < len(v); j++ {
			o := opt{name: "-" + string(v[j])}
			if strings.IndexByte(short, v[j]) >= 0 {
				if j < len(v)-1 {
					o.val, o.has = staticWord(v[j+1:]), true
				} else if i+1 < len(args) {
					i++
					o.val, o.has = args[i], true
				}
				a.opts = append(a.opts, o)
				break
			}
			a.opts = append(a.opts, o)
		}
	}
	return a
}

// wrapperNames are the commands read through to the command they run
// (forms.go); their own form adds nothing once read through.
var wrapperNames = map[string]bool{
	"timeout": true, "time": true, "nice": true, "nohup": true, "stdbuf": true, "command": true,
	"builtin": true, "exec": true, "noglob": true, "xargs": true, "sudo": true, "doas": true,
	"env": true, "watch": true, "ionice": true, "setsid": true, "flock": true, "su": true,
	"runuser": true, "strace": true, "ltrace": true, "chroot": true, "unshare": true,
	"nsenter": true, "fakeroot": true, "taskset": true, "chrt": true, "numactl": true,
	"firejail": true, "script": true, "parallel": true,
}

// programNames are the shells and interpreters builtin reads.
var programNames = map[string]bool{}

func init() {
	for _, n := range strings.Fields("bash sh zsh dash ksh mksh ash fish busybox python python2 python3 node nodejs perl ruby php lua deno bun Rscript tclsh osascript pwsh") {
		programNames[n] = true
	}
}

// systemProgram reports a program given by an absolute path in a system
// directory, whose base name is what runs (/usr/bin/git).
func systemProgram(p string) bool {
	for _, d := range []string{"/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/", "/usr/local/bin/"} {
		if strings.HasPrefix(p, d) && !strings.Contains(p[len(d):], "/") && !strings.Contains(p, "..") {
			return true
		}
	}
	return false
}

// inspect applies the command model to one form of the command. through
// reports that the form's wrapper was read through to another form.
func (in *inspector) inspect(f []wordInfo, primary, through bool) {
	c := in.c
	if len(f) == 0 {
		return
	}
	name := f[0]
	if !name.Static || name.glob || name.Value == "" {
		in.unanalysable("command name is not a literal")
		return
	}
	for _, w := range f {
		if w.zshEq {
			in.unanalysable("word starting with '=' (zsh expansion)")
		}
	}
	args := f[1:]
	ro := false
	n := name.Value
	if primary {
		defer func() {
			c.ReadOnly = ro
			switch n {
			case "mkdir", "touch", "mv", "cp", "rm", "rmdir", "apply_patch":
				c.AcceptEdits = true
			case "sed":
				a := models["sed"].parse(args)
				c.AcceptEdits = hasInPlace(&a) && len(a.unknown) == 0 && !c.ExactOnly
			}
		}()
	}
	if through && wrapperNames[n] {
		return
	}
	if strings.ContainsRune(n, '/') {
		base := n[strings.LastIndexByte(n, '/')+1:]
		if systemProgram(n) && (lookupModel(base) != nil || wrapperNames[base] || programNames[base]) {
			return // its base-name form is read by the model
		}
		// A script or program file: only an exact rule names it, and the
		// file itself is read.
		c.ExactOnly = true
		in.mayWrite = true
		c.Unmodelled = true
		in.read(name)
		return
	}
	if handled, r := in.builtin(n, args, primary); handled {
		ro = r
		return
	}
	m := lookupModel(n)
	if m == nil {
		// Not modelled: never read-only, it may write what it names, and
		// it may run what it names.
		in.mayWrite = true
		c.Unmodelled = c.Unmodelled || !runnerNames[n] && !delegators[n]
		return
	}
	ro = in.modelled(m, args)
}

// modelled reads a command by its model; it reports whether the command
// only reads.
func (in *inspector) modelled(m *model, args []wordInfo) bool {
	an := in.an
	var a *argv
	if an.argvDepth < len(an.argvs) {
		a = &an.argvs[an.argvDepth]
	} else {
		a = new(argv)
	}
	an.argvDepth++
	defer func() { an.argvDepth-- }()
	m.parseInto(a, args)
	in.effects(a)
	ro := m.ro && a.clean(m)
	if m.fn != nil {
		if !m.fn(in, a) {
			ro = false
		}
		return ro
	}
	switch m.ops {
	case opsRead:
		in.read(a.ops...)
	case opsWrite:
		in.write(a.ops...)
	}
	return ro
}

// effects applies what the options of a parsed command do.
func (in *inspector) effects(a *argv) {
	for _, o := range a.opts {
		if o.def == nil {
			continue
		}
		switch o.def.eff {
		case effRead:
			if o.has {
				in.read(o.val)
				if o.def.arg == argTwo {
					in.read(o.val2)
				}
			}
		case effList:
			if o.has {
				// The names in the list are any paths at all, as the
				// names xargs passes.
				in.read(o.val, wordInfo{xargs: true})
			}
		case effWrite:
			if o.has {
				in.write(o.val)
			}
		case effExec:
			in.c.ExactOnly = true
			if o.has && o.val.Static && !strings.HasPrefix(a.name, "git") && a.name != "ack" && a.name != "ack-grep" {
				// git reads its own (-c, --exec: git.go); ack --output is Perl.
				in.delegatedScript(strings.TrimPrefix(o.val.Value, "exec="))
			}
		}
	}
	if len(a.unknown) > 0 {
		// An option the model does not know may make the command write any
		// of its operands.
		in.mayWrite = true
	}
}

// programFiles makes the command unanalysable when the program it runs is
// read from a file whose name is not static (awk -f <(cmd), sed -f $F): as
// for bash $F, what runs cannot be known.
func (in *inspector) programFiles(a *argv, names ...string) {
	for _, v := range a.vals(names...) {
		if !v.Static {
			in.unanalysable(a.name + " reads its program from a file whose name is not static")
			return
		}
	}
}

// builtin handles shells, interpreters and the builtins that run code or
// set variables. It reports whether it handled n and whether the command
// only reads.
func (in *inspector) builtin(n string, args []wordInfo, primary bool) (handled, ro bool) {
	c := in.c
	switch n {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox":
		if n == "busybox" {
			if len(args) > 0 && args[0].Static && (args[0].Value == "sh" || args[0].Value == "ash") {
				args = args[1:]
			} else {
				in.mayWrite = true
				c.Unmodelled = true
				return true, false
			}
		}
		in.posixShell = n == "sh" || n == "dash" || n == "ash" || n == "busybox"
		in.shell(args, primary)
		in.posixShell = false
	case "python", "python2", "python3", "node", "nodejs", "perl", "ruby", "php", "lua", "deno", "bun", "Rscript", "tclsh", "osascript", "pwsh":
		in.interpreter(n, args)
	case "eval":
		if len(args) == 0 {
			return true, true
		}
		if !allStatic(args) {
			in.unanalysable("eval of a non-static string")
			// It may change the directory of what follows.
			*in.sc.dir = ""
			return true, false
		}
		in.runScript(joinValues(args), primary)
	case "source", ".":
		if len(args) == 0 {
			in.unanalysable(n + " without a file")
			return true, false
		}
		if !args[0].Static {
			// source <(cmd) runs cmd's output; source $F a file that is
			// not known: as for bash $F.
			in.unanalysable(n + " of a script whose name is not static")
			*in.sc.dir = ""
			return true, false
		}
		if stdinPath(args[0]) {
			// source /dev/stdin: the here-document is the script.
			if c.StdinStatic && c.Stdin != "" {
				in.runScript(c.Stdin, primary)
			} else {
				in.unanalysable(n + " of standard input")
			}
			return true, false
		}
		// Runs a script file: only an exact rule names it. The script may
		// change the directory of what follows.
		c.ExactOnly = true
		in.mayWrite = true
		in.read(args[0])
		*in.sc.dir = ""
	case "fc":
		// fc -s and fc -e run commands from the history list, which
		// history -s fills (bash runs them even when not interactive);
		// only fc -l lists.
		if len(args) == 0 || !args[0].Static || !strings.HasPrefix(args[0].Value, "-l") && !strings.HasPrefix(args[0].Value, "-nl") && !strings.HasPrefix(args[0].Value, "-rl") {
			in.unanalysable("fc runs commands from the history list")
		}
		return true, false
	case "history":
		// history -s ARGS adds a command that fc -s runs: read for deny.
		for i, w := range args {
			if w.Static && w.Value == "-s" && i+1 < len(args) && allStatic(args[i+1:]) {
				in.an.guessScript(joinValues(args[i+1:]), in.sc.depth+1, in.dir)
				break
			}
		}
		return false, false
	case "trap", "alias", "let", "enable", "coproc":
		in.unanalysable(n + " evaluates its arguments as code")
		// The code they hold can still be read for deny rules: a trap's
		// action and an alias's value, when static.
		switch n {
		case "trap":
			a := parseArgv(args, "", "")
			if len(a.ops) > 0 && a.ops[0].Static && a.ops[0].Value != "-" && a.ops[0].Value != "" {
				in.runScript(a.ops[0].Value, false)
			}
		case "alias":
			for _, w := range args {
				if _, v, ok := strings.Cut(w.Value, "="); ok && w.Static && v != "" {
					in.runScript(v, false)
				}
			}
		}
	case "hash":
		a := parseArgv(args, "pd", "")
		if a.has("-p") {
			in.unanalysable("hash -p")
			// The names now run that program: deny rules see it in their
			// later commands too.
			for _, p := range a.vals("-p") {
				for _, w := range a.ops {
					if p.Static && w.Static {
						if in.an.hashed == nil {
							in.an.hashed = map[string]string{}
						}
						in.an.hashed[w.Value] = p.Value
					}
				}
			}
		}
		return true, len(args) == 0
	case "mapfile", "readarray":
		a := parseArgv(args, "dnOsuCc", "")
		if a.has("-C") {
			in.unanalysable(n + " -C evaluates a callback")
		}
		in.varNames(a.ops)
	case "read":
		a := parseArgv(args, "adinNpt u", "")
		in.varNames(a.ops)
		in.varNames(a.vals("-a"))
	case "declare", "typeset", "local", "export", "readonly":
		a := parseArgv(args, "", "")
		for _, w := range a.ops {
			if !w.Static {
				in.unanalysable(n + " with a non-static argument")
				continue
			}
			nm := w.Value
			if i := strings.IndexByte(nm, '='); i >= 0 {
				nm = nm[:i]
			}
			if strings.Contains(nm, "[") {
				in.unanalysable(n + " with an array subscript")
			}
			in.an.assign(nm)
		}
		// Without names they print variables, which may hold secrets.
		return true, false
	case "set", "shopt":
		// Turning history on makes bash read (and at exit write) the
		// history file: $HISTFILE, by default ~/.bash_history (~/.history
		// when bash runs as sh).
		for i, w := range args {
			if w.Static && w.Value == "history" && i > 0 && n == "set" {
				for _, f := range []string{"~/.bash_history", "~/.history"} {
					in.read(staticWord(f))
					in.write(staticWord(f))
				}
				break
			}
		}
		// Without arguments set prints every variable; option changes are
		// judged in afterClassify.
		return true, false
	case "watch", "setsid", "flock":
		c.ExactOnly = true
	default:
		return false, false
	}
	return true, false
}

// Handlers named by the command table. Each interprets the words its
// model parsed and reports whether the command only reads.

// test: operands are an expression; -v NAME[sub] and arithmetic
// comparisons evaluate array subscripts as code.
func (in *inspector) test(a *argv) bool {
	args := a.ops
	for i, w := range args {
		if !w.Static {
			continue
		}
		switch w.Value {
		case "-v":
			if i+1 < len(args) && strings.Contains(args[i+1].Value, "[") {
				in.unanalysable("test -v with an array subscript")
			}
		case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
			for _, j := range []int{i - 1, i + 1} {
				if j >= 0 && j < len(args) && hasSubscript(args[j].Value) {
					in.unanalysable("array subscript in arithmetic test")
				}
			}
		}
	}
	return true
}

// never: the command is never read-only (printenv prints secrets).
func (in *inspector) never(*argv) bool { return false }

// noOperands: read-only only without operands (hostname NAME sets it).
func (in *inspector) noOperands(a *argv) bool { return len(a.ops) == 0 }

// outputOperand: uniq and xxd write their second operand.
func (in *inspector) outputOperand(a *argv) bool {
	ops := a.ops
	ro := true
	if len(ops) > 1 {
		in.write(ops[1:]...)
		ops = ops[:1]
		ro = false
	}
	in.read(ops...)
	return ro
}

// diff reads its operands; a recursive diff reads everything below them.
func (in *inspector) diff(a *argv) bool {
	in.read(a.ops...)
	in.read(a.vals("--from-file", "--to-file")...)
	if a.has("-r") {
		in.search(a.ops...)
	}
	return true
}

// date: an operand other than +FORMAT sets the clock.
func (in *inspector) date(a *argv) bool {
	for _, w := range a.ops {
		if !w.Static || !strings.HasPrefix(w.Value, "+") {
			return false
		}
	}
	return true
}

// ps: the BSD e modifier prints every process's environment.
func (in *inspector) ps(a *argv) bool {
	for _, w := range a.ops {
		if !w.Static || strings.ContainsAny(w.Value, "e") {
			return false
		}
	}
	for _, w := range a.vals("-o", "-O") {
		if !w.Static || !psFormat(w.Value) {
			return false
		}
	}
	return true
}

// psKeys are the format keys procps-ng 4.0.2 lists (ps L). ps also takes
// keys it does not list — environ prints each process's environment — so
// a format is read-only only when all its keys are here.
var psKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`%cpu %mem ag_id ag_nice args atime blocked bsdstart bsdtime c
		caught cgname cgroup cgroupns class cls cmd comm command context cp cpuid cputime cputimes
		cuc cuu drs dsiz egid egroup eip esp etime etimes euid euser exe f fgid fgroup flag flags
		fname fsgid fsgroup fsuid fsuser fuid fuser gid group ignored intpri ipcns label lastcpu
		lim longtname lsession lstart luid lwp lxc m_drs m_size m_trs machine maj_flt majflt
		min_flt minflt mntns netns ni nice nlwp numa oom oomadj opri ouid pagein pcpu pending
		pgid pgrp pid pidns pmem policy ppid pri pri_api pri_bar pri_baz pri_foo priority psr
		pss rbytes rchars rgid rgroup rops rss rssize rsz rtprio ruid ruser s sched seat sess
		session sgi_p sgi_rss sgid sgroup sid sig sig_block sig_catch sig_ignore sig_pend
		sigcatch sigignore sigmask size slice spid stackp start start_stack start_time stat
		state stime suid supgid supgrp suser svgid svgroup svuid svuser sz tgid thcount tid time
		timens times tname tpgid trs trss tsig tsiz tt tty tty4 tty8 ucmd ucomm uid uid_hack
		uname unit user userns uss util utsns uunit vsize vsz wbytes wcbytes wchan wchars wname
		wops zone`) {
		m[k] = true
	}
	return m
}()

// psFormat reports whether every key of a ps format (keys separated by
// commas or blanks, each with an optional :width or =header) is one of
// psKeys. ps reads a comma after a header as the start of a key when one
// follows (args=CMD,environ prints both), so every word after a comma or
// blank is taken as a key.
func psFormat(f string) bool {
	for _, item := range strings.FieldsFunc(f, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if i := strings.IndexAny(item, "=:"); i >= 0 {
			item = item[:i]
		}
		if item != "" && !psKeys[strings.ToLower(item)] {
			return false
		}
	}
	return true
}

// sums read their files; with -c the files are lists of checksums, and
// the files they name are read too: any paths at all, as xargs names.
func (in *inspector) sums(a *argv) bool {
	in.read(a.ops...)
	if a.has("-c") {
		in.read(wordInfo{xargs: true})
	}
	return true
}

// jq reads its files; env and $ENV print the environment (jq 1.6 also
// reads `$ ENV`, with blanks or a comment after the dollar); import,
// include and modulemeta read module and data files from jq's search path
// (~/.jq, -L DIR). A program read from a file (-f) is not known, so it is
// not read-only either.
func (in *inspector) jq(a *argv) bool {
	in.programFiles(a, "-f")
	ops := a.ops
	ro := !a.has("-f")
	if !a.has("-f") && len(ops) > 0 {
		if !ops[0].Static || strings.Contains(ops[0].Value, "env") || strings.Contains(ops[0].Value, "ENV") || strings.Contains(ops[0].Value, "input_filename") || strings.Contains(ops[0].Value, "import") || strings.Contains(ops[0].Value, "include") || strings.Contains(ops[0].Value, "modulemeta") {
			ro = false
		}
		ops = ops[1:]
	}
	if a.has("--args", "--jsonargs") {
		ops = nil // positional arguments are values
	}
	in.read(ops...)
	return ro
}

// yq reads its files or edits them in place; its expressions can load
// files and read the environment.
func (in *inspector) yq(a *argv) bool {
	ops := a.ops
	ro := true
	if len(ops) > 0 && ops[0].Static {
		switch ops[0].Value {
		case "eval", "e", "eval-all", "ea":
			ops = ops[1:]
		}
	}
	if !a.has("--from-file") && len(ops) > 0 {
		e := ops[0]
		if !e.Static || strings.Contains(e.Value, "load") || strings.Contains(e.Value, "env") || strings.Contains(e.Value, "file") {
			ro = false
		}
		ops = ops[1:]
	}
	in.read(ops...)
	if a.has("-i") {
		in.write(ops...)
		ro = false
	}
	return ro
}

func (in *inspector) printf(a *argv) bool {
	for _, v := range a.vals("-v") {
		in.varNames([]wordInfo{v})
		return false
	}
	return true
}

func (in *inspector) writeOps(a *argv) bool {
	in.write(a.ops...)
	return false
}

func (in *inspector) removeOps(a *argv) bool {
	in.write(a.ops...)
	for _, w := range a.ops {
		in.remove(w)
	}
	return false
}

func (in *inspector) modeOps(a *argv) bool {
	ops := a.ops
	if !a.has("--reference") && len(ops) > 0 {
		ops = ops[1:]
	}
	in.write(ops...)
	return false
}

func (in *inspector) dd(a *argv) bool {
	for _, w := range a.ops {
		if !w.Static {
			continue
		}
		if v, ok := strings.CutPrefix(w.Value, "of="); ok {
			in.write(staticWord(v))
		} else if v, ok := strings.CutPrefix(w.Value, "if="); ok {
			in.read(staticWord(v))
		}
	}
	return false
}

func (in *inspector) unzip(a *argv) bool {
	if len(a.ops) > 0 {
		in.read(a.ops[0])
	}
	if a.has("-l", "-t", "-v", "-Z") {
		return true
	}
	if d := a.vals("-d"); len(d) > 0 {
		in.write(d...)
	} else {
		in.writeDir(in.dir)
	}
	return false
}

func (in *inspector) zip(a *argv) bool {
	if len(a.ops) > 0 {
		in.write(a.ops[0])
		if a.has("-r") {
			in.search(a.ops[1:]...)
		}
		in.read(a.ops[1:]...)
	}
	return false
}

func (in *inspector) patch(a *argv) bool {
	if len(a.ops) > 0 {
		in.write(a.ops[0])
	} else {
		in.writeDir(in.dir)
		in.diffWrites()
	}
	for _, d := range a.vals("-d") {
		in.write(d)
	}
	return false
}

func (in *inspector) wget(a *argv) bool {
	if o := a.vals("-O", "-o", "-a"); len(o) > 0 {
		in.write(o...)
	} else if p := a.vals("-P"); len(p) > 0 {
		in.write(p...)
	} else {
		in.writeDir(in.dir)
	}
	in.read(a.vals("-i")...)
	return false
}

// varNames records the variables a builtin assigns.
func (in *inspector) varNames(ws []wordInfo) {
	for _, w := range ws {
		if !w.Static {
			in.unanalysable("non-static variable name")
			continue
		}
		if strings.Contains(w.Value, "[") {
			in.unanalysable("variable name with an array subscript")
			continue
		}
		in.an.dangerousAssign(w.Value)
	}
}

// shell handles sh, bash and the like.
func (in *inspector) shell(args []wordInfo, primary bool) {
	cflag := false
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			break
		}
		v := w.Value
		if v == "--" || v == "-" {
			i++
			break
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		if strings.HasPrefix(v, "--") {
			switch v {
			case "--norc", "--noprofile", "--posix", "--verbose", "--noediting", "--restricted":
			case "--version", "--help":
				return
			default:
				// --rcfile, --init-file, --login and the options the model
				// does not know change what the shell reads or how.
				in.unanalysable("shell option " + v)
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'c':
				if v[0] == '-' {
					cflag = true
				}
			case 'o':
				// set -o NAME: only the options that do not change how
				// the script is read.
				if i+1 < len(args) {
					i++
					switch args[i].Value {
					case "errexit", "nounset", "xtrace", "verbose", "pipefail":
					default:
						in.unanalysable("shell option -o " + args[i].Value)
					}
				}
			case 'e', 'u', 'x', 'v', 'n', 'f', 'r', 'h', 'B', 'C', 'E', 'H', 'P', 'T', 'a', 'b', 'k', 'm', 't', 'p':
			default:
				// -O shopt, -i (reads rc files), -l (login: reads profiles),
				// -s and the letters the model does not know.
				in.unanalysable("shell option -" + string(v[j]))
				if v[j] == 'O' && i+1 < len(args) {
					i++
				}
			}
		}
	}
	if cflag {
		if i >= len(args) {
			in.unanalysable("shell -c without a script")
			return
		}
		if !args[i].Static {
			in.unanalysable("shell -c with a non-static script")
			return
		}
		in.runScript(args[i].Value, primary)
		return
	}
	if i < len(args) && !args[i].Static {
		in.unanalysable("shell runs a script whose name is not static")
		return
	}
	if i < len(args) && stdinPath(args[i]) {
		if in.c.StdinStatic && in.c.Stdin != "" {
			in.runScript(in.c.Stdin, primary)
			return
		}
		in.unanalysable("shell reads its program from a descriptor")
		return
	}
	if i < len(args) {
		// A script file: only an exact rule names it; the file is read.
		in.read(args[i])
		in.c.ExactOnly = true
		in.mayWrite = true
		return
	}
	if in.c.StdinStatic && in.c.Stdin != "" {
		in.runScript(in.c.Stdin, primary)
		return
	}
	in.unanalysable("shell reads its program from standard input")
}

// interpreter handles python, node, perl and the like.
func (in *inspector) interpreter(n string, args []wordInfo) {
	var code, withArg, long string
	switch n {
	case "python", "python2", "python3":
		code, withArg = "c", "mWXQ"
	case "node", "nodejs", "bun", "deno":
		code, withArg, long = "ep", "r", " --eval --print --require --import --loader "
	case "perl":
		code, withArg = "eE", "IMmx"
	case "ruby":
		code, withArg = "e", "IrC"
	case "php":
		code, withArg = "rRBE", "cdfz"
	case "lua":
		code, withArg = "e", "l"
	default:
		code, withArg = "e", ""
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			in.unanalysable(n + " with a non-static program")
			return
		}
		v := w.Value
		if v == "--" {
			i++
			if i < len(args) {
				in.scriptFile(args[i])
			}
			return
		}
		if len(v) < 2 || v[0] != '-' {
			// The program file.
			if (n == "deno" || n == "bun") && i == 0 {
				if v == "eval" {
					in.inlineCode()
					return
				}
				continue // subcommand: deno run x.ts
			}
			in.scriptFile(w)
			return
		}
		if strings.HasPrefix(v, "--") {
			switch {
			case v == "--version" || v == "--help":
				return
			case v == "--eval" || v == "--print" || strings.HasPrefix(v, "--eval=") || strings.HasPrefix(v, "--print="):
				if _, c, ok := strings.Cut(v, "="); ok {
					in.codeWord(staticWord(c))
				} else if i+1 < len(args) {
					in.codeWord(args[i+1])
				}
				in.inlineCode()
				return
			case strings.Contains(long, " "+v+" "):
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(code, v[j]) >= 0 {
				if j+1 < len(v) {
					in.codeWord(staticWord(v[j+1:]))
				} else if i+1 < len(args) {
					in.codeWord(args[i+1])
				}
				in.inlineCode()
				return
			}
			if v[j] == 'm' && strings.HasPrefix(n, "python") {
				in.inlineCode() // a module: python3 -m pkg
				return
			}
			if strings.IndexByte(withArg, v[j]) >= 0 {
				if j == len(v)-1 {
					i++
				}
				break
			}
		}
	}
	if infoOnly(args) {
		return
	}
	if in.c.StdinStatic {
		// A here-document is the program: its string literals are
		// guessed at for deny (the call stays unanalysable).
		in.codeWord(staticWord(in.c.Stdin))
	}
	in.unanalysable(n + " reads its program from standard input")
}

// stdinPath reports a path that names the standard input or another
// descriptor (/dev/stdin, /dev/fd/0, /proc/self/fd/0).
func stdinPath(w wordInfo) bool {
	if !w.Static {
		return false
	}
	v := w.Value
	return v == "/dev/stdin" || strings.HasPrefix(v, "/dev/fd/") || strings.HasPrefix(v, "/proc/") && strings.Contains(v, "/fd/")
}

// scriptFile records an interpreter or shell running a script file: only
// an exact rule names it, the file is a content read, and the script may
// write anything it names.
func (in *inspector) scriptFile(w wordInfo) {
	in.read(w)
	in.c.ExactOnly = true
	in.mayWrite = true
}

// codeWord marks every word of inline interpreter code that could name a
// file as a possible write target: the code is not parsed, so the
// over-approximation only widens what edit deny rules and protected paths
// see (python3 -c 'open(".claude/settings.json", "w")').
func (in *inspector) codeWord(w wordInfo) {
	if w.Static {
		in.scriptWrites(w.Value)
		// Its string literals may be commands it runs (os.system("…"),
		// execSync("…"), `…`): each is guessed at, for deny and ask rules.
		lits := stringLiterals(w.Value, maxCodeLiterals+1)
		if len(lits) > maxCodeLiterals {
			// No cap may skip a deny check.
			in.unanalysable(fmt.Sprintf("inline code with more than %d string literals", maxCodeLiterals))
			lits = lits[:maxCodeLiterals]
		}
		for _, lit := range lits {
			in.an.guessScript(lit, in.sc.depth+1, in.dir)
		}
	}
}

// maxCodeLiterals caps the string literals of inline code read as scripts.
const maxCodeLiterals = 256

// stringLiterals returns the contents of the quoted strings ('…', "…",
// `…`) in code, a backslash escaping the next character, up to max of
// them. It reads no language's grammar: a quote inside a comment or a
// regular expression may pair the wrong quotes, which only changes which
// text is guessed at.
func stringLiterals(code string, max int) []string {
	var out []string
	for i := 0; i < len(code) && len(out) < max; i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		j := i + 1
		for j < len(code) && code[j] != q {
			if code[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(code) {
			break
		}
		if lit := code[i+1 : j]; strings.TrimSpace(lit) != "" {
			out = append(out, lit)
		}
		i = j
	}
	return out
}

// inlineCode records an interpreter running code given on its command
// line (python3 -c, node -e) or a module: only an exact rule approves it.
func (in *inspector) inlineCode() {
	in.c.ExactOnly = true
	in.mayWrite = true
}

// infoOnly reports whether args only ask for version or help output.
func infoOnly(args []wordInfo) bool {
	if len(args) == 0 {
		return false
	}
	for _, w := range args {
		switch w.Value {
		case "--version", "-V", "--help", "-h", "-v", "-VV":
		default:
			return false
		}
	}
	return true
}

// findTests are the primaries of find that only test or print: with
// the number of arguments each takes.
var findTests = map[string]int{
	"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1,
	"-iregex": 1, "-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1, "-maxdepth": 1, "-mindepth": 1,
	"-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1, "-size": 1,
	"-newer": 1, "-anewer": 1, "-cnewer": 1, "-perm": 1, "-user": 1, "-group": 1, "-uid": 1,
	"-gid": 1, "-links": 1, "-inum": 1, "-samefile": 1, "-used": 1, "-fstype": 1, "-regextype": 1,
	"-printf": 1, "-context": 1, "-empty": 0, "-print": 0, "-print0": 0, "-prune": 0, "-o": 0,
	"-or": 0, "-a": 0, "-and": 0, "-not": 0, "!": 0, "(": 0, ")": 0, ",": 0, "-ls": 0, "-xdev": 0,
	"-mount": 0, "-depth": 0, "-d": 0, "-follow": 0, "-readable": 0, "-writable": 0,
	"-executable": 0, "-quit": 0, "-true": 0, "-false": 0, "-noleaf": 0, "-nouser": 0,
	"-nogroup": 0, "-daystart": 0, "-warn": 0, "-nowarn": 0, "-ignore_readdir_race": 0,
	"-noignore_readdir_race": 0, "-help": 0, "--help": 0, "-version": 0, "--version": 0,
}

// find handles find; it reports whether the command only reads.
func (in *inspector) find(a *argv) bool {
	args := a.args
	c := in.c
	var starts []wordInfo
	i := 0
	for i < len(args) && args[i].Static && (args[i].Value == "-H" || args[i].Value == "-L" || args[i].Value == "-P" || strings.HasPrefix(args[i].Value, "-O") || args[i].Value == "-D") {
		if args[i].Value == "-D" {
			i++
		}
		i++
	}
	for i < len(args) {
		v := args[i].Value
		if args[i].Static && (strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ",") {
			break
		}
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []wordInfo{staticWord(".")}
	}
	ro := true
	for ; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			ro = false
			continue
		}
		if n, ok := findTests[w.Value]; ok {
			i += n
			continue
		}
		if strings.HasPrefix(w.Value, "-newer") && len(w.Value) == 8 {
			i++ // -newerXY reference
			continue
		}
		switch w.Value {
		case "-exec", "-execdir", "-ok", "-okdir":
			c.ExactOnly = true
			ro = false
			j := i + 1
			for j < len(args) && !(args[j].Static && (args[j].Value == ";" || args[j].Value == "+")) {
				j++
			}
			sub := make([]wordInfo, 0, j-i-1)
			for _, x := range args[i+1 : j] {
				if x.Static && strings.Contains(x.Value, "{}") && len(starts) == 1 {
					y := x
					y.Value = strings.ReplaceAll(x.Value, "{}", starts[0].Value)
					y.glob, y.brace = starts[0].glob, false
					y.node = starts[0].node
					x = y
				}
				sub = append(sub, x)
			}
			if len(sub) > 0 {
				// Each found path stands where {} is: any path below the
				// start points, for deny.
				dyn := make([]wordInfo, len(sub))
				for k, x := range args[i+1 : j] {
					dyn[k] = x
					if x.Static && strings.Contains(x.Value, "{}") {
						dyn[k] = wordInfo{Word: Word{Value: x.Value}}
					}
				}
				appendForm(in.c, values(dyn))
				appendForm(in.c, values(sub))
				in.inspect(sub, false, false)
				// Deny sees through wrappers and program paths here as
				// anywhere (find -exec env rm {} ;, -exec /bin/rm).
				in.findExecForms(dyn, false)
				in.findExecForms(sub, true)
				if sub[0].Static {
					switch sub[0].Value {
					case "grep", "egrep", "fgrep", "rg", "ag", "ack", "cat", "head", "tail", "sed", "awk":
						in.search(starts...)
					}
				}
			}
			i = j
		case "-delete":
			c.ExactOnly = true
			ro = false
			in.write(starts...)
			for _, s := range starts {
				in.remove(s)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			c.ExactOnly = true
			ro = false
			if i+1 < len(args) {
				in.write(args[i+1])
			}
			i++
			if w.Value == "-fprintf" {
				i++
			}
		case "-files0-from":
			if i+1 < len(args) {
				in.read(args[i+1])
			}
			// The start points in the list are any paths at all.
			in.search(wordInfo{xargs: true})
			i++
		default:
			// A primary the model does not know: it may act.
			ro = false
			in.mayWrite = true
		}
	}
	return ro
}

// findExecForms adds the readings of a command find runs that its
// wrappers, program path and global options give, and inspects them when
// inspect is set (the command with {} replaced by the start point).
func (in *inspector) findExecForms(f []wordInfo, inspect bool) {
	fs := [][]wordInfo{f}
	for k := 0; k < len(fs) && len(fs) < maxForms; k++ {
		next, _ := in.an.wrapperForms(in.c, fs[k], false)
		for _, g := range append(next, baseNameForm(fs[k]), globalOptsForm(fs[k])) {
			if len(g) == 0 || slices.ContainsFunc(fs, func(h []wordInfo) bool { return sameForm(g, h) }) {
				continue
			}
			fs = append(fs, g)
		}
	}
	for _, g := range fs[1:] {
		appendForm(in.c, values(g))
		if inspect {
			next, _ := in.an.wrapperForms(in.c, g, false)
			in.inspect(g, false, len(next) > 0)
		}
	}
}

// appendForm adds the reading f to c's forms unless it is there; past
// maxForms c is unanalysable.
func appendForm(c *Command, f []Word) {
	forms := c.Forms
	for _, g := range forms {
		if len(g) == len(f) {
			same := true
			for i := range g {
				if g[i] != f[i] {
					same = false
					break
				}
			}
			if same {
				return
			}
		}
	}
	if len(forms) >= maxForms {
		setUnanalysable(c, tooManyForms)
		return
	}
	c.Forms = append(forms, f)
}

// grep handles grep, rg, ag and ack; it reports whether the command only
// reads.
func (in *inspector) grep(a *argv) bool {
	n := a.name
	recursive := false
	switch n {
	case "rg", "ag", "ack", "ack-grep":
		recursive = !a.has("-n") || n == "rg"
	default:
		recursive = a.has("-r", "-R")
		for _, d := range a.vals("-d") {
			if !d.Static || d.Value == "recurse" {
				recursive = true
			}
		}
	}
	ops := a.ops
	if !a.has("-e", "-f") && len(ops) > 0 && !(n == "rg" && a.has("--files", "--type-list")) {
		ops = ops[1:]
	}
	if recursive {
		if len(ops) == 0 {
			in.searchDir()
		}
		in.search(ops...)
		in.read(ops...)
	} else {
		in.read(ops...)
	}
	return true
}

func hasInPlace(a *argv) bool {
	return a.has("-i", "--in-place") || slicesAny(a.opts, func(o opt) bool {
		return strings.HasPrefix(o.name, "--in-place")
	})
}

func slicesAny[T any](s []T, f func(T) bool) bool {
	for _, x := range s {
		if f(x) {
			return true
		}
	}
	return false
}

// sed handles sed; it reports whether the command only reads.
func (in *inspector) sed(a *argv) bool {
	in.programFiles(a, "-f")
	ops := a.ops
	scripts := a.vals("-e")
	if len(scripts) == 0 && !a.has("-f") && len(ops) > 0 {
		scripts = ops[:1]
		ops = ops[1:]
	}
	dangerous := a.has("-f")
	reads := false
	for _, s := range scripts {
		if !s.Static {
			dangerous = true
			continue
		}
		sc := scanSed(s.Value)
		// sed does not expand ~ in file names: the name is read as
		// written, and also as the home directory for deny.
		for _, f := range sc.reads {
			in.read(staticWord(f))
			if strings.HasPrefix(f, "~") {
				in.read(staticWord("./" + f))
			}
			reads = true
		}
		for _, f := range sc.writes {
			in.write(staticWord(f))
			if strings.HasPrefix(f, "~") {
				in.write(staticWord("./" + f))
			}
		}
		for _, cmd := range sc.cmds {
			// The e command runs its text as sh -c TEXT.
			appendForm(in.c, []Word{{Value: "sh", Static: true}, {Value: "-c", Static: true}, {Value: cmd, Static: true}})
			in.runScript(cmd, false)
		}
		if sc.execInput {
			in.unanalysable("sed runs its input as commands (s///e or e without a command)")
		}
		if sc.exec || sc.unknown || len(sc.writes) > 0 {
			dangerous = true
			// What the program names may be a file it writes.
			in.scriptWrites(s.Value)
		}
	}
	if dangerous {
		in.c.ExactOnly = true
	}
	in.read(ops...)
	inPlace := hasInPlace(a)
	if inPlace {
		in.write(ops...)
		// -iSUFFIX keeps a backup of each file under the suffix's name.
		for _, suf := range a.vals("-i") {
			for _, w := range ops {
				if !suf.Static || !w.Static {
					in.write(wordInfo{Word: Word{Value: w.Value + suf.Value}})
					continue
				}
				// As GNU sed 4.9 names it (checked with strace): each '*'
				// is the file name as given; without one, the suffix is
				// appended.
				b := w.Value + suf.Value
				if strings.Contains(suf.Value, "*") {
					b = strings.ReplaceAll(suf.Value, "*", w.Value)
				}
				in.write(staticWord(b))
			}
		}
	}
	return a.has("-n") && !dangerous && !inPlace && !reads
}

// sedScript is what a sed program does beyond editing its input.
type sedScript struct {
	exec      bool     // e command or s///e flag
	execInput bool     // s///e or a bare e: runs the pattern space
	cmds      []string // the commands of e COMMAND
	unknown   bool     // a command the reader does not know, or unreadable
	reads     []string // files named by r and R
	writes    []string // files named by w, W and s///w
}

// scanSed reads a sed program far enough to find the commands that run
// programs or name files.
func scanSed(s string) (sc sedScript) {
	i := 0
	fileArg := func() string {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		j := i
		for i < len(s) && s[i] != '\n' {
			i++
		}
		return s[j:i]
	}
	for i < len(s) {
		// Skip separators and addresses.
		for i < len(s) && strings.IndexByte(" \t\n;{}!", s[i]) >= 0 {
			i++
		}
		for i < len(s) {
			ch := s[i]
			switch {
			case ch >= '0' && ch <= '9' || ch == '$' || ch == ',' || ch == '~' || ch == '+' || ch == ' ' || ch == '!':
				i++
				continue
			case ch == '/' || ch == '\\':
				d := byte('/')
				if ch == '\\' {
					if i+1 >= len(s) {
						sc.unknown = true
						return
					}
					i++
					d = s[i]
				}
				j := skipDelimited(s, i+1, d)
				if j < 0 {
					sc.unknown = true
					return
				}
				i = j
				if i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
				continue
			}
			break
		}
		if i >= len(s) {
			return
		}
		cmd := s[i]
		i++
		switch cmd {
		case 'e':
			sc.exec = true
			if c := strings.TrimSpace(fileArg()); c != "" {
				sc.cmds = append(sc.cmds, c)
			} else {
				sc.execInput = true
			}
		case 'r', 'R':
			if f := fileArg(); f != "" {
				sc.reads = append(sc.reads, f)
			} else {
				sc.unknown = true
			}
		case 'w', 'W':
			if f := fileArg(); f != "" {
				sc.writes = append(sc.writes, f)
			} else {
				sc.unknown = true
			}
		case 's', 'y':
			if i >= len(s) {
				sc.unknown = true
				return
			}
			d := s[i]
			j := skipDelimited(s, i+1, d)
			if j < 0 {
				sc.unknown = true
				return
			}
			j = skipDelimited(s, j, d)
			if j < 0 {
				sc.unknown = true
				return
			}
			i = j
			if cmd == 's' {
				for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
					switch s[i] {
					case 'e':
						sc.exec = true
						sc.execInput = true
					case 'w', 'W':
						i++
						if f := fileArg(); f != "" {
							sc.writes = append(sc.writes, f)
						} else {
							sc.unknown = true
						}
						continue
					case 'g', 'p', 'i', 'I', 'm', 'M', ' ', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
					default:
						sc.unknown = true
					}
					i++
				}
			}
		case 'a', 'i', 'c', 'b', 't', 'T', ':', 'l', 'q', 'Q', 'L':
			// Text or label to end of line (or ';' for labels/branches).
			for i < len(s) && s[i] != '\n' && !(s[i] == ';' && cmd != 'a' && cmd != 'i' && cmd != 'c') {
				i++
			}
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F':
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			sc.unknown = true
			return
		}
	}
	return
}

// skipDelimited returns the index after the next unescaped d at or after
// i, or -1.
func skipDelimited(s string, i int, d byte) int {
	for i < len(s) {
		if s[i] == '\\' {
			i += 2
			continue
		}
		if s[i] == '\n' && d != '\n' {
			return -1
		}
		if s[i] == d {
			return i + 1
		}
		i++
	}
	return -1
}

// awk handles awk and its variants.
func (in *inspector) awk(a *argv) bool {
	in.programFiles(a, "-f", "-E", "-i")
	ops := a.ops
	ro := true
	// -W passes any option (mawk -W exec FILE reads the program from
	// FILE; gawk -W load=x, -W profile=f).
	if a.has("-f", "-E", "-i", "-l", "-e", "-W") {
		in.c.ExactOnly = true
		ro = false
	} else if len(ops) > 0 {
		prog := ops[0]
		uncertain := false
		if prog.Static {
			// Regular expressions and comments may hold quotes; what
			// follows is read with them blanked.
			code, certain := awkCode(prog.Value)
			if certain {
				prog.Value = code
			}
			uncertain = !certain
			if awkEnviron(prog.Value) {
				// ENVIRON holds the environment, which may hold secrets.
				ro = false
			}
		}
		if !prog.Static || uncertain || awkDangerous(prog.Value) {
			in.c.ExactOnly = true
			ro = false
			if prog.Static {
				in.scriptWrites(prog.Value)
				// The commands it runs, when they are literals, face deny
				// rules: system("..."), "..." | getline, print | "...".
				for _, cmd := range awkCommands(prog.Value) {
					// awk runs them as sh -c CMD.
					appendForm(in.c, []Word{{Value: "sh", Static: true}, {Value: "-c", Static: true}, {Value: cmd, Static: true}})
					in.runScript(cmd, false)
				}
				if awkDynamicOutput(prog.Value) {
					in.c.Writes = in.an.appendRef(in.c.Writes, PathRef{Text: "…", Dynamic: true})
				}
			}
		}
		if prog.Static && strings.Contains(prog.Value, "getline") {
			// getline < "file" reads a file the operands do not name.
			ro = false
			for _, f := range awkStrings(prog.Value) {
				in.read(staticWord(f))
			}
		}
		ops = ops[1:]
	} else {
		ro = false
	}
	for _, w := range ops {
		if w.Static && isAssignWord(w.Value) {
			continue
		}
		in.read(w)
	}
	return ro
}

// awkCode returns an awk program with the text of its regular expression
// literals and comments replaced by blanks (string literals are kept), so
// that a quote inside /"/ or after # is not taken for the start of a
// string that would hide the code after it. A slash starts a regular
// expression where an operand is expected, as awk reads it; one that
// finds no closing slash on its line is left alone (awk rejects it or
// reads a division). ok is false where the reading is not certain (a
// slash after ++, --, or $): the caller assumes the worst.
func awkCode(prog string) (code string, ok bool) {
	b := []byte(prog)
	operand := false // the previous token ends an operand: a slash divides
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			for i++; i < len(b) && b[i] != '"' && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			operand = true
		case c == '#':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			operand = false
		case c == '/' && !operand:
			if i > 0 && strings.IndexByte("+-$", b[i-1]) >= 0 {
				return prog, false
			}
			end, bracket := -1, false
			for j := i + 1; j < len(b) && b[j] != '\n'; j++ {
				if b[j] == '\\' {
					j++
				} else if b[j] == '[' {
					bracket = true
				} else if b[j] == ']' {
					bracket = false
				} else if b[j] == '/' && !bracket {
					end = j
					break
				}
			}
			if end < 0 {
				continue
			}
			for j := i + 1; j < end; j++ {
				b[j] = ' '
			}
			i = end
			operand = true
		case c == ' ' || c == '\t' || c == '\\':
		case isIdentByte(c) || c == '.':
			j := i
			for j < len(b) && (isIdentByte(b[j]) || b[j] == '.') {
				j++
			}
			// After a keyword an operand is expected (print /re/).
			operand = !awkKeywords[string(b[i:j])]
			i = j - 1
		case c == ')' || c == ']':
			operand = true
		case (c == '+' || c == '-') && i+1 < len(b) && b[i+1] == c:
			i++
			if i+1 < len(b) && b[i+1] == '/' {
				return prog, false
			}
			operand = false
		default:
			operand = false
		}
	}
	return string(b), true
}

// awkKeywords are the awk words after which a slash starts a regular
// expression.
var awkKeywords = map[string]bool{
	"print": true, "printf": true, "return": true, "case": true, "do": true, "else": true,
	"in": true, "getline": true, "delete": true, "exit": true, "BEGIN": true, "END": true,
	"if": true, "while": true, "for": true, "function": true, "func": true, "next": true, "nextfile": true,
	"BEGINFILE": true, "ENDFILE": true, "default": true,
}

// awkEnviron reports whether an awk program (as awkCode returns it) names
// ENVIRON outside its string literals.
func awkEnviron(prog string) bool {
	for i := 0; i < len(prog); i++ {
		switch prog[i] {
		case '"':
			for i++; i < len(prog) && prog[i] != '"'; i++ {
				if prog[i] == '\\' {
					i++
				}
			}
		default:
			if strings.HasPrefix(prog[i:], "ENVIRON") && (i == 0 || !isIdentByte(prog[i-1])) {
				return true
			}
		}
	}
	return false
}

// awkLit is a string literal of an awk program: its value and where it
// starts and ends (the quotes included).
type awkLit struct {
	value      string
	start, end int
}

// awkLiterals returns the string literals of an awk program, in order.
func awkLiterals(prog string) []awkLit {
	var out []awkLit
	for i := 0; i < len(prog); i++ {
		if prog[i] != '"' {
			continue
		}
		start := i
		var b strings.Builder
		for i++; i < len(prog) && prog[i] != '"'; i++ {
			if prog[i] == '\\' && i+1 < len(prog) {
				i++
			}
			b.WriteByte(prog[i])
		}
		out = append(out, awkLit{value: b.String(), start: start, end: min(i+1, len(prog))})
	}
	return out
}

// awkStrings returns the values of an awk program's string literals.
func awkStrings(prog string) []string {
	var out []string
	for _, l := range awkLiterals(prog) {
		out = append(out, l.value)
	}
	return out
}

// awkCommands returns the string literals an awk program runs as shell
// commands: the argument of system(), and a string on either side of a
// pipe.
func awkCommands(prog string) []string {
	var out []string
	for _, l := range awkLiterals(prog) {
		before := strings.TrimRight(prog[:l.start], " \t")
		after := strings.TrimLeft(prog[l.end:], " \t")
		if strings.HasSuffix(before, "system(") || strings.HasSuffix(before, "|") && !strings.HasSuffix(before, "||") ||
			strings.HasPrefix(after, "|") && !strings.HasPrefix(after, "||") {
			out = append(out, l.value)
		}
	}
	return out
}

// awkDynamicOutput reports an output redirection or pipe whose target is
// not a string literal (print > $1).
func awkDynamicOutput(prog string) bool {
	lits := awkLiterals(prog)
	inLit := func(i int) bool {
		for _, l := range lits {
			if l.start <= i && i < l.end {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(prog); i++ {
		if (prog[i] != '>' && prog[i] != '|') || inLit(i) {
			continue
		}
		j := i + 1
		for j < len(prog) && strings.IndexByte(">| \t", prog[j]) >= 0 {
			j++
		}
		if j < len(prog) && prog[j] != '"' {
			return true
		}
	}
	return false
}

// awkDangerous reports whether an awk program may run commands or write
// files: system(), getline from a command, or print/printf redirection.
func awkDangerous(prog string) bool {
	inStr := false
	printing := false
	for i := 0; i < len(prog); i++ {
		ch := prog[i]
		if inStr {
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '@':
			// gawk: @f() calls the function named by f (system too),
			// @include and @load read code.
			return true
		case '|':
			if i+1 < len(prog) && prog[i+1] == '|' {
				i++
				continue
			}
			return true
		case '>':
			if printing {
				return true
			}
		case ';', '{', '}', '\n':
			printing = false
		default:
			if isIdentByte(ch) && (i == 0 || !isIdentByte(prog[i-1])) {
				j := i
				for j < len(prog) && isIdentByte(prog[j]) {
					j++
				}
				switch prog[i:j] {
				case "system", "fflush":
					if prog[i:j] == "system" {
						return true
					}
				case "print", "printf":
					printing = true
				case "getline":
					// getline < file reads; cmd | getline runs (caught by '|').
				}
				i = j - 1
			}
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// copy handles cp, mv, install, ln, rsync and scp.
func (in *inspector) copy(a *argv) bool {
	n := a.name
	ops := a.ops
	local := func(ws []wordInfo) []wordInfo {
		if n != "rsync" && n != "scp" {
			return ws
		}
		var out []wordInfo
		for _, w := range ws {
			if w.Static && remoteSpec(w.Value) {
				continue
			}
			out = append(out, w)
		}
		return out
	}
	var srcs []wordInfo
	if t := a.vals("-t", "--target-directory"); len(t) > 0 {
		in.write(t...)
		srcs = ops
	} else if n == "install" && a.has("-d", "--directory") {
		in.write(ops...)
		return false
	} else if len(ops) > 1 {
		in.write(local(ops[len(ops)-1:])...)
		srcs = ops[:len(ops)-1]
	} else if n == "ln" && len(ops) == 1 {
		in.writeDir(in.dir)
		srcs = ops
	}
	if n == "mv" {
		in.write(srcs...)
	}
	if n == "ln" {
		in.read(srcs...)
		in.linkTargets(a, srcs)
		return false
	}
	if n == "mv" {
		return false
	}
	in.read(local(srcs)...)
	// A recursive copy reads every file below its sources, like a
	// recursive content search of them.
	if (n == "cp" || n == "scp") && a.has("-r", "-R", "-a", "--recursive", "--archive") ||
		n == "rsync" && a.has("-r", "-a", "--recursive", "--archive") {
		in.search(local(srcs)...)
	}
	if n == "rsync" && a.has("--delete", "--delete-before", "--delete-after", "--delete-during", "--remove-source-files") {
		in.write(local(srcs)...)
	}
	in.read(a.vals("--exclude-from", "--include-from", "--files-from", "--password-file")...)
	return false
}

// diffWrites marks the paths a unified diff on standard input (a
// here-document or here-string of patch or git apply) names as writes,
// so that edit deny rules and protected paths see them.
func (in *inspector) diffWrites() {
	if !in.c.StdinStatic {
		return
	}
	for _, p := range pathmatch.DiffPaths(in.c.Stdin) {
		in.write(staticWord(p))
	}
}

// linkTargets reads, for ln -s, where a relative target leads: the
// kernel resolves it from the link's directory, not the working directory
// (ln -s ../.env a/e links a/e to ./.env). The link's directory is the -t
// directory, or the last operand (a directory the link is made in) or its
// parent (the link's own name): each is read.
func (in *inspector) linkTargets(a *argv, srcs []wordInfo) {
	if !a.has("-s", "--symbolic") || a.has("-r", "--relative") {
		return
	}
	var dirs []string
	if t := a.vals("-t", "--target-directory"); len(t) > 0 {
		for _, w := range t {
			if w.Static {
				dirs = append(dirs, w.Value)
			}
		}
	} else if len(a.ops) > 1 {
		if last := a.ops[len(a.ops)-1]; last.Static {
			dirs = append(dirs, last.Value, path.Dir(last.Value))
		}
	}
	for _, s := range srcs {
		if !s.Static || strings.HasPrefix(s.Value, "/") || strings.HasPrefix(s.Value, "~") {
			continue
		}
		for _, d := range dirs {
			if d != "." && d != "" {
				in.read(staticWord(path.Join(d, s.Value)))
			}
		}
	}
}

func remoteSpec(v string) bool {
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return false
	}
	return !strings.Contains(v[:i], "/")
}

// tar handles tar; it reports whether the command only reads.
func (in *inspector) tar(pa *argv) bool {
	args := pa.args
	mode := byte(0)
	clean := true
	var file []wordInfo
	var dir []wordInfo
	rest := args
	// Old-style bundled first argument: tar xzf archive.tgz
	if len(args) > 0 && args[0].Static && args[0].Value != "" && args[0].Value[0] != '-' {
		v := args[0].Value
		rest = args[1:]
		for j := 0; j < len(v); j++ {
			switch v[j] {
			case 'x', 'c', 't', 'r', 'u', 'A':
				mode = v[j]
			case 'f':
				if len(rest) > 0 {
					file = append(file, rest[0])
					rest = rest[1:]
				}
			case 'C':
				if len(rest) > 0 {
					dir = append(dir, rest[0])
					rest = rest[1:]
				}
			case 'v', 'z', 'j', 'J', 'p', 'h', 'O', 'k', 'm', 'o', 'P', 'S', 'W', 'B', 'i':
			default:
				clean = false
				in.mayWrite = true
			}
		}
	}
	a := pa
	if len(rest) != len(args) {
		b := models["tar"].parse(rest)
		in.effects(&b)
		a = &b
		clean = clean && b.clean(models["tar"])
	}
	for _, o := range a.opts {
		switch o.name {
		case "-x", "--extract", "--get":
			mode = 'x'
		case "-c", "--create":
			mode = 'c'
		case "-t", "--list":
			mode = 't'
		case "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate":
			mode = 'r'
		case "--delete":
			mode = 'r'
		case "-d", "--diff", "--compare":
			mode = 't'
		}
	}
	file = append(file, a.vals("-f", "--file")...)
	dir = append(dir, a.vals("-C", "--directory")...)
	in.read(a.vals("-T", "--files-from", "-X", "--exclude-from")...)
	if a.has("--use-compress-program", "-I", "--to-command", "--checkpoint-action", "--info-script", "--new-volume-script", "-F") {
		in.c.ExactOnly = true
	}
	switch mode {
	case 'x':
		in.read(file...)
		if len(dir) > 0 {
			in.write(dir...)
		} else {
			in.writeDir(in.dir)
		}
		in.write(a.ops...)
		return false
	case 'c', 'r':
		in.write(file...)
		for _, o := range a.ops {
			in.read(o)
			in.search(o)
		}
		return false
	case 't':
		in.read(file...)
		return clean && !in.c.ExactOnly
	}
	return false
}

// curl handles curl's file options.
func (in *inspector) curl(a *argv) bool {
	for _, o := range a.opts {
		if !o.has {
			if o.name == "-O" || o.name == "--remote-name" || o.name == "--remote-name-all" || o.name == "-J" {
				in.writeDir(in.dir)
			}
			continue
		}
		v := o.val
		switch o.name {
		case "-d", "--data", "--data-ascii", "--data-binary", "--json":
			if v.Static && strings.HasPrefix(v.Value, "@") {
				in.read(staticWord(v.Value[1:]))
			}
		case "--data-urlencode":
			if v.Static {
				if i := strings.IndexByte(v.Value, '@'); i >= 0 {
					in.read(staticWord(v.Value[i+1:]))
				}
			}
		case "-T", "--upload-file", "-K", "--config", "--cert", "--key", "--netrc-file":
			in.read(v)
		case "-F", "--form":
			if v.Static {
				if i := strings.IndexByte(v.Value, '='); i >= 0 {
					val := v.Value[i+1:]
					if strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<") {
						f := val[1:]
						if j := strings.IndexByte(f, ';'); j >= 0 {
							f = f[:j]
						}
						in.read(staticWord(f))
					}
				}
			} else {
				in.read(v)
			}
		case "-b", "--cookie":
			if v.Static && !strings.Contains(v.Value, "=") {
				in.read(v)
			}
		case "-H", "--header":
			if v.Static && strings.HasPrefix(v.Value, "@") {
				in.read(staticWord(v.Value[1:]))
			}
		case "-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--stderr", "--trace", "--trace-ascii", "--output-dir":
			if v.Static && v.Value == "-" {
				continue
			}
			in.write(v)
		}
	}
	return false
}
