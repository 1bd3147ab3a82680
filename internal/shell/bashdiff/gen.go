package bashdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Generator produces bash command strings from a small grammar of compound
// commands: pipelines and lists, redirections on several descriptors,
// here-documents and here-strings, ANSI-C quoting, substitutions, subshells
// and groups, wrappers with option clusters, nested shells, eval,
// functions, cd and pushd, assignments, globs and braces. The same seed
// always gives the same commands.
type Generator struct {
	r     *rand.Rand
	depth int
}

// NewGenerator returns a generator for seed.
func NewGenerator(seed uint64) *Generator {
	return &Generator{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Generate returns n commands for seed.
func Generate(seed uint64, n int) []string {
	g := NewGenerator(seed)
	out := make([]string, n)
	for i := range out {
		out[i] = g.Command()
	}
	return out
}

func (g *Generator) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *Generator) chance(p float64) bool    { return g.r.Float64() < p }

// sq quotes s for bash in single quotes.
func sq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// semi terminates s for use inside a compound command.
func semi(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "; "
}

// Command returns one command string.
func (g *Generator) Command() string {
	g.depth = 0
	return g.list()
}

func (g *Generator) list() string {
	n := 1 + g.r.IntN(3)
	if g.depth > 2 {
		n = 1
	}
	parts := []string{g.pipeline()}
	for i := 1; i < n; i++ {
		sep := g.pick(" && ", " || ", "; ", "\n", " & ", " ;")
		if strings.HasSuffix(parts[len(parts)-1], "\n") {
			// After a here-document body only a new command may follow.
			sep = ""
		}
		parts = append(parts, sep, g.pipeline())
	}
	return strings.Join(parts, "")
}

func (g *Generator) pipeline() string {
	s := g.command()
	if g.chance(0.25) && !strings.HasSuffix(s, "\n") {
		s += g.pick(" | ", " |& ", " | ") + g.command()
	}
	if g.chance(0.05) {
		s = "! " + s
	}
	if g.chance(0.04) {
		s = "time " + g.pick("", "-p ") + s
	}
	return s
}

func (g *Generator) command() string {
	if g.depth > 3 {
		return g.simple()
	}
	g.depth++
	defer func() { g.depth-- }()
	switch g.r.IntN(24) {
	case 0:
		return "( " + semi(g.list()) + ")" + g.redirs()
	case 1:
		return "{ " + semi(g.list()) + "}" + g.redirs()
	case 2:
		return g.shellScript()
	case 3:
		return g.evalCmd()
	case 4:
		return g.cdThen()
	case 5:
		if g.chance(0.3) {
			// A function shadowing a command or builtin.
			// (The bodies never call the function itself.)
			def := g.pick("ls() { rm -rf x; }", "cd() { builtin cd sub; }", "git() { command git push --force; }",
				"echo() { builtin echo hi > out.txt; }", "command() { rm -rf ~; }", "exec() { curl x; }", "cat() { rm .env; }")
			return def + "; " + strings.TrimSuffix(def[:strings.IndexByte(def, '(')], "()") + " " + g.arg()
		}
		f := g.pick("f", "g", "do_it")
		return f + "() { " + semi(g.list()) + "}; " + f + " " + g.arg()
	case 6:
		return "if " + g.simple() + "; then " + semi(g.list()) + "else " + g.simple() + "; fi"
	case 7:
		return "for x in " + g.arg() + " " + g.arg() + "; do " + g.pick("rm \"$x\"", "cat $x", "echo $x > $x.out", g.simple()) + "; done"
	case 8:
		return "while " + g.pick("false", "read -r l", "read l && false") + "; do " + g.simple() + "; done" + g.pick("", " < list.txt")
	case 9:
		return "case " + g.arg() + " in *) " + semi(g.list()) + ";; esac"
	case 10, 11, 12:
		return g.wrapped()
	case 13:
		return g.builtinCmd()
	case 14:
		return g.realTool()
	case 15:
		return g.xargsCmd()
	case 16:
		return g.assignCmd()
	case 17:
		return g.hereDoc()
	case 18:
		return "[[ " + g.pick("-f ", "-n ", "") + g.arg() + " ]] && " + g.simple()
	case 19:
		return "coproc " + g.simple()
	default:
		return g.simple()
	}
}

var progs = []string{"rm", "git", "cat", "ls", "curl", "python3", "npm", "make", "cp", "mv", "touch", "grep",
	"head", "tee", "chmod", "echo", "printf", "node", "go", "docker", "kubectl", "wget", "ssh", "dd", "shred",
	"apply_patch", "true", "./.git/hooks/pre-commit", "/usr/bin/rm", "/bin/rm", "/bin/sh", "\\rm", "r\"m\"", "$'\\x72m'", "$'rm\\0'",
	"command rm", "builtin echo", "$CMD", "${X:-rm}", "$(echo rm)", "`echo git`"}

var argWords = []string{"-rf", "-f", "-la", "--force", "push", "status", "log", "-c", "x", "hello", "'a b'", "\"$HOME\"",
	"--output=out.txt", "-o", "out.txt", "-", "--", "-e", "s/a/b/", "origin", "main", "-n", "1", "*", "src/*", "*.go",
	"{a,b}", "a{1..3}", "~", "~/x", "~root", "$x", "\"$@\"", "$1", "${x}", "$(pwd)", "`pwd`", "$((1+2))", "$'a\\nb'",
	"$'\\c@'", "$'x\\x00y'", "$'\\101'", "\"$(cat .env)\"", "<(ls)", ">(cat)", "--help", "-v", "-i", "-p", "@file"}

var paths = []string{".env", "src/a.go", "out.txt", "build.log", "~/.ssh/id_rsa", "\"$HOME/.aws/credentials\"",
	"../proj/.env", ".git/hooks/pre-commit", "sub/new.txt", "/tmp/x", "/etc/passwd", "src/*.go", "*.log", "{a,b}.txt",
	"docs/", "\"$PWD/.env\"", "\"$(pwd)/out.txt\"", "~/x", "/dev/null", ".git/config", "script.sh", "list.txt",
	"$'.env\\0x'", "$'out\\x2etxt'", "'.e'nv", "\\.env", "sub/../.env", "./out.txt", "$HOME/.bashrc", "${HOME}/.profile",
	"$TMPDIR/t", "\"$x\"", "$(echo out.txt)", "/dev/stderr", "/dev/fd/3", "Makefile", ".", ".."}

func (g *Generator) path() string { return g.pick(paths...) }

func (g *Generator) arg() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.path()
	case 3:
		return "$(" + g.simple() + ")"
	case 4:
		return g.ansi()
	default:
		return g.pick(argWords...)
	}
}

// ansi returns a $'...' word with escapes, sometimes holding a NUL.
func (g *Generator) ansi() string {
	base := g.pick("rm", ".env", "push", "git", "x", "-rf", "out.txt")
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(base); i++ {
		switch g.r.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "\\x%02x", base[i])
		case 1:
			fmt.Fprintf(&b, "\\%03o", base[i])
		default:
			b.WriteByte(base[i])
		}
	}
	b.WriteString(g.pick("", "", "\\0", "\\x00", "\\c@", "\\0x", "\\u0000", "\\n", "\\t"))
	b.WriteByte('\'')
	return b.String()
}

func (g *Generator) simple() string {
	var parts []string
	if g.chance(0.1) {
		parts = append(parts, g.pick("X=1", "A=$(rm x)", "PATH=/tmp", "LD_PRELOAD=x.so", "HOME=/tmp", "BASH_ENV=script.sh", "GIT_DIR=x", "IFS=/"))
	}
	parts = append(parts, g.pick(progs...))
	for n := g.r.IntN(4); n > 0; n-- {
		parts = append(parts, g.arg())
	}
	return strings.Join(parts, " ") + g.redirs()
}

func (g *Generator) redirs() string {
	var b strings.Builder
	for g.chance(0.3) && b.Len() < 80 {
		switch g.r.IntN(6) {
		case 0:
			b.WriteString(" " + g.pick("2>&1", ">&2", "3>&-", "1>&3", "2>/dev/null", "&>/dev/null", "<&0"))
		case 1:
			b.WriteString(" " + g.pick("<<<", "3<<<", "0<<<", "4<<<") + " " + g.pick("'git status'", "x", "\"$(rm x)\"", "$'rm -rf x\\n'"))
		default:
			op := g.pick(">", ">>", "2>", "&>", "&>>", "3>", ">|", "1>", "2>>", "<", "<>", "3<", "3<>", "0<", "4>", "9>", ">&")
			b.WriteString(" " + op + g.pick(" ", "") + g.path())
		}
	}
	return b.String()
}

func (g *Generator) hereDoc() string {
	fd := g.pick("", "", "3", "0", "4")
	dash := g.pick("", "-")
	delim := g.pick("EOF", "'EOF'", "\"EOF\"", "E\\OF")
	word := strings.Trim(delim, "'\"\\")
	if delim == "E\\OF" {
		word = "EOF"
	}
	body := g.pick("rm -rf x", "git status", "echo $(rm y)", "cat .env", "echo hi > out.txt", "*** Begin Patch\n*** Add File: x\n+y\n*** End Patch")
	prog := g.pick("bash", "sh", "cat", "python3", "apply_patch", "bash -s", "source /dev/stdin", "xargs rm", "while read l; do $l; done")
	extra := ""
	if g.chance(0.3) {
		extra = " " + g.pick("< script.sh", "3<<< 'rm z'", "<<< 'git status'", "> out.txt", "2>err.txt")
	}
	return prog + " " + fd + "<<" + dash + delim + extra + "\n" + body + "\n" + word + "\n"
}

func (g *Generator) shellScript() string {
	g.depth++
	inner := g.list()
	g.depth--
	sh := g.pick("bash", "sh", "dash", "/bin/bash", "/bin/sh", "bash --norc", "bash -e", "bash -x", "bash -o posix", "sh -e")
	switch g.r.IntN(7) {
	case 0:
		return sh + " -c " + sq(inner) + g.pick("", " arg0", " _ x y")
	case 1:
		return sh + " -lc " + sq(inner)
	case 2:
		return sh + " -s <<< " + sq(inner)
	case 3:
		return sh + " <<'EOS'\n" + inner + "\nEOS\n"
	case 4:
		return sh + " " + g.pick("script.sh", "./script.sh", "-- script.sh", "-i -c :", "-ic :", "-c \"$X\"")
	case 5:
		return "echo " + sq(inner) + " | " + sh
	default:
		return sh + " -c \"" + strings.ReplaceAll(strings.ReplaceAll(inner, "\\", "\\\\"), "\"", "\\\"") + "\""
	}
}

func (g *Generator) evalCmd() string {
	g.depth++
	inner := g.list()
	g.depth--
	switch g.r.IntN(4) {
	case 0:
		return "eval " + sq(inner)
	case 1:
		return "eval \"" + strings.ReplaceAll(inner, "\"", "\\\"") + "\""
	case 2:
		return "x=" + sq(inner) + "; eval \"$x\""
	default:
		return "eval " + sq("cd "+g.pick("sub", ".git/hooks", "src", "~", "/tmp")) + "; " + g.simple()
	}
}

func (g *Generator) cdThen() string {
	dir := g.pick("sub", ".git/hooks", "src", "~", "/tmp", "..", "-", "\"$HOME\"", "$(mktemp -d)", "docs", ".git")
	cd := g.pick("cd ", "pushd ", "cd -P ", "cd -- ", "builtin cd ", "command cd ")
	w := g.pick("echo x > pre-commit", "echo x > out.txt", "cat < .env", "rm -rf *", "touch new", "echo > ../x",
		"cat < HEAD", "popd; echo > y", "cp ../.env .", "source ../script.sh")
	sep := g.pick(" && ", "; ", "\n", " || ")
	return cd + dir + sep + w
}

func (g *Generator) builtinCmd() string {
	return g.pick(
		"source "+g.path(), ". "+g.path(), "read -r x < "+g.path(), "mapfile -t a < "+g.path(), "x=$(<"+g.path()+")",
		"echo \"$(< .env)\"", "printf -v x '%s' y", "exec 3> "+g.path()+"; echo x >&3", "exec > "+g.path(),
		"(exec rm x)", "(exec -a foo rm x)", "exec -c rm x", "hash -p /bin/rm ls; ls", "trap 'rm x' EXIT",
		"trap \"echo hi > out.txt\" EXIT", "command -v rm", "type rm", "enable -n echo; echo x", "compgen -C 'rm x' a",
		"compgen -W '$(rm x)' a", "unset 'a[$(rm x)]'", "declare -a a; a[$(rm x)]=1", "(( a[$(rm x)] ))",
		"let 'a[$(rm x)]'", "echo ${x:-$(rm y)}", ": ${x:=$(git push)}", "printf '%s' $(cat .env)",
		"history -s x; history -w hist.txt", "set -o history; history -w hist.txt", "ulimit -n", "umask 022; echo > out.txt",
		"shopt -s extglob; ls !(x)", "alias ls=rm; ls x", "shopt -s expand_aliases; alias ls=rm\nls x",
		"read -r x <<< 'git'; $x push", "declare -n r=x; r=1", "test -f .env && cat .env", "[ -f .env ] && rm .env",
		"wait", "jobs", "kill -0 $$", "caller", "help cd", "times", "getopts a x", "printf '%s\\n' a > out.txt",
		"echo hi >> out.txt", "cat .env > /dev/null", "echo > \"$(printf out.txt)\"", "f=out.txt; echo > $f",
		"x=1 y=2", "export X=1", "readonly X=1", "local x=1", "set -- a b; echo $@ > out.txt",
		"PS4='$(rm x)'; set -x; true", "declare -n r='a[$(rm x)]'; r=1", "x='a[$(rm y)]'; (( x ))",
		"x='a[$(rm y)]'; echo $(( x + 1 ))", "false && cd src; echo x > a.go", "true || cd docs; cat <HEAD",
		"cat < /dev/tcp/127.0.0.1/80", "exec 3<>/dev/tcp/127.0.0.1/80", "echo x > /dev/udp/127.0.0.1/53",
		"set -o xtrace 2>out.txt", "shopt -s globstar; ls **", "select x in a; do rm $x; done <<< 1",
		"time { rm x; }", "{ rm x; } 2>out.txt", "rm x |& tee out.txt", "exec {fd}>out.txt; echo >&$fd",
		"printf '%s' x >| out.txt", "read -r x < .env; $x",
	)
}

func (g *Generator) assignCmd() string {
	v := g.pick("x", "PATH", "HOME", "BASH_ENV", "IFS", "PS4", "PROMPT_COMMAND", "CDPATH", "a[0]", "a[$(rm x)]", "GLOBIGNORE")
	val := g.pick("out.txt", "$(rm -rf x)", "/tmp", "'$(rm x)'", "sub", ".env", "`git push`", "~/x", "a b")
	return v + "=" + val + "; " + g.pick("echo > $x", "cd x", "rm $x", "cat $x", "ls", "set -x; ls", "\"$x\"", "$x", "cd $x && touch y")
}

func (g *Generator) wrapped() string {
	inner := g.simple()
	if g.chance(0.3) {
		inner = g.wrapperPrefix() + g.simple()
	}
	return g.wrapperPrefix() + inner
}

func (g *Generator) wrapperPrefix() string {
	switch g.r.IntN(16) {
	case 0:
		return "timeout " + g.pick("", "-s KILL ", "-sKILL ", "--signal=TERM ", "-k 1 ", "-k1 ", "--kill-after=2 ", "--preserve-status ", "--foreground ", "-v ", "-s 9 -k 1 ") + g.pick("5 ", "1.5s ", "0 ", "1m ")
	case 1:
		return "nice " + g.pick("", "-n 5 ", "-n5 ", "-5 ", "--adjustment=3 ", "-n -1 ", "-n 1 -- ")
	case 2:
		return "env " + g.pick("", "-i ", "- ", "-u HOME ", "-uHOME ", "--unset=HOME ", "X=1 ", "-i X=1 ", "-C sub ", "--chdir=sub ", "-v ", "-- ", "-0 ", "-S 'rm -rf x' ", "-iS 'rm x' ", "-vS'rm y' ", "--split-string='git push' ", "-P /tmp ", "--ignore-signal ")
	case 3:
		return "stdbuf " + g.pick("-oL ", "-o0 -eL ", "--output=L ", "-i0 ", "-oL -- ")
	case 4:
		return "nohup "
	case 5:
		return "setsid " + g.pick("", "-f ", "-w ", "--fork ", "-c ")
	case 6:
		return "ionice " + g.pick("-c3 ", "-c 2 -n 7 ", "-t ", "-c3 -t ", "-n7 ")
	case 7:
		return "chrt " + g.pick("-o 0 ", "-b 0 ", "--idle 0 ", "-i 0 ")
	case 8:
		return "taskset " + g.pick("1 ", "-c 0 ", "0x1 ")
	case 9:
		// Never blocking: nested flocks on one file would wait forever.
		return "flock " + g.pick("-n lock ", "-n -x /tmp/l ", "-w 1 lock ", "-n -o lock ", "-n lock -c 'rm z' && ")
	case 10:
		return g.pick("/usr/bin/time ", "command time ", "\\time ", "env time ") + g.pick("", "-p ", "-f %e ", "-o out.txt ", "-a -o t.txt ", "-v ", "--output=x.txt ", "-q ")
	case 11:
		return "command " + g.pick("", "-p ", "-- ")
	case 12:
		return "sudo " + g.pick("", "-u root ", "-E ", "-n ", "-- ", "-s ", "-iu root ")
	case 13:
		return g.pick("exec ", "builtin ", "noglob ", "doas ", "watch ", "xargs ", "nsenter -t 1 ", "su -c ", "strace -f ", "ionice -t ")
	case 14:
		return g.pick("time ", "time -p ", "! ", "X=1 ", "A=$(rm q) ")
	default:
		return g.pick("find . -maxdepth 0 -exec ", "sh -c '\"$@\"' _ ", "bash -c 'exec \"$@\"' x ", "eval ")
	}
}

func (g *Generator) realTool() string {
	return g.pick(
		"find . -name '*.go' -exec rm {} \\;", "find src -delete", "find . -maxdepth 1 -fprint out.txt",
		"find . -name a.go -execdir git add {} +", "find sub src -exec sh -c 'rm \"$1\"' _ {} \\;",
		"find . -fprintf out.txt '%p'", "find . -fls out.txt", "find / -maxdepth 1 -name x -delete",
		"find . -maxdepth 1 -name .env -exec cat {} +", "find src -newer .env", "find -L . -maxdepth 1",
		"sed -n 1p .env", "sed -i s/a/b/ build.log", "sed 'w out.txt' build.log", "sed -n '1r ~/.ssh/id_rsa' build.log",
		"sed 'R .env' build.log", "sed '1e rm x' build.log", "sed -e 's/l/y/e' build.log", "sed --in-place=.bak s/a/b/ build.log",
		"sed -ne 's/x/y/w out.txt' build.log", "sed -s -n p build.log .env", "sed -f script.sh build.log", "sed -z -n p list.txt",
		"sed -i -e '1d' src/a.go", "sed -ibak s/a/b/ build.log", "sed -E 's/(a)/\\1/' .env",
		"awk '{print}' .env", "awk 'BEGIN{system(\"rm x\")}'", "awk 'BEGIN{print 1 > \"out.txt\"}'",
		"awk '{print | \"sh\"}' build.log", "awk 'BEGIN{while ((getline l < \".env\") > 0) print l}'",
		"awk -f script.sh build.log", "awk 'BEGIN{\"date\" | getline d}'", "awk -v x=1 '{print x}' build.log",
		"awk '{print > $1}' list.txt", "awk 'BEGIN { printf \"x\" >> \"out.txt\" }'", "mawk 'BEGIN{system(\"git push\")}'",
		"sort .env", "sort -o out.txt build.log", "sort --output=out.txt build.log", "sort --compress-program=gzip build.log",
		"sort -m build.log .env", "sort -T sub build.log", "sort --files0-from=list.txt", "sort -u -o build.log build.log",
		"env -S 'rm -rf x'", "env -C sub touch y", "env -- rm x", "timeout -s KILL 5 rm x", "nice -n5 rm x",
		"xargs -a list.txt rm", "xargs --arg-file=list.txt cat", "/usr/bin/time -o out.txt ls", "time -o x ls",
		"flock lock rm x", "flock -c 'rm z' lock", "setsid -f rm x", "stdbuf -oL rm x", "nohup rm x", "ionice -c3 rm x",
		"chrt -o 0 rm x", "taskset 1 rm x", "taskset -c 0 git push",
	)
}

func (g *Generator) xargsCmd() string {
	feed := g.pick("printf 'a\\nb\\n' | ", "echo x | ", "cat list.txt | ", "", "printf '%s\\0' a b | ")
	opts := g.pick("", "-0 ", "-n1 ", "-n 1 ", "-I{} ", "-I {} ", "-r ", "-L1 ", "-l ", "--max-lines=1 ", "-E x ", "-e ",
		"--eof=x ", "-a list.txt ", "--arg-file=list.txt ", "-P2 ", "-d '\\n' ", "-t ", "-i ", "--replace ", "-s 100 ",
		"-x ", "--null ", "-rn1 ", "-0r ", "-n1 -P2 ", "-I % ", "-L 1 ")
	cmd := g.pick("rm", "rm -rf", "git push --force", "sh -c 'rm \"$1\"' _", "echo", "cat", "", "bash -c", "{} x", "env rm", "timeout 1 rm")
	tail := g.pick("", " {}", " < list.txt", " <<< 'a b'")
	return feed + "xargs " + opts + cmd + tail
}
