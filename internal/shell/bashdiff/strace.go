package bashdiff

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// Kind says what an [Event] is.
type Kind string

// The kinds of events the harness records.
const (
	// KindExec is an attempt to execute a program (execve), successful or not.
	KindExec Kind = "exec"
	// KindWrite is a file opened for writing, created, truncated, renamed,
	// linked, unlinked or a directory made or removed.
	KindWrite Kind = "write"
	// KindRead is a file opened for reading by bash itself or by one of
	// the real programs the sandbox lets run (sourced files, < redirections,
	// $(<file), a script given to bash, sed's input, ...).
	KindRead Kind = "read"
	// KindConnect is a network connection (bash's /dev/tcp and /dev/udp);
	// Path is /dev/tcp/ADDR/PORT or /dev/udp/ADDR/PORT as far as strace
	// shows the address.
	KindConnect Kind = "connect"
)

// Event is one thing bash (or a real wrapper it ran) did.
type Event struct {
	Kind Kind
	// Pid is the process that did it.
	Pid int
	// Path is the absolute program path (exec) or file path (read, write)
	// as requested, made absolute against the caller's directory and
	// cleaned lexically.
	Path string
	// To is the new name of a rename or link.
	To string `json:",omitempty"`
	// Resolved is the path the kernel opened, when the call succeeded and
	// strace could name it (symbolic links resolved).
	Resolved string `json:",omitempty"`
	// Argv is the argument vector of an exec.
	Argv []string `json:",omitempty"`
	// Op is the system call.
	Op string
	// Flags holds the open flags of an open.
	Flags string `json:",omitempty"`
	// Err is the error name when the call failed ("ENOENT"), else "".
	Err string `json:",omitempty"`
	// Owner is the argv of the program the process was running or was
	// about to exec when it did this; nil for the top-level bash and for
	// subshells that never exec. It is shown in reports.
	Owner []string `json:",omitempty"`
	// Chain lists the argv of every real program (a shell, a wrapper)
	// running in the process or its ancestors when it did this, outermost
	// first; empty for the top-level bash and its subshells.
	Chain [][]string `json:",omitempty"`
}

func (e Event) String() string {
	s := string(e.Kind) + " " + e.Op
	if e.Kind == KindExec {
		s += fmt.Sprintf(" %s %q", e.Path, e.Argv)
	} else {
		s += " " + e.Path
		if e.To != "" {
			s += " -> " + e.To
		}
		if e.Resolved != "" && e.Resolved != e.Path {
			s += " (opened " + e.Resolved + ")"
		}
	}
	if e.Err != "" {
		s += " = " + e.Err
	}
	if e.Owner != nil {
		s += fmt.Sprintf(" [owner %q]", e.Owner)
	}
	return s
}

// call is one parsed strace line.
type call struct {
	name string
	args []string
	ret  string // the text after " = "
}

// retVal returns the numeric return value and the error name, if any.
func (c call) retVal() (n int64, errName string, decoration string) {
	r := strings.TrimSpace(c.ret)
	num := r
	if i := strings.IndexAny(r, " <"); i >= 0 {
		num = r[:i]
		rest := r[i:]
		if strings.HasPrefix(rest, "<") {
			if j := matchClose(rest, 0); j > 0 {
				decoration = rest[1:j]
			}
		} else {
			f := strings.Fields(rest)
			if len(f) > 0 && strings.HasPrefix(f[0], "E") {
				errName = f[0]
			}
		}
	}
	v, err := strconv.ParseInt(num, 0, 64)
	if err != nil {
		return -1, "EUNKNOWN", ""
	}
	return v, errName, decoration
}

// matchClose returns the index of the bracket closing the one at s[i].
func matchClose(s string, i int) int {
	depth := 0
	inStr := false
	for j := i; j < len(s); j++ {
		ch := s[j]
		if inStr {
			if ch == '\\' {
				j++
			} else if ch == '"' {
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// parseLine parses `name(args) = ret`. It reports false for signal and
// exit lines and anything else it cannot read.
func parseLine(line string) (call, bool) {
	open := strings.IndexByte(line, '(')
	if open <= 0 {
		return call{}, false
	}
	name := line[:open]
	for _, ch := range name {
		if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_') {
			return call{}, false
		}
	}
	end := matchClose(line, open)
	if end < 0 {
		return call{}, false
	}
	rest := line[end+1:]
	eq := strings.Index(rest, "= ")
	if eq < 0 {
		return call{}, false
	}
	return call{name: name, args: splitTop(line[open+1 : end]), ret: rest[eq+2:]}, true
}

// splitTop splits s at commas outside strings and brackets.
func splitTop(s string) []string {
	var out []string
	depth := 0
	inStr := false
	start := 0
	for j := 0; j < len(s); j++ {
		ch := s[j]
		if inStr {
			if ch == '\\' {
				j++
			} else if ch == '"' {
				inStr = false
			}
			continue
		}
		switch ch {
		case '"':
			inStr = true
		case '(', '[', '{', '<':
			depth++
		case ')', ']', '}', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:j]))
				start = j + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" || len(out) > 0 {
		out = append(out, t)
	}
	return out
}

// unquote decodes a strace string argument ("\x2f\x62..." possibly
// followed by "..." when truncated). ok is false when tok is not a string.
func unquote(tok string) (s string, ok bool) {
	tok = strings.TrimSpace(tok)
	if !strings.HasPrefix(tok, "\"") {
		return "", false
	}
	var b strings.Builder
	for j := 1; j < len(tok); j++ {
		ch := tok[j]
		if ch == '"' {
			return b.String(), true
		}
		if ch != '\\' || j+1 >= len(tok) {
			b.WriteByte(ch)
			continue
		}
		j++
		switch e := tok[j]; e {
		case 'x':
			if j+2 < len(tok) {
				v, err := strconv.ParseUint(tok[j+1:j+3], 16, 8)
				if err == nil {
					b.WriteByte(byte(v))
					j += 2
					continue
				}
			}
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			k := j
			for k < len(tok) && k < j+3 && tok[k] >= '0' && tok[k] <= '7' {
				k++
			}
			v, _ := strconv.ParseUint(tok[j:k], 8, 8)
			b.WriteByte(byte(v))
			j = k - 1
		default:
			b.WriteByte(e)
		}
	}
	return b.String(), true
}

// unquoteArray decodes ["a", "b"].
func unquoteArray(tok string) ([]string, bool) {
	tok = strings.TrimSpace(tok)
	if !strings.HasPrefix(tok, "[") || !strings.HasSuffix(tok, "]") {
		return nil, false
	}
	var out []string
	for _, el := range splitTop(tok[1 : len(tok)-1]) {
		if el == "" {
			continue
		}
		s, ok := unquote(el)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// fdDir reads a directory descriptor argument decorated by strace -y:
// AT_FDCWD</abs/dir> or 3</abs/dir>.
func fdDir(tok string) string {
	i := strings.IndexByte(tok, '<')
	if i < 0 || !strings.HasSuffix(tok, ">") {
		return ""
	}
	s, _ := unquote("\"" + tok[i+1:len(tok)-1] + "\"")
	return s
}

// procLog is one process's calls, from one strace -ff output file.
type procLog struct {
	pid   int
	calls []call
	// bad counts lines that could not be parsed.
	bad int
}

// readProcLog reads one strace -ff file, joining unfinished and resumed
// halves of a call.
func readProcLog(pid int, r io.Reader) (*procLog, error) {
	pl := &procLog{pid: pid}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	pending := ""
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "+++") {
			continue
		}
		if i := strings.Index(line, " <unfinished ...>"); i >= 0 {
			pending = line[:i]
			continue
		}
		if strings.HasPrefix(line, "<... ") {
			if j := strings.Index(line, " resumed>"); j >= 0 && pending != "" {
				line = pending + line[j+len(" resumed>"):]
				pending = ""
			}
		}
		c, ok := parseLine(line)
		if !ok {
			pl.bad++
			continue
		}
		pl.calls = append(pl.calls, c)
	}
	return pl, sc.Err()
}

// traceState is the program a traced process is running.
type traceState struct {
	// opaque: the process runs a shim or a user script; its own activity
	// is not bash's and is not recorded.
	opaque bool
	argv   []string
	// chain holds the argv of every real program from the top-level bash
	// down to this process (outermost first); empty in bash itself.
	chain [][]string
}

// decoder turns process logs into events.
type decoder struct {
	// realDirs holds the directories where programs in realTools are
	// found (/usr/bin and the like).
	realDirs map[string]bool
	// realTools names the programs that run for real (bash, env, xargs...);
	// any other program is a shim or a user script and opaque.
	realTools map[string]bool
	// ignore reports a path the harness must not record (bash's here-doc
	// temporary files).
	ignore func(p string) bool
	// cwd is the directory bash starts in.
	cwd string
	// rootExe is the path of the top-level bash the harness starts.
	rootExe string
	// notFound collects program names bash looked for in /usr/bin and did
	// not find.
	notFound map[string]bool
}

// decode walks the processes from the root (the first process in logs
// whose first call is the exec of rootExe).
func (d *decoder) decode(logs map[int]*procLog, root int) []Event {
	var events []Event
	type work struct {
		pid int
		st  traceState
		cwd string
	}
	queue := []work{{root, traceState{}, d.cwd}}
	seen := map[int]bool{}
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		if seen[w.pid] {
			continue
		}
		seen[w.pid] = true
		pl := logs[w.pid]
		if pl == nil {
			continue
		}
		var evs []Event
		st := w.st
		cwd := w.cwd
		for i, c := range pl.calls {
			n, errName, deco := c.retVal()
			for _, a := range c.args {
				if strings.HasPrefix(a, "AT_FDCWD<") {
					if dir := fdDir(a); dir != "" {
						cwd = dir
					}
				}
			}
			switch c.name {
			case "clone", "clone3", "fork", "vfork":
				if n > 0 {
					queue = append(queue, work{int(n), st, cwd})
				}
				continue
			case "execve", "execveat":
				pi, ai := 0, 1
				if c.name == "execveat" {
					pi, ai = 1, 2
				}
				if len(c.args) <= ai {
					continue
				}
				p, _ := unquote(c.args[pi])
				argv, _ := unquoteArray(c.args[ai])
				abs := d.abs(cwd, c, -1, p)
				if w.pid == root && i == 0 && p == d.rootExe {
					continue
				}
				if path.Dir(abs) == "/usr/bin" && errName == "ENOENT" {
					d.notFound[path.Base(abs)] = true
				}
				if !st.opaque {
					evs = append(evs, Event{Kind: KindExec, Pid: w.pid, Path: abs, Argv: argv, Op: c.name, Err: errName, Owner: st.argv, Chain: st.chain})
				}
				if n == 0 && errName == "" {
					transparent := d.realDirs[path.Dir(abs)] && d.realTools[path.Base(abs)]
					chain := append(append([][]string(nil), st.chain...), argv)
					st = traceState{opaque: !transparent || st.opaque, argv: argv, chain: chain}
				}
				continue
			case "newfstatat", "stat", "lstat", "statx":
				if errName == "ENOENT" && len(c.args) >= 2 {
					ai := 0
					if c.name != "stat" && c.name != "lstat" {
						ai = 1
					}
					p, ok := unquote(c.args[ai])
					if ok && path.Dir(p) == "/usr/bin" {
						d.notFound[path.Base(p)] = true
					}
				}
				continue
			}
			if st.opaque {
				continue
			}
			for _, ev := range d.fileEvents(cwd, c, errName, deco) {
				ev.Pid = w.pid
				ev.Owner = st.argv
				ev.Chain = st.chain
				evs = append(evs, ev)
			}
		}
		// A forked child that redirects and then execs: the exec's argv owns
		// what came before it.
		var next []string
		for i := len(evs) - 1; i >= 0 && w.pid != root; i-- {
			if evs[i].Kind == KindExec {
				next = evs[i].Argv
				continue
			}
			if evs[i].Owner == nil {
				evs[i].Owner = next
			}
		}
		events = append(events, evs...)
	}
	return events
}

// abs makes p absolute against the directory argument dirArg of c (for
// *at calls) or cwd.
func (d *decoder) abs(cwd string, c call, dirArg int, p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	dir := cwd
	if dirArg >= 0 && dirArg < len(c.args) {
		if fd := fdDir(c.args[dirArg]); fd != "" {
			dir = fd
		}
	}
	return path.Clean(path.Join(dir, p))
}

// fileEvents turns one call into read and write events.
func (d *decoder) fileEvents(cwd string, c call, errName, deco string) []Event {
	str := func(i int) string {
		if i >= len(c.args) {
			return ""
		}
		s, _ := unquote(c.args[i])
		return s
	}
	at := func(dirArg, pathArg int) string {
		if dirArg < 0 {
			return d.abs(cwd, c, -1, str(pathArg))
		}
		return d.abs(cwd, c, dirArg, str(pathArg))
	}
	var out []Event
	add := func(k Kind, p string) {
		if d.ignored(p) {
			return
		}
		if k == KindRead && d.realDirs[path.Dir(p)] {
			// The shims themselves (found by source's PATH search, or read
			// by a shell given a program): not files of the project.
			return
		}
		ev := Event{Kind: k, Path: p, Op: c.name, Err: errName}
		if deco != "" && (strings.HasPrefix(c.name, "open") || c.name == "creat") {
			if r, ok := unquote("\"" + deco + "\""); ok && strings.HasPrefix(r, "/") {
				ev.Resolved = r
				if d.ignored(r) {
					return
				}
			}
		}
		out = append(out, ev)
	}
	addTo := func(from, to string) {
		if d.ignored(from) && d.ignored(to) {
			return
		}
		out = append(out, Event{Kind: KindWrite, Path: from, To: to, Op: c.name, Err: errName})
	}
	switch c.name {
	case "open", "openat", "openat2":
		pi, fi, di := 0, 1, -1
		if c.name != "open" {
			pi, fi, di = 1, 2, 0
		}
		p := at(di, pi)
		flags := ""
		if fi < len(c.args) {
			flags = c.args[fi]
		}
		wr := strings.Contains(flags, "O_WRONLY") || strings.Contains(flags, "O_RDWR") ||
			strings.Contains(flags, "O_CREAT") || strings.Contains(flags, "O_TRUNC") || strings.Contains(flags, "O_APPEND")
		// The C library opens its own files (the loader cache and
		// libraries, locale, NSS) with O_CLOEXEC; programs may open their
		// inputs that way too (xargs -a), so close-on-exec reads are dropped
		// only under the system directories.
		rd := !strings.Contains(flags, "O_WRONLY") && !strings.Contains(flags, "O_DIRECTORY") &&
			!strings.Contains(flags, "O_PATH") && !(strings.Contains(flags, "O_CLOEXEC") && systemPath(p))
		n0 := len(out)
		if wr {
			add(KindWrite, p)
		}
		if rd {
			add(KindRead, p)
		}
		for i := n0; i < len(out); i++ {
			out[i].Flags = flags
		}
	case "creat", "truncate", "unlink", "rmdir", "mkdir", "mknod":
		add(KindWrite, at(-1, 0))
	case "unlinkat", "mkdirat", "mknodat":
		add(KindWrite, at(0, 1))
	case "rename", "link":
		addTo(at(-1, 0), at(-1, 1))
	case "renameat", "renameat2", "linkat":
		addTo(at(0, 1), at(2, 3))
	case "connect":
		if len(c.args) >= 2 && strings.Contains(c.args[1], "AF_INET") {
			proto := "tcp"
			if strings.Contains(c.args[0], "UDP") {
				proto = "udp"
			}
			addr := c.args[1]
			if i := strings.Index(addr, "inet_addr("); i >= 0 {
				if a, ok := unquote(addr[i+len("inet_addr("):]); ok {
					addr = a
				}
			} else if i := strings.Index(addr, "inet_pton(AF_INET6, "); i >= 0 {
				if a, ok := unquote(addr[i+len("inet_pton(AF_INET6, "):]); ok {
					addr = a
				}
			}
			port := ""
			if i := strings.Index(c.args[1], "htons("); i >= 0 {
				port = strings.TrimRight(strings.SplitN(c.args[1][i+len("htons("):], ")", 2)[0], " ")
			}
			out = append(out, Event{Kind: KindConnect, Path: "/dev/" + proto + "/" + addr + "/" + port, Op: c.name, Err: errName})
		}
	case "symlink":
		add(KindWrite, at(-1, 1))
	case "symlinkat":
		add(KindWrite, at(1, 2))
	}
	return out
}

// systemPath reports a path under the directories the C library reads its
// own files from.
func systemPath(p string) bool {
	for _, dir := range []string{"/etc/", "/usr/", "/lib", "/proc/", "/sys/", "/dev/", "/run/", "/var/"} {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}

// ignored reports paths that are not files: the null device, the
// terminal, descriptors, and the harness's own temporary files.
func (d *decoder) ignored(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/random", "/dev/urandom":
		return true
	}
	if strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") || strings.HasPrefix(p, "/proc/thread-self/fd/") {
		return true
	}
	if strings.HasPrefix(p, "/proc/") {
		if rest := strings.TrimPrefix(p, "/proc/"); strings.Contains(rest, "/fd/") {
			return true
		}
	}
	if strings.HasPrefix(p, "pipe:") || strings.HasPrefix(p, "socket:") {
		return true
	}

	return d.ignore != nil && d.ignore(p)
}

// newDecoder returns a decoder for the sandbox's layout.
func newDecoder(real []string, cwd, rootExe, tmp string) *decoder {
	d := &decoder{realDirs: map[string]bool{}, realTools: map[string]bool{}, cwd: cwd, rootExe: rootExe, notFound: map[string]bool{}}
	for _, p := range []string{"/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin"} {
		d.realDirs[p] = true
	}
	for _, r := range real {
		d.realTools[r] = true
	}
	d.ignore = func(p string) bool {
		// bash's here-document temporary files.
		return strings.HasPrefix(p, tmp+"/sh-thd") || strings.HasPrefix(p, tmp+"/sh-np")
	}
	return d
}
