package bashdiff

import (
	"fmt"
	"path"
	"strings"

	"github.com/toolgate/toolgate/internal/shell"
)

// Failure classes.
const (
	// ClassExec: bash executed a program no analysed command stands for.
	ClassExec = "exec"
	// ClassWrite: a file was written that no Writes or Redirects entry covers.
	ClassWrite = "write"
	// ClassRead: a file was read that no Reads or ArgPaths entry covers.
	ClassRead = "read"
	// ClassReadOnlyWrite: the analysis called the command read-only and
	// bash wrote a file.
	ClassReadOnlyWrite = "readonly-write"
	// ClassConnect: a network connection no /dev/tcp or /dev/udp path of
	// the analysis stands for.
	ClassConnect = "connect"
	// ClassReadOnlyConnect: the analysis called the command read-only and
	// bash opened a network connection.
	ClassReadOnlyConnect = "readonly-connect"
	// ClassHarness: the harness could not run or read the command.
	ClassHarness = "harness"
	// SuffixUnparsed is appended to the class when the whole command string
	// is unanalysable (a parse error...): it is never allowed, but deny
	// rules do not see what bash ran.
	SuffixUnparsed = "+unanalysable-string"
)

// Failure is one thing bash did that the analysis did not report.
type Failure struct {
	Class string
	Event Event
	// Detail explains a harness failure.
	Detail string
}

func (f Failure) String() string {
	if f.Class == ClassHarness {
		return "harness: " + f.Detail
	}
	return f.Class + ": " + f.Event.String()
}

// Compare checks a trace against the analysis of the same command string:
// every program executed must be one of the analysed commands, every file
// written must be covered by a Writes or Redirects entry and every file read
// by a Reads or ArgPaths entry (an unplaceable or dynamic entry covers any
// path), and a read-only command must write nothing. What comes from code
// the analysis declared unreadable is excused (see matcher.excused). home
// is the $HOME the trace ran with.
func Compare(tr *Trace, an *shell.Analysis, home string) []Failure {
	var out []Failure
	if tr.Skipped != "" {
		return nil
	}
	if tr.Err != "" {
		return []Failure{{Class: ClassHarness, Detail: tr.Err}}
	}
	defer func() {
		// When the whole string is unanalysable (a parse error, too deep...)
		// the engine never allows it, but deny rules still miss what the
		// analysis did not list: keep these apart.
		if len(an.Unanalysable) > 0 {
			for i := range out {
				if out[i].Class != ClassHarness {
					out[i].Class += SuffixUnparsed
				}
			}
		}
	}()
	m := &matcher{an: an, home: home}
	created := map[string]bool{}
	renamedTo := map[string]string{}
	for _, e := range tr.Events {
		if e.Kind == KindWrite && e.Err == "" && strings.Contains(e.Flags, "O_CREAT") {
			created[e.Path] = true
		}
		if e.To != "" && e.Err == "" {
			renamedTo[e.Path] = e.To
		}
	}
	for _, e := range tr.Events {
		switch e.Kind {
		case KindExec:
			if len(m.commandsFor(e.Argv, e.Path)) == 0 && !m.excused(e) {
				out = append(out, Failure{Class: ClassExec, Event: e})
			}
		case KindWrite:
			if an.ReadOnly {
				out = append(out, Failure{Class: ClassReadOnlyWrite, Event: e})
				continue
			}
			if m.excused(e) {
				continue
			}
			ok := false
			if e.To != "" {
				ok = m.covered(e.To, "", writesOf) && (created[e.Path] || m.covered(e.Path, "", writesOf))
			} else {
				ok = m.covered(e.Path, e.Resolved, writesOf)
				if !ok && created[e.Path] && renamedTo[e.Path] != "" {
					// A temporary file renamed onto its target (sed -i).
					ok = m.covered(renamedTo[e.Path], "", writesOf)
				}
			}
			if !ok {
				out = append(out, Failure{Class: ClassWrite, Event: e})
			}
		case KindConnect:
			if an.ReadOnly {
				out = append(out, Failure{Class: ClassReadOnlyConnect, Event: e})
				continue
			}
			if !m.excused(e) && !m.netCovered() {
				out = append(out, Failure{Class: ClassConnect, Event: e})
			}
		case KindRead:
			if created[e.Path] && strings.Contains(e.Flags, "O_RDWR") && strings.Contains(e.Flags, "O_CREAT") {
				// A file the program creates for itself (sed -i's temporary
				// file): its reads are not reads of the project.
				continue
			}
			if m.excused(e) || m.covered(e.Path, e.Resolved, readsOf) {
				continue
			}
			out = append(out, Failure{Class: ClassRead, Event: e})
		}
	}
	return out
}

// Trace is what bash did with one command string.
type Trace struct {
	// Cmd is the command string given to bash -c.
	Cmd string
	// Cwd and Home are the directory bash started in and its $HOME.
	Cwd, Home string
	// Events lists the executions, writes and reads, per process in order.
	Events []Event
	// NotFound names programs bash looked for and did not find.
	NotFound []string `json:",omitempty"`
	// TimedOut reports that the command was killed at the time limit.
	TimedOut bool `json:",omitempty"`
	// Stderr holds the start of bash's standard error.
	Stderr string `json:",omitempty"`
	// BadLines counts strace lines the harness could not read.
	BadLines int `json:",omitempty"`
	// Skipped says why the command was not run (bash cannot be given it).
	Skipped string `json:",omitempty"`
	// Err is a harness failure; the events are then incomplete.
	Err string `json:",omitempty"`
	// Timing shows where the time of the last run went.
	Timing string `json:",omitempty"`
	// helperDied reports that the helper process stopped answering.
	helperDied bool
	// Runs counts the bash runs it took (a run is repeated after shims are
	// added for programs that were not found).
	Runs int `json:",omitempty"`
}

type matcher struct {
	an   *shell.Analysis
	home string
}

// writesOf returns the refs that stand for files a command writes: its
// Writes and Redirects, and for a command that may write what it names
// (MayWrite: an unmodelled command) its argument paths too.
func writesOf(c *shell.Command) [][]shell.PathRef {
	if c.MayWrite {
		return [][]shell.PathRef{c.Writes, c.Redirects, c.ArgPaths}
	}
	return [][]shell.PathRef{c.Writes, c.Redirects}
}
func readsOf(c *shell.Command) [][]shell.PathRef { return [][]shell.PathRef{c.Reads, c.ArgPaths} }

// excused reports an event that comes from code the analysis declared it
// cannot read, or from a program whose own execution is already judged:
//   - some program running in the process or an ancestor is a command the
//     analysis reported unanalysable (python3 -c, bash -c "$x", a shell
//     reading its program from a pipe...);
//   - some such program is no analysed command at all (its exec is the
//     failure, what it does next is not another one);
//   - the event happens in a shell (the top-level bash, a subshell, or a
//     nested shell whose script was analysed) and some builtin that runs
//     code in place (eval "$x", source, trap, ...) is unanalysable.
func (m *matcher) excused(e Event) bool {
	for _, argv := range e.Chain {
		cmds := m.commandsFor(argv, "")
		if len(cmds) == 0 {
			return true
		}
		for _, c := range cmds {
			if c.Unanalysable != "" || runsFile(c) {
				return true
			}
		}
	}
	if n := len(e.Chain); n > 0 && (len(e.Chain[n-1]) == 0 || !shells[path.Base(e.Chain[n-1][0])]) {
		return false
	}
	for _, c := range m.an.Commands {
		if c.Unanalysable == "" && !runsFile(c) {
			continue
		}
		if len(c.Words) == 0 || !c.Words[0].Static || inProcess[c.Words[0].Value] {
			return true
		}
		// Arithmetic and array subscripts are evaluated by bash itself while
		// it expands any command's words.
		if strings.Contains(c.Unanalysable, "arithmetic") || strings.Contains(c.Unanalysable, "subscript") {
			return true
		}
	}
	// The same for an arithmetic command or expansion the analysis could
	// not tie to a command ((( x )) on its own).
	for _, is := range m.an.Unanalysable {
		if strings.Contains(is.Message, "arithmetic") || strings.Contains(is.Message, "subscript") {
			return true
		}
	}
	return false
}

// runsFile reports a command that runs the code of a file (a shell or an
// interpreter given a script, source, .), which the analysis marks
// ExactOnly: only an exact rule naming it may approve it, and what the
// file does is not the analysis's to report.
func runsFile(c *shell.Command) bool {
	if !c.ExactOnly {
		return false
	}
	// Any reading: the runner may sit behind a wrapper (chrt 0 sh x.sh).
	for _, f := range c.Forms {
		if len(f) > 0 && f[0].Static && scriptRunners[path.Base(f[0].Value)] {
			return true
		}
	}
	return false
}

// scriptRunners are the programs and builtins that run a file's code.
var scriptRunners = map[string]bool{}

func init() {
	for _, p := range strings.Fields("bash sh dash zsh ksh mksh fish source . python python2 python3 node nodejs deno bun perl ruby php lua") {
		scriptRunners[p] = true
	}
}

// shells are the programs that run scripts in their own process.
var shells = map[string]bool{"bash": true, "sh": true, "dash": true}

// inProcess lists the builtins that can run code inside the calling bash.
var inProcess = map[string]bool{}

func init() {
	// Code strings (eval, source, trap, compgen -C/-W, complete, fc, bind -x,
	// enable -f, alias), command and builtin (which run any builtin, cd and
	// eval included, in place) and variable names whose array subscripts
	// are evaluated as arithmetic, which may hold command substitutions.
	for _, b := range strings.Fields("eval source . trap compgen complete fc bind enable alias command builtin " +
		"mapfile readarray let declare typeset local export readonly unset printf test [ [[ read getopts") {
		inProcess[b] = true
	}
}

// netCovered reports whether the analysis names some /dev/tcp or /dev/udp
// path (strace does not always show the address as bash spelt it).
func (m *matcher) netCovered() bool {
	for _, c := range m.an.Commands {
		for _, refs := range [][]shell.PathRef{c.Writes, c.Redirects, c.Reads, c.ArgPaths} {
			for _, r := range refs {
				if r.Path == "" || strings.HasPrefix(r.Path, "/dev/tcp/") || strings.HasPrefix(r.Path, "/dev/udp/") {
					return true
				}
			}
		}
	}
	return false
}

// covered reports whether some command's refs (as chosen by sel) name p or
// resolved.
func (m *matcher) covered(p, resolved string, sel func(*shell.Command) [][]shell.PathRef) bool {
	for _, c := range m.an.Commands {
		for _, refs := range sel(c) {
			for _, r := range refs {
				if refCovers(r, p) || resolved != "" && refCovers(r, resolved) {
					return true
				}
			}
		}
	}
	return false
}

// refCovers reports whether r names p: the same path, a directory above
// it, a glob matching it, or a reference that cannot be placed at all.
func refCovers(r shell.PathRef, p string) bool {
	if r.Path == "" {
		return true
	}
	rp := path.Clean(r.Path)
	if rp == p || rp == "/" || strings.HasPrefix(p, rp+"/") {
		return true
	}
	if r.Glob {
		if ok, err := path.Match(rp, p); ok || err != nil {
			return true
		}
		if globPrefixCovers(rp, p) {
			return true
		}
	}
	return false
}

// globPrefixCovers reports whether p lies under a directory the glob
// pattern could match.
func globPrefixCovers(pattern, p string) bool {
	segs := strings.Split(p, "/")
	for i := len(segs) - 1; i > 0; i-- {
		if ok, _ := path.Match(pattern, strings.Join(segs[:i], "/")); ok {
			return true
		}
	}
	return false
}

// commandsFor returns the analysed commands one of whose readings stands
// for argv (or, when argv is empty, the program at prog).
func (m *matcher) commandsFor(argv []string, prog string) []*shell.Command {
	var out []*shell.Command
	for _, c := range m.an.Commands {
		forms := append([][]shell.Word{c.Words}, c.Forms...)
		for _, f := range forms {
			if m.formMatches(f, argv, prog) {
				out = append(out, c)
				break
			}
		}
	}
	if len(out) == 0 && len(argv) > 1 && (prog == "/bin/sh" || prog == "/usr/bin/sh" || prog == "" && (argv[0] == "/bin/sh" || argv[0] == "sh")) {
		// A file without a #! line that a POSIX shell could not execute
		// (ENOEXEC) is run by /bin/sh: it is the command that named the
		// file.
		return m.commandsFor(argv[1:], "")
	}
	return out
}

// flexible reports a word that may stand for any number of arguments: a
// non-static word, or one bash may expand (globs, braces, a tilde).
func flexible(w shell.Word) bool {
	return !w.Static || strings.ContainsAny(w.Value, "*?[{~") || w.Value == ""
}

func (m *matcher) formMatches(f []shell.Word, argv []string, prog string) bool {
	if len(f) == 0 {
		return false
	}
	if !f[0].Static {
		return true
	}
	if len(argv) == 0 {
		return false
	}
	// The program is the file bash executed (hash -p and exec -a make
	// argv[0] say something else); for an owner, argv[0].
	name := path.Base(f[0].Value)
	actual := path.Base(argv[0])
	if prog != "" {
		actual = path.Base(prog)
	}
	if name != actual {
		// A glob or tilde in the program word may still expand to it.
		return flexible(f[0]) && matchWords(f, argv, m)
	}
	return matchWords(f[1:], argv[1:], m)
}

// wordEquals compares a static word with one argument, reading a leading
// tilde as the home directory.
func (m *matcher) wordEquals(w shell.Word, arg string) bool {
	if w.Value == arg {
		return true
	}
	if m.home != "" && (w.Value == "~" || strings.HasPrefix(w.Value, "~/")) {
		return m.home+w.Value[1:] == arg
	}
	return false
}

// matchWords matches words against args: a flexible word consumes zero or
// more arguments, any other word exactly one equal argument.
func matchWords(words []shell.Word, args []string, m *matcher) bool {
	memo := map[[2]int]bool{}
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		if i == len(words) {
			return j == len(args)
		}
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		res := false
		if flexible(words[i]) {
			for k := j; k <= len(args) && !res; k++ {
				res = rec(i+1, k)
			}
			// A flexible word may also be one literal argument.
		} else if j < len(args) && m.wordEquals(words[i], args[j]) {
			res = rec(i+1, j+1)
		}
		memo[key] = res
		return res
	}
	return rec(0, 0)
}

// Describe renders a failing case for a human: the command, what bash did,
// and what the analysis reported.
func Describe(tr *Trace, an *shell.Analysis, fails []Failure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "command: %q\n", tr.Cmd)
	for _, f := range fails {
		fmt.Fprintf(&b, "  MISSED %s\n", f)
	}
	fmt.Fprintf(&b, "  bash did:\n")
	for _, e := range tr.Events {
		fmt.Fprintf(&b, "    %s\n", e)
	}
	if tr.Stderr != "" {
		fmt.Fprintf(&b, "  stderr: %q\n", tr.Stderr)
	}
	fmt.Fprintf(&b, "  analysis: readOnly=%v unanalysable=%v unsafeAssign=%v\n", an.ReadOnly, an.Unanalysable, an.UnsafeAssign)
	for _, c := range an.Commands {
		fmt.Fprintf(&b, "    cmd %q words=%s", c.Text, wordsString(c.Words))
		for _, f := range c.Forms {
			fmt.Fprintf(&b, " form=%s", wordsString(f))
		}
		if c.Unanalysable != "" {
			fmt.Fprintf(&b, " unanalysable=%q", c.Unanalysable)
		}
		if c.ExactOnly {
			fmt.Fprintf(&b, " exactOnly")
		}
		if c.Wrapper {
			fmt.Fprintf(&b, " wrapper")
		}
		fmt.Fprintf(&b, " ro=%v writes=%s redirects=%s reads=%s argpaths=%s\n", c.ReadOnly,
			refsString(c.Writes), refsString(c.Redirects), refsString(c.Reads), refsString(c.ArgPaths))
	}
	return b.String()
}

func wordsString(ws []shell.Word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if w.Static {
			parts[i] = fmt.Sprintf("%q", w.Value)
		} else {
			parts[i] = "$(" + w.Value + ")"
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func refsString(rs []shell.PathRef) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		s := r.Path
		if s == "" {
			s = "?" + r.Text
		}
		if r.Glob {
			s += "(glob)"
		}
		if r.Dynamic {
			s += "(dyn)"
		}
		parts[i] = s
	}
	return "[" + strings.Join(parts, " ") + "]"
}
