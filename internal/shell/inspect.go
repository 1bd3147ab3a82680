package shell

import (
	"strings"
)

// inspector applies the built-in knowledge of commands to each form of one
// command.
type inspector struct {
	an      *analyzer
	c       *Command
	sc      scope
	dir     string
	scripts map[string]bool // scripts already analysed for this command
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
			in.c.Writes = appendRef(in.c.Writes, r)
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
			in.searchDir()
			continue
		}
		for _, r := range in.refs(w) {
			in.c.Reads = appendRef(in.c.Reads, r)
		}
	}
}

func (in *inspector) search(ws ...wordInfo) {
	for _, w := range ws {
		if w.xargs {
			in.searchDir()
			continue
		}
		for _, r := range in.refs(w) {
			in.c.Searches = appendRef(in.c.Searches, r)
		}
	}
}

func (in *inspector) searchDir() {
	in.c.Searches = appendRef(in.c.Searches, PathRef{Text: ".", Path: in.dir})
}

func (in *inspector) writeDir(d string) {
	in.c.Writes = appendRef(in.c.Writes, PathRef{Text: ".", Path: d})
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
	in.an.script(script, in.sc.depth+1, in.dir, nil, script)
}

// argv is a command's words split into options and operands.
type argv struct {
	opts []opt
	ops  []wordInfo
}

type opt struct {
	name string // "-n" or "--lines"
	val  wordInfo
	has  bool // val is set
}

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

// parseArgv splits args (GNU style: options anywhere before "--"). short
// lists the short options that take an argument, long the long ones, each
// surrounded by spaces.
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

// readerArgs lists content-reading commands with their options that take
// an argument.
var readerArgs = map[string][2]string{
	"cat": {"", ""}, "tac": {"s", " --separator "}, "nl": {"bdfhilnsvw", ""},
	"head": {"nc", " --lines --bytes "}, "tail": {"ncs", " --lines --bytes --pid --sleep-interval "},
	"less": {"bhjkoOpPtTxyz", ""}, "more": {"n", ""}, "wc": {"", " --files0-from "},
	"cut":  {"bcdf", " --bytes --characters --delimiter --fields --output-delimiter "},
	"sort": {"kotST", " --key --output --field-separator --buffer-size --temporary-directory --parallel --files0-from "},
	"uniq": {"fsw", " --skip-fields --skip-chars --check-chars "},
	"diff": {"CUxXIFLS", " --context --unified --exclude --exclude-from --ignore-matching-lines --label --starting-file --show-function-line "},
	"cmp":  {"in", " --ignore-initial --bytes "}, "base64": {"w", " --wrap "}, "base32": {"w", " --wrap "},
	"xxd": {"cglosC", ""}, "od": {"AjNtSw", " --address-radix --skip-bytes --read-bytes --format --strings --width "},
	"strings": {"nteo", " --bytes --radix --encoding "}, "md5sum": {"", ""}, "sha1sum": {"", ""},
	"sha256sum": {"", ""}, "sha512sum": {"", ""}, "cksum": {"", ""}, "rev": {"", ""},
	"fold": {"w", " --width "}, "column": {"cstoNRWH", ""}, "comm": {"", ""}, "join": {"jtoe12", ""},
	"paste": {"d", " --delimiters "}, "expand": {"t", ""}, "unexpand": {"t", ""}, "fmt": {"w", ""},
	"file": {"fFmP", ""}, "hexdump": {"enNsf", ""}, "iconv": {"fto", ""},
}

func (in *inspector) inspect(f []wordInfo, primary bool) {
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
			case "mkdir", "touch", "mv", "cp", "rm", "rmdir":
				c.AcceptEdits = true
			case "sed":
				a := parseArgv(args, "efl", " --expression --file --line-length ")
				c.AcceptEdits = hasInPlace(a)
			}
		}()
	}
	if spec, ok := readerArgs[n]; ok {
		a := parseArgv(args, spec[0], spec[1])
		ro = true
		ops := a.ops
		switch n {
		case "sort":
			if out := a.vals("-o", "--output"); len(out) > 0 {
				in.write(out...)
				ro = false
			}
			in.read(a.vals("--files0-from")...)
		case "uniq", "xxd":
			if len(ops) > 1 {
				in.write(ops[1])
				ops = ops[:1]
				ro = false
			}
		case "iconv":
			if out := a.vals("-o"); len(out) > 0 {
				in.write(out...)
				ro = false
			}
		}
		in.read(ops...)
		return
	}
	switch n {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox":
		if n == "busybox" {
			if len(args) > 0 && args[0].Static && (args[0].Value == "sh" || args[0].Value == "ash") {
				args = args[1:]
			} else {
				in.generic(args)
				return
			}
		}
		in.shell(args, primary)
	case "python", "python2", "python3", "node", "nodejs", "perl", "ruby", "php", "lua", "deno", "bun", "Rscript", "tclsh", "osascript", "pwsh":
		in.interpreter(n, args)
	case "eval":
		if len(args) == 0 {
			ro = true
			return
		}
		if !allStatic(args) {
			in.unanalysable("eval of a non-static string")
			return
		}
		in.runScript(joinValues(args), primary)
	case "source", ".":
		in.unanalysable("source runs a script file")
		if len(args) > 0 {
			in.read(args[0])
		}
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
		}
		ro = len(args) == 0
	case "mapfile", "readarray":
		a := parseArgv(args, "dnOsuCc", "")
		if a.has("-C") {
			in.unanalysable(n + " -C evaluates a callback")
		}
		in.varNames(a.ops)
	case "printf":
		a := parseArgv(args, "v", "")
		ro = true
		for _, v := range a.vals("-v") {
			ro = false
			in.varNames([]wordInfo{v})
		}
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
		ro = len(args) == 0
	case "test", "[":
		ro = true
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
	case "watch", "setsid", "flock":
		c.ExactOnly = true
	case "find":
		ro = in.find(args)
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "ack-grep":
		ro = in.grep(n, args)
	case "sed":
		ro = in.sed(args)
	case "awk", "gawk", "mawk", "nawk":
		in.awk(args)
	case "cp", "mv", "install", "ln", "rsync", "scp":
		in.copy(n, args)
	case "tee":
		a := parseArgv(args, "", " --output-error ")
		in.write(a.ops...)
	case "touch", "mkdir", "truncate":
		a := parseArgv(args, "dtrmsz", " --date --reference --mode --size --context ")
		in.write(a.ops...)
		if n == "truncate" {
			in.read(a.vals("-r", "--reference")...)
		}
	case "rm", "rmdir", "shred", "unlink", "srm", "trash", "trash-put":
		a := parseArgv(args, "nsu", " --iterations --size --random-source ")
		in.write(a.ops...)
		for _, w := range a.ops {
			in.remove(w)
		}
	case "chmod", "chown", "chgrp", "chattr", "setfacl":
		a := parseArgv(args, "", "")
		ops := a.ops
		if !a.has("--reference") && len(ops) > 0 {
			ops = ops[1:]
		}
		in.write(ops...)
	case "dd":
		for _, w := range args {
			if !w.Static {
				continue
			}
			if v, ok := strings.CutPrefix(w.Value, "of="); ok {
				in.write(staticWord(v))
			} else if v, ok := strings.CutPrefix(w.Value, "if="); ok {
				in.read(staticWord(v))
			}
		}
	case "tar", "bsdtar", "gtar":
		ro = in.tar(args)
	case "unzip":
		a := parseArgv(args, "dxP", "")
		if len(a.ops) > 0 {
			in.read(a.ops[0])
		}
		if a.has("-l", "-t", "-v", "-Z") {
			ro = true
			return
		}
		if d := a.vals("-d"); len(d) > 0 {
			in.write(d...)
		} else {
			in.writeDir(in.dir)
		}
	case "zip":
		a := parseArgv(args, "bniPtx", "")
		if len(a.ops) > 0 {
			in.write(a.ops[0])
			if a.has("-r") {
				in.search(a.ops[1:]...)
			}
			in.read(a.ops[1:]...)
		}
	case "patch":
		a := parseArgv(args, "BdDFgioprVYz", " --directory --input --output --prefix --strip ")
		in.read(a.vals("-i", "--input")...)
		if len(a.ops) > 0 {
			in.write(a.ops[0])
		} else {
			in.writeDir(in.dir)
		}
	case "curl":
		in.curl(args)
	case "wget":
		a := parseArgv(args, "OoaPiD", " --output-document --output-file --append-output --directory-prefix --input-file ")
		if o := a.vals("-O", "--output-document", "-o", "--output-file", "-a", "--append-output"); len(o) > 0 {
			in.write(o...)
		} else if p := a.vals("-P", "--directory-prefix"); len(p) > 0 {
			in.write(p...)
		} else {
			in.writeDir(in.dir)
		}
		in.read(a.vals("-i", "--input-file")...)
	case "git":
		ro = in.git(f)
	case "apply_patch":
		// The engine reads the patch from Stdin.
	case "date":
		a := parseArgv(args, "dfrI", " --date --file --reference ")
		ro = !a.has("-s", "--set")
		in.read(a.vals("-f", "--file")...)
	case "hostname":
		a := parseArgv(args, "F", " --file ")
		ro = len(a.ops) == 0 && !a.has("-F", "--file", "-b", "--boot")
	case "tree":
		a := parseArgv(args, "LPIoHT", " --filelimit --timefmt --sort --charset ")
		if o := a.vals("-o"); len(o) > 0 {
			in.write(o...)
			return
		}
		ro = true
	case "env", "printenv":
		ro = len(args) == 0 || n == "printenv"
	case "jq", "yq":
		a := parseArgv(args, "f", " --from-file --arg --argjson --slurpfile --rawfile --indent ")
		ops := a.ops
		if !a.has("-f", "--from-file") && len(ops) > 0 {
			ops = ops[1:]
		}
		in.read(ops...)
		in.read(a.vals("-f", "--from-file", "--slurpfile", "--rawfile")...)
		ro = !a.has("-i") // yq -i edits in place
		if a.has("-i") {
			in.write(ops...)
		}
	case "ls", "du", "df", "stat", "which", "whereis", "type", "readlink", "realpath", "basename", "dirname",
		"echo", "pwd", "tr", "seq", "sleep", "true", "false", ":", "id", "whoami", "uname", "groups",
		"uptime", "ps", "nproc", "arch", "tty", "locale", "cal", "dirs", "cd", "pushd", "popd":
		ro = true
	}
}

// generic handles an unknown command: nothing to add beyond ArgPaths.
func (in *inspector) generic([]wordInfo) {}

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
			case "--rcfile", "--init-file":
				in.unanalysable("shell with an rc file")
				i++
			case "--version", "--help":
				return
			}
			continue
		}
		if strings.ContainsAny(v[1:], "oO") {
			i++ // -o option / -O shopt takes an argument
		}
		if v[0] == '-' && strings.IndexByte(v, 'c') >= 0 {
			cflag = true
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
	if i < len(args) {
		in.read(args[i])
		in.unanalysable("shell runs a script file")
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
				in.read(args[i])
				in.unanalysable(n + " runs a script file")
			}
			return
		}
		if len(v) < 2 || v[0] != '-' {
			// The program file.
			if (n == "deno" || n == "bun") && i == 0 {
				continue // subcommand: deno run x.ts
			}
			in.read(w)
			in.unanalysable(n + " runs a script file")
			return
		}
		if strings.HasPrefix(v, "--") {
			switch {
			case v == "--version" || v == "--help":
				return
			case v == "--eval" || v == "--print":
				return // static code: matched by exact rules only
			case strings.Contains(long, " "+v+" "):
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(code, v[j]) >= 0 {
				return // static code: matched by exact rules only
			}
			if v[j] == 'm' && strings.HasPrefix(n, "python") {
				return // a module
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
	in.unanalysable(n + " reads its program from standard input")
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

// find handles find; it reports whether the command only reads.
func (in *inspector) find(args []wordInfo) bool {
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
				in.c.Forms = appendForm(in.c.Forms, values(sub))
				in.inspect(sub, false)
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
		}
	}
	return ro
}

func appendForm(forms [][]Word, f []Word) [][]Word {
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
				return forms
			}
		}
	}
	if len(forms) >= maxForms {
		return forms
	}
	return append(forms, f)
}

// grep handles grep, rg, ag and ack; it reports whether the command only
// reads.
func (in *inspector) grep(n string, args []wordInfo) bool {
	var a argv
	recursive := false
	switch n {
	case "rg":
		a = parseArgv(args, "efgtTmABCjMrEd", " --regexp --file --glob --iglob --type --type-not --max-count --after-context --before-context --context --threads --max-columns --replace --encoding --max-depth --pre --pre-glob --type-add --sort --sortr --max-filesize --path-separator --colors --color ")
		recursive = true
	case "ag", "ack", "ack-grep":
		a = parseArgv(args, "GABCmgf", " --ignore --ignore-dir --after --before --context --max-count --file-search-regex --type ")
		recursive = true
	default:
		a = parseArgv(args, "efmABCdD", " --regexp --file --max-count --after-context --before-context --context --include --exclude --exclude-dir --exclude-from --label --directories --devices --binary-files --color --colour ")
		recursive = a.has("-r", "-R", "--recursive", "--dereference-recursive")
		for _, d := range a.vals("-d", "--directories") {
			if d.Value == "recurse" {
				recursive = true
			}
		}
	}
	in.read(a.vals("-f", "--file")...)
	ops := a.ops
	if !a.has("-e", "--regexp", "-f", "--file") && len(ops) > 0 && n != "ag" || (n == "ag" && len(ops) > 0) {
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
	if n == "rg" && a.has("--pre", "-z", "--search-zip") {
		return false
	}
	return true
}

func hasInPlace(a argv) bool {
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
func (in *inspector) sed(args []wordInfo) bool {
	// -i takes an optional attached suffix, so it is not an option with
	// an argument here; "-i.bak" parses as -i -. -b -a -k.
	a := parseArgv(args, "efl", " --expression --file --line-length ")
	ops := a.ops
	scripts := a.vals("-e", "--expression")
	if len(scripts) == 0 && !a.has("-f", "--file") && len(ops) > 0 {
		scripts = ops[:1]
		ops = ops[1:]
	}
	dangerous := a.has("-f", "--file")
	in.read(a.vals("-f", "--file")...)
	for _, s := range scripts {
		if !s.Static || sedExecWrite(s.Value) {
			dangerous = true
			if s.Static {
				in.scriptWrites(s.Value)
			}
		}
	}
	if dangerous {
		in.c.ExactOnly = true
	}
	in.read(ops...)
	inPlace := hasInPlace(a)
	if inPlace {
		in.write(ops...)
	}
	return a.has("-n", "--quiet", "--silent") && !dangerous && !inPlace
}

// sedExecWrite reports whether a sed script may use the e or w commands
// or the e and w flags of s (or cannot be read well enough to tell).
func sedExecWrite(script string) bool {
	s := script
	i := 0
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
						return true
					}
					i++
					d = s[i]
				}
				j := skipDelimited(s, i+1, d)
				if j < 0 {
					return true
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
			return false
		}
		cmd := s[i]
		i++
		switch cmd {
		case 'e', 'w', 'W', 'r', 'R':
			if cmd == 'r' || cmd == 'R' {
				// Reads a file; harmless for writes, but skip its name.
				for i < len(s) && s[i] != '\n' {
					i++
				}
				continue
			}
			return true
		case 's', 'y':
			if i >= len(s) {
				return true
			}
			d := s[i]
			j := skipDelimited(s, i+1, d)
			if j < 0 {
				return true
			}
			j = skipDelimited(s, j, d)
			if j < 0 {
				return true
			}
			i = j
			if cmd == 's' {
				for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
					if s[i] == 'e' || s[i] == 'w' || s[i] == 'W' {
						return true
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
			return true
		}
	}
	return false
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
func (in *inspector) awk(args []wordInfo) {
	a := parseArgv(args, "fvFWE", " --file --assign --field-separator --include --load ")
	ops := a.ops
	if a.has("-f", "--file", "-E", "--include", "--load", "-l") {
		in.c.ExactOnly = true
		in.read(a.vals("-f", "--file", "-E")...)
	} else if len(ops) > 0 {
		if !ops[0].Static || awkDangerous(ops[0].Value) {
			in.c.ExactOnly = true
			if ops[0].Static {
				in.scriptWrites(ops[0].Value)
			}
		}
		ops = ops[1:]
	}
	for _, w := range ops {
		if w.Static && isAssignWord(w.Value) {
			continue
		}
		in.read(w)
	}
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
func (in *inspector) copy(n string, args []wordInfo) {
	var a argv
	switch n {
	case "rsync":
		a = parseArgv(args, "eBfT", " --rsh --exclude --include --exclude-from --include-from --files-from --filter --rsync-path --temp-dir --partial-dir --log-file --chmod --chown --backup-dir --suffix --password-file ")
	case "scp":
		a = parseArgv(args, "cFiJloPS", "")
	case "install":
		a = parseArgv(args, "gmoStTZ", " --group --mode --owner --suffix --target-directory --strip-program ")
	default:
		a = parseArgv(args, "tS", " --target-directory --suffix --backup ")
	}
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
		return
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
		return
	}
	if n == "mv" {
		return
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
}

func remoteSpec(v string) bool {
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return false
	}
	return !strings.Contains(v[:i], "/")
}

// tar handles tar; it reports whether the command only reads.
func (in *inspector) tar(args []wordInfo) bool {
	mode := byte(0)
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
			}
		}
	}
	a := parseArgv(rest, "fCbgHKLNTVX", " --file --directory --blocking-factor --listed-incremental --format --starting-file --newer --tape-length --files-from --label --exclude-from --exclude --transform --use-compress-program ")
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
		return !in.c.ExactOnly
	}
	return false
}

// curl handles curl's file options.
func (in *inspector) curl(args []wordInfo) {
	a := parseArgv(args, "dTFKoDcbeHuxXAwEYyzCmr", " --data --data-ascii --data-binary --data-urlencode --data-raw --json --upload-file --form --form-string --config --output --dump-header --cookie-jar --cookie --header --user --proxy --request --user-agent --write-out --cert --key --cacert --output-dir --stderr --trace --trace-ascii --netrc-file --url --referer --max-time --connect-timeout --retry ")
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
}
