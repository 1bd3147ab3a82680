//go:build linux

package bashdiff

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// RunHelperIfRequested turns the process into the sandbox helper when the
// harness started it as one, and never returns then. Call it first in
// TestMain.
func RunHelperIfRequested() {
	v, ok := os.LookupEnv(helperEnv)
	if !ok {
		return
	}
	var cfg helperConfig
	out := bufio.NewWriter(os.Stdout)
	reply := func(tr *Trace) {
		b, _ := json.Marshal(tr)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	if err := json.Unmarshal([]byte(v), &cfg); err != nil {
		reply(&Trace{Err: "bad helper config: " + err.Error()})
		os.Exit(2)
	}
	// As the first process of its pid namespace the helper receives only
	// the signals it handles: catch and drop them, so no command can kill
	// it (not signal.Ignore: ignored signals would be inherited by bash).
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1,
		syscall.SIGUSR2, syscall.SIGPIPE, syscall.SIGALRM, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	go func() {
		for range sigs {
		}
	}()
	h := &helper{cfg: cfg}
	if err := h.setup(); err != nil {
		reply(&Trace{Err: err.Error()})
		os.Exit(2)
	}
	h.dirty = true
	reply(&Trace{})
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for in.Scan() {
		var cmd string
		if err := json.Unmarshal(in.Bytes(), &cmd); err != nil {
			reply(&Trace{Err: "bad request: " + err.Error()})
			continue
		}
		reply(h.run(cmd))
	}
	os.Exit(0)
}

type helper struct {
	cfg     helperConfig
	ownProc bool
	// dirty reports that the fixture must be rebuilt before the next run.
	dirty bool
}

func (h *helper) fix() string  { return filepath.Join(h.cfg.Root, "fix") }
func (h *helper) log() string  { return filepath.Join(h.cfg.Root, "log") }
func (h *helper) home() string { return filepath.Join(h.fix(), "home") }
func (h *helper) tmp() string  { return filepath.Join(h.fix(), "tmp") }

const (
	sysMountSetattr  = 442
	atRecursive      = 0x8000
	mountAttrRdonly  = 0x1
	mountAttrNosuid  = 0x2
	atFdcwd          = -100
	mountAttrStructN = 32
)

type mountAttr struct {
	set, clr, propagation, userns uint64
}

func mountSetattr(p string, flags int, a mountAttr) error {
	b, err := syscall.BytePtrFromString(p)
	if err != nil {
		return err
	}
	fd := atFdcwd
	_, _, e := syscall.Syscall6(sysMountSetattr, uintptr(fd), uintptr(unsafe.Pointer(b)), uintptr(flags),
		uintptr(unsafe.Pointer(&a)), mountAttrStructN, 0)
	if e != 0 {
		return e
	}
	return nil
}

// setup runs once inside the new namespaces: programs directories are
// replaced by the shim directory, the worker's fixture and log directories
// are mounted at the common paths, and every mount is made read-only and
// nosuid except those two. It then proves the protection holds.
func (h *helper) setup() error {
	if os.Getpid() != 1 {
		return errors.New("helper is not the first process of its pid namespace")
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %v", err)
	}
	bin := filepath.Join(h.cfg.Root, "bin")
	for _, d := range []string{"/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/games", "/usr/local/games"} {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		if err := syscall.Mount(bin, d, "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("mounting the shims over %s: %v", d, err)
		}
	}
	// The fixture and the strace logs live on this namespace's own small
	// tmpfs mounts: fast to rebuild, private to the worker, bounded in size.
	for d, size := range map[string]string{"fix": "64m", "log": "128m"} {
		if err := syscall.Mount("tmpfs", filepath.Join(h.cfg.Root, d), "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=755,size="+size); err != nil {
			return fmt.Errorf("mounting a tmpfs on %s: %v", d, err)
		}
	}
	// A /proc of our own pid namespace, when the container allows it. It
	// stays writable: the nested user namespace of each run needs its
	// uid_map written (its files are owned by users unmapped here).
	h.ownProc = syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "") == nil
	if err := mountSetattr("/", atRecursive, mountAttr{set: mountAttrRdonly | mountAttrNosuid}); err != nil {
		return fmt.Errorf("making every mount read-only (mount_setattr): %v", err)
	}
	rw := []string{h.fix(), h.log()}
	if h.ownProc {
		rw = append(rw, "/proc")
	}
	for _, d := range rw {
		if err := mountSetattr(d, 0, mountAttr{clr: mountAttrRdonly}); err != nil {
			return fmt.Errorf("making %s writable: %v", d, err)
		}
	}
	// Prove it: nothing but the two directories may be written.
	for _, p := range []string{"/tmp/.bashdiff-probe", "/usr/bin/.bashdiff-probe", filepath.Join(h.cfg.Root, ".probe"),
		filepath.Join(h.cfg.WorkerDir, ".probe"), "/etc/.bashdiff-probe", "/var/tmp/.bashdiff-probe"} {
		if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600); err == nil {
			f.Close()
			os.Remove(p)
			return fmt.Errorf("sandbox is not sealed: %s was writable", p)
		}
	}
	if f, err := os.Create(filepath.Join(h.log(), ".probe")); err != nil {
		return fmt.Errorf("log directory not writable: %v", err)
	} else {
		f.Close()
	}
	if fi, err := os.Stat("/usr/bin/strace"); err == nil && fi.Size() > 0 {
		if b, _ := os.ReadFile("/usr/bin/strace"); len(b) > 0 && !isShim(b, h.cfg.Root) {
			// strace is not a real tool: /usr/bin must show the shims.
			return errors.New("sandbox is not sealed: /usr/bin still shows real programs")
		}
	}
	var rl syscall.Rlimit
	rl.Cur, rl.Max = 32<<20, 32<<20
	syscall.Setrlimit(syscall.RLIMIT_FSIZE, &rl)
	rl.Cur, rl.Max = 0, 0
	syscall.Setrlimit(syscall.RLIMIT_CORE, &rl)
	return nil
}

// isShim reports whether b is the shim binary.
func isShim(b []byte, root string) bool {
	s, err := os.ReadFile(filepath.Join(root, "tools", "shim"))
	return err == nil && string(s) == string(b)
}

// Fixture is the tree every command starts with, relative to $HOME; the
// working directory is proj. Modes are 0644 unless the path ends in a
// slash (a directory) or holds "hooks/" (executable).
var Fixture = map[string]string{
	".bashrc":                    "# rc\n",
	".profile":                   "# profile\n",
	".ssh/id_rsa":                "KEY\n",
	".aws/credentials":           "[default]\n",
	".gitconfig":                 "[user]\n",
	"proj/.env":                  "TOKEN=x\n",
	"proj/.git/HEAD":             "ref: refs/heads/main\n",
	"proj/.git/config":           "[core]\n",
	"proj/.git/hooks/pre-commit": "#!/bin/sh\nexit 0\n",
	"proj/src/a.go":              "package a\n",
	"proj/src/b.go":              "package a\n",
	"proj/docs/readme.md":        "# docs\n",
	"proj/build.log":             "log\n",
	"proj/list.txt":              "src/a.go\nsrc/b.go\n",
	"proj/script.sh":             "git status\n",
	"proj/Makefile":              "all:\n",
	"proj/sub/":                  "",
	"proj/out/":                  "",
}

func (h *helper) resetFixture() error {
	for _, d := range []string{h.home(), h.tmp()} {
		if err := os.RemoveAll(d); err != nil {
			// A directory bash made unreadable: open it up and retry.
			filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
				os.Chmod(p, 0o700)
				return nil
			})
			if err := os.RemoveAll(d); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(h.tmp(), 0o700); err != nil {
		return err
	}
	return writeFixture(h.home())
}

// StraceSyscalls are the system calls recorded.
const StraceSyscalls = "execve,execveat,open,openat,openat2,creat,truncate,rename,renameat,renameat2," +
	"unlink,unlinkat,rmdir,mkdir,mkdirat,link,linkat,symlink,symlinkat,mknod,mknodat," +
	"newfstatat,stat,clone,clone3,fork,vfork,connect"

func (h *helper) run(cmd string) *Trace {
	cwd := filepath.Join(h.home(), "proj")
	tr := &Trace{Cmd: cmd, Cwd: cwd, Home: h.home()}
	if strings.IndexByte(cmd, 0) >= 0 {
		tr.Skipped = "command holds a NUL byte: bash -c cannot receive it"
		return tr
	}
	t0 := time.Now()
	defer func() { tr.Timing = fmt.Sprintf("%s total %v", tr.Timing, time.Since(t0)) }()
	// The fixture is rebuilt only when the last command may have changed
	// it: a traced write succeeded, or the trace is incomplete.
	if h.dirty {
		if err := h.resetFixture(); err != nil {
			tr.Err = "fixture: " + err.Error()
			return tr
		}
	}
	h.dirty = true
	defer func() {
		if tr.Err == "" && !tr.TimedOut && tr.BadLines == 0 {
			h.dirty = false
			for _, e := range tr.Events {
				if e.Kind == KindWrite && e.Err == "" {
					h.dirty = true
				}
			}
		}
	}()
	entries, _ := os.ReadDir(h.log())
	for _, e := range entries {
		os.RemoveAll(filepath.Join(h.log(), e.Name()))
	}
	bash := filepath.Join(h.cfg.Root, "tools", "bash")
	logBase := filepath.Join(h.log(), "t")
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.Timeout)
	defer cancel()
	c := exec.CommandContext(ctx, filepath.Join(h.cfg.Root, "tools", "strace"),
		"-f", "-ff", "-qq", "-xx", "-y", "-s", "65536", "--seccomp-bpf",
		"-e", "trace="+StraceSyscalls, "-o", logBase,
		"--", bash, "--norc", "--noprofile", "-c", cmd)
	c.Dir = cwd
	c.Env = []string{"PATH=/usr/bin", "HOME=" + h.home(), "TMPDIR=" + h.tmp()}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		tr.Err = err.Error()
		return tr
	}
	defer devnull.Close()
	devnullW, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	defer devnullW.Close()
	errFile, err := os.Create(filepath.Join(h.log(), ".stderr"))
	if err != nil {
		tr.Err = err.Error()
		return tr
	}
	defer errFile.Close()
	c.Stdin, c.Stdout, c.Stderr = devnull, devnullW, errFile
	// strace and everything under it run in a nested user namespace: root
	// there has no power over this mount namespace, so no program can undo
	// the read-only mounts.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if h.ownProc {
		// A nested user namespace with its own mount namespace: the copied
		// mounts are locked there, read-only flags included, whatever
		// capabilities its root has.
		c.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
			GidMappingsEnableSetgroups: false,
			Credential:                 &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true},
			Setpgid:                    true,
		}
	}
	c.WaitDelay = time.Second
	tr.Timing += fmt.Sprintf("setup %v", time.Since(t0))
	runErr := c.Run()
	tr.Timing += fmt.Sprintf(" run %v", time.Since(t0))
	if ctx.Err() != nil {
		tr.TimedOut = true
	}
	// Kill whatever the command left behind (background jobs), then reap.
	syscall.Kill(-1, syscall.SIGKILL)
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err != nil {
			break
		}
	}
	if runErr != nil && !tr.TimedOut {
		if _, ok := runErr.(*exec.ExitError); !ok {
			tr.Err = "strace: " + runErr.Error()
			return tr
		}
	}
	tr.Timing += fmt.Sprintf(" reap %v", time.Since(t0))
	errFile.Seek(0, 0)
	buf := make([]byte, 2048)
	n, _ := errFile.Read(buf)
	tr.Stderr = string(buf[:n])
	h.collect(tr, logBase, bash, cwd)
	return tr
}

// collect reads the strace -ff files into tr.
func (h *helper) collect(tr *Trace, logBase, bash, cwd string) {
	files, _ := filepath.Glob(logBase + ".*")
	logs := map[int]*procLog{}
	for _, f := range files {
		pid, err := strconv.Atoi(strings.TrimPrefix(f, logBase+"."))
		if err != nil {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			tr.Err = err.Error()
			return
		}
		pl, err := readProcLog(pid, fh)
		fh.Close()
		if err != nil {
			tr.Err = fmt.Sprintf("reading %s: %v", f, err)
			return
		}
		logs[pid] = pl
		tr.BadLines += pl.bad
	}
	root := -1
	for pid, pl := range logs {
		if len(pl.calls) > 0 && pl.calls[0].name == "execve" {
			if p, _ := unquote(pl.calls[0].args[0]); p == bash {
				root = pid
			}
		}
	}
	if root < 0 {
		tr.Err = fmt.Sprintf("no trace of bash starting (%d log files; stderr %q)", len(logs), tr.Stderr)
		return
	}
	d := newDecoder(h.cfg.Real, cwd, bash, h.tmp())
	// Opening a directory for reading (to keep a handle on it) is not a
	// read of content.
	for _, e := range d.decode(logs, root) {
		if e.Kind == KindRead {
			p := e.Path
			if e.Resolved != "" {
				p = e.Resolved
			}
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				continue
			}
		}
		tr.Events = append(tr.Events, e)
	}
	tr.NotFound = sortedKeys(d.notFound)
}
