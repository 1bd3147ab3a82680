package pathmatch

import "strings"

// ProcKind says what a path through /proc or /dev/fd names.
type ProcKind uint8

const (
	// NotProc is a path that names no other place.
	NotProc ProcKind = iota
	// ProcAlias is a path under the working directory or the root of the
	// process that opens it (/proc/self/cwd/…, /proc/self/root/…): it names
	// the place ProcAlias returns with it.
	ProcAlias
	// ProcUnknown is a path under the working directory, root, executable
	// or mapped files of another process (/proc/1234/cwd/…), or under the
	// process's own when its working directory is not known: the place it
	// names cannot be told.
	ProcUnknown
	// ProcDescriptor is an open file descriptor (/proc/self/fd/3,
	// /dev/fd/3, /dev/stdin): it names whatever file is open there.
	ProcDescriptor
)

// Proc reads an absolute clean path that may name another place through
// the kernel's per-process directories: the working directory (cwd), root
// directory (root), executable (exe), mapped files (map_files) and open
// descriptors (fd) of a process, of a thread (task/TID), of the process
// itself (self, thread-self), and /dev/fd and /dev/std{in,out,err}. cwd is
// the working directory of the process that opens the path; for
// ProcAlias it returns the absolute clean path the alias stands for.
func Proc(abs, cwd string) (string, ProcKind) {
	switch {
	case abs == "/dev/stdin" || abs == "/dev/stdout" || abs == "/dev/stderr" || abs == "/dev/fd" || strings.HasPrefix(abs, "/dev/fd/"):
		return "", ProcDescriptor
	case !strings.HasPrefix(abs, "/proc/"):
		return "", NotProc
	}
	rest := abs[len("/proc/"):]
	pid, rest, _ := strings.Cut(rest, "/")
	own := pid == "self" || pid == "thread-self"
	if !own && !isDecimal(pid) {
		return "", NotProc
	}
	entry, rest, _ := strings.Cut(rest, "/")
	if entry == "task" {
		// /proc/PID/task/TID/…: a thread of PID, with PID's directories.
		tid, r, _ := strings.Cut(rest, "/")
		if !isDecimal(tid) {
			return "", NotProc
		}
		entry, rest, _ = strings.Cut(r, "/")
	}
	switch entry {
	case "fd":
		return "", ProcDescriptor
	case "exe", "map_files":
		return "", ProcUnknown
	case "cwd", "root":
	default:
		return "", NotProc // a file of the kernel's own (environ, status…)
	}
	if !own {
		return "", ProcUnknown
	}
	base := "/"
	if entry == "cwd" {
		if !isAbs(cwd) {
			return "", ProcUnknown
		}
		base = cwd
	}
	if rest == "" {
		return base, ProcAlias
	}
	if base == "/" {
		return "/" + rest, ProcAlias
	}
	return base + "/" + rest, ProcAlias
}

func isDecimal(s string) bool {
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
