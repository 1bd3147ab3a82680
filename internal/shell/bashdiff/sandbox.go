//go:build linux

package bashdiff

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate/internal/shell"
)

// helperEnv names the environment variable that turns the test binary into
// the sandbox helper (see [RunHelperIfRequested]).
const helperEnv = "TOOLGATE_BASHDIFF_HELPER"

// Config configures a [Sandbox].
type Config struct {
	// Dir is an empty directory the sandbox owns (a test's TempDir).
	Dir string
	// Workers is the number of bash processes run at once (default 2).
	Workers int
	// Timeout bounds one command (default 2s).
	Timeout time.Duration
	// GoTool is the go command used to build the Go shim on architectures
	// without a built-in one (default "go").
	GoTool string
}

// Sandbox runs command strings under the real bash with every program
// replaced by a shim, in private namespaces where nothing but the
// sandbox's own fixture directory is writable.
type Sandbox struct {
	root    string
	binDir  string
	shim    string
	timeout time.Duration

	mu      sync.Mutex
	have    map[string]bool
	workers chan *worker
	all     []*worker
}

// RealTools are the programs that run for real inside the sandbox, so that
// what they execute, write and read is recorded too: shells, the wrappers
// whose option parsing the analysis must mirror, and commands that run
// programs or write files through their options. Every other name is a
// shim.
var RealTools = []string{
	"bash", "sh", "dash", "env", "timeout", "nice", "nohup", "stdbuf", "xargs", "setsid",
	"flock", "time", "ionice", "chrt", "taskset", "find", "sed", "awk", "mawk", "sort",
}

// realSource maps a real tool to the host program it is a copy of.
var realSource = map[string]string{"sh": "dash"}

// CommonPrograms are names given a shim up front, so bash finds them on the
// first run. Names found in a command string and names bash fails to find
// are added as they come up.
var CommonPrograms = strings.Fields(`
rm rmdir mv cp ln mkdir touch chmod chown chgrp install dd shred truncate tee cat tac less more head tail
ls dir grep egrep fgrep rg ag ack wc cut paste join tr uniq comm diff cmp patch file stat du df realpath readlink
basename dirname pwd echo printf true false test [ yes seq date sleep kill pkill killall ps top uname whoami id
hostname which whereis type command git gh hub svn hg docker podman kubectl helm npm npx node yarn pnpm deno bun
python python3 pip pip3 pipx ruby gem perl php lua go gofmt cargo rustc rustup make cmake ninja gcc cc clang
java javac mvn gradle curl wget ssh scp sftp rsync nc ncat netcat socat telnet ftp tar gzip gunzip zip unzip
xz bzip2 zstd jq yq vi vim nvim nano emacs ed ex sudo doas su runuser pkexec watch strace ltrace gdb nsenter
unshare chroot systemctl service crontab at batch mount umount apt apt-get dpkg yum dnf brew snap flatpak
open xdg-open osascript pbcopy pbpaste xclip base64 xxd od hexdump strings md5sum sha1sum sha256sum openssl gpg
zsh fish ksh csh tcsh busybox parallel apply_patch terraform aws gcloud az sqlite3 psql mysql redis-cli mongo
code pytest tox black ruff eslint prettier tsc jest vitest mocha ansible vagrant lsof env printenv export
logger mail sendmail iptables ip ifconfig ping dig nslookup host traceroute bc expr awk gawk nawk sed find
fd locate column fmt fold nl pr split csplit sum cksum numfmt shuf sort tsort expand unexpand iconv script
time nohup setsid stdbuf ionice chrt taskset flock timeout nice xargs bash sh dash tmux screen
`)

// New builds the shim, lays out the sandbox under cfg.Dir and starts the
// helpers, each in fresh user, mount, pid, network, IPC and UTS
// namespaces. It fails when bash, strace or namespaces are unavailable.
func New(cfg Config) (*Sandbox, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.GoTool == "" {
		cfg.GoTool = "go"
	}
	root, err := filepath.EvalSymlinks(cfg.Dir)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{root: root, binDir: filepath.Join(root, "bin"), shim: filepath.Join(root, "tools", "shim"),
		timeout: cfg.Timeout, have: map[string]bool{}}
	for _, d := range []string{"bin", "tools", "fix", "log"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return nil, err
		}
	}
	for _, prog := range []string{"/usr/bin/bash", "/usr/bin/strace"} {
		if _, err := os.Stat(prog); err != nil {
			return nil, fmt.Errorf("bashdiff needs %s: %v", prog, err)
		}
		if err := copyFile(prog, filepath.Join(root, "tools", filepath.Base(prog))); err != nil {
			return nil, err
		}
	}
	// The helper is this very binary (see RunHelperIfRequested), copied
	// where the unprivileged helper user can execute it.
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := copyFile(exe, filepath.Join(root, "tools", "helper")); err != nil {
		return nil, err
	}
	if tiny := tinyShim(); tiny != nil {
		if err := os.WriteFile(s.shim, tiny, 0o755); err != nil {
			return nil, err
		}
	} else {
		build := exec.Command(cfg.GoTool, "build", "-trimpath", "-o", s.shim, "github.com/toolgate/toolgate/internal/shell/bashdiff/shim")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building the shim: %v\n%s", err, out)
		}
	}
	// Prove the shim runs and does nothing but exit 0.
	if out, err := exec.Command(s.shim, "--version").CombinedOutput(); err != nil || len(out) > 0 {
		return nil, fmt.Errorf("the shim does not run cleanly: %v %q", err, out)
	}
	for _, name := range RealTools {
		src := name
		if r, ok := realSource[name]; ok {
			src = r
		}
		hostPath, err := filepath.EvalSymlinks(filepath.Join("/usr/bin", src))
		if err != nil {
			continue // not installed: the name gets a shim
		}
		if err := copyFile(hostPath, filepath.Join(s.binDir, name)); err != nil {
			return nil, err
		}
		s.have[name] = true
	}
	if !s.have["bash"] {
		return nil, errors.New("bashdiff: /usr/bin/bash missing")
	}
	s.addShims(CommonPrograms)
	if err := writeFixture(filepath.Join(root, "ref", "home")); err != nil {
		return nil, err
	}
	// The helper may run as the unprivileged user nobody on the host (when
	// the tests run as root): it must be able to reach everything here.
	if err := os.Chmod(root, 0o755); err != nil {
		return nil, err
	}
	s.workers = make(chan *worker, cfg.Workers)
	for i := 0; i < cfg.Workers; i++ {
		w, err := s.startWorker(i)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.all = append(s.all, w)
		s.workers <- w
	}
	return s, nil
}

// nobody is the host user the helper runs as when the tests run as root.
const nobody = 65534

// Paths returns the working directory and home directory every command
// runs in (the same for all workers).
func (s *Sandbox) Paths() (cwd, home string) {
	home = filepath.Join(s.root, "fix", "home")
	return filepath.Join(home, "proj"), home
}

// Close stops the helpers.
func (s *Sandbox) Close() {
	for _, w := range s.all {
		w.stop()
	}
	s.all = nil
}

var nameToken = regexp.MustCompile(`[A-Za-z0-9_.+\-\[]+`)

// fileLike reports a token that looks like a file name rather than a
// program (a shim under that name would be found by source's PATH search).
func fileLike(tok string) bool {
	if _, ok := Fixture[tok]; ok {
		return true
	}
	for n := range Fixture {
		if filepath.Base(strings.TrimSuffix(n, "/")) == tok {
			return true
		}
	}
	ext := filepath.Ext(tok)
	return ext != "" && ext != tok && !strings.ContainsAny(ext[1:], "0123456789")
}

// validName reports whether name can be a shim's file name.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && len(name) <= 64 && !strings.ContainsAny(name, "/\x00")
}

// addShims links the shim under each new name; it reports how many were
// added.
func (s *Sandbox) addShims(names []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, name := range names {
		if !validName(name) || s.have[name] {
			continue
		}
		s.have[name] = true
		if err := os.Link(s.shim, filepath.Join(s.binDir, name)); err == nil {
			n++
		}
	}
	return n
}

// Run runs cmd under bash in the sandbox and returns what it did. When bash
// looked for programs that had no shim, it adds them and runs cmd again.
func (s *Sandbox) Run(cmd string) *Trace {
	var names []string
	for _, tok := range nameToken.FindAllString(cmd, -1) {
		if !fileLike(tok) {
			names = append(names, tok)
		}
	}
	names = append(names, ansiWords(cmd)...)
	s.addShims(names)
	w := <-s.workers
	defer func() { s.workers <- w }()
	var tr *Trace
	for run := 1; run <= 4; run++ {
		tr = w.run(cmd)
		tr.Runs = run
		if tr.helperDied {
			// The helper is gone (a hostile command may manage that): start
			// a fresh one for the next command; this one is a harness error.
			w.stop()
			if nw, err := s.startWorker(w.index); err == nil {
				s.replace(w, nw)
				w = nw
			} else {
				tr.Err += "; restarting the helper: " + err.Error()
			}
			break
		}
		var missing []string
		for _, n := range tr.NotFound {
			// A file name looked up by source or . in PATH is not a program:
			// a shim under it would be sourced.
			if !fileLike(n) {
				missing = append(missing, n)
			}
		}
		if tr.Err != "" || s.addShims(missing) == 0 {
			break
		}
	}
	return tr
}

// replace swaps a restarted worker into the list Close stops.
func (s *Sandbox) replace(old, nw *worker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range s.all {
		if w == old {
			s.all[i] = nw
		}
	}
}

// ansiWords decodes the $'...' words of cmd, so that names spelt with
// escapes get shims too.
func ansiWords(cmd string) []string {
	var out []string
	for i := 0; i+1 < len(cmd); i++ {
		if cmd[i] != '$' || cmd[i+1] != '\'' {
			continue
		}
		j := i + 2
		var b strings.Builder
		for j < len(cmd) && cmd[j] != '\'' {
			if cmd[j] == '\\' && j+1 < len(cmd) {
				j++
				switch cmd[j] {
				case 'x':
					k := j + 1
					for k < len(cmd) && k < j+3 && strings.IndexByte("0123456789abcdefABCDEF", cmd[k]) >= 0 {
						k++
					}
					var v int
					fmt.Sscanf(cmd[j+1:k], "%x", &v)
					b.WriteByte(byte(v))
					j = k
					continue
				case '0', '1', '2', '3', '4', '5', '6', '7':
					k := j
					for k < len(cmd) && k < j+3 && cmd[k] >= '0' && cmd[k] <= '7' {
						k++
					}
					var v int
					fmt.Sscanf(cmd[j:k], "%o", &v)
					b.WriteByte(byte(v))
					j = k
					continue
				default:
					b.WriteByte(cmd[j])
				}
			} else {
				b.WriteByte(cmd[j])
			}
			j++
		}
		out = append(out, strings.FieldsFunc(b.String(), func(r rune) bool { return r == 0 || r == ' ' || r == '\t' || r == '\n' })...)
		i = j
	}
	return out
}

// worker is one helper process and its private directories.
type worker struct {
	index int
	dir   string
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	mu    sync.Mutex
}

// helperConfig is passed to the helper in its environment.
type helperConfig struct {
	Root      string
	WorkerDir string
	Timeout   time.Duration
	Real      []string
}

func (s *Sandbox) startWorker(i int) (*worker, error) {
	wd := filepath.Join(s.root, fmt.Sprintf("w%d", i))
	// The worker directory only serves the helper's proof that the
	// sandbox directory is read-only inside.
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return nil, err
	}
	if err := os.Chmod(wd, 0o755); err != nil {
		return nil, err
	}
	var real []string
	for _, n := range RealTools {
		if s.have[n] {
			real = append(real, n)
		}
	}
	cfg, _ := json.Marshal(helperConfig{Root: s.root, WorkerDir: wd, Timeout: s.timeout, Real: real})
	c := exec.Command(filepath.Join(s.root, "tools", "helper"), "-test.run=^$")
	c.Env = []string{helperEnv + "=" + string(cfg)}
	c.Stderr = os.Stderr
	host := os.Getuid()
	hostG := os.Getgid()
	if host == 0 {
		host, hostG = nobody, nobody
	}
	c.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
			syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: host, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: hostG, Size: 1}},
		GidMappingsEnableSetgroups: false,
		// Become root of the new namespace (the mapped user) before exec,
		// or exec drops the namespace's capabilities.
		Credential: &syscall.Credential{Uid: 0, Gid: 0, NoSetGroups: true},
		Pdeathsig:  syscall.SIGKILL,
	}
	c.Dir = "/"
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	outp, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("starting the sandbox helper in new namespaces: %w", err)
	}
	w := &worker{index: i, dir: wd, cmd: c, in: in, out: bufio.NewReaderSize(outp, 1<<20)}
	// The helper reports readiness (or why it cannot run) first.
	var hello Trace
	if err := w.read(&hello); err != nil {
		w.stop()
		return nil, fmt.Errorf("sandbox helper: %v", err)
	}
	if hello.Err != "" {
		w.stop()
		return nil, fmt.Errorf("sandbox helper: %s", hello.Err)
	}
	return w, nil
}

func (w *worker) read(v any) error {
	line, err := w.out.ReadBytes('\n')
	if err != nil {
		return err
	}
	return json.Unmarshal(line, v)
}

func (w *worker) run(cmd string) *Trace {
	w.mu.Lock()
	defer w.mu.Unlock()
	req, _ := json.Marshal(cmd)
	if _, err := w.in.Write(append(req, '\n')); err != nil {
		return &Trace{Cmd: cmd, Err: "helper: " + err.Error(), helperDied: true}
	}
	var tr Trace
	if err := w.read(&tr); err != nil {
		return &Trace{Cmd: cmd, Err: "helper: " + err.Error(), helperDied: true}
	}
	return &tr
}

func (w *worker) stop() {
	if w.in != nil {
		w.in.Close()
	}
	if w.cmd != nil && w.cmd.Process != nil {
		w.cmd.Process.Kill()
		w.cmd.Wait()
	}
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Options returns the analysis options matching the sandbox: its working
// and home directories, and a glob that expands against a pristine copy of
// the fixture (hiding dotfiles unless the pattern segment starts with a
// dot, as bash does).
func (s *Sandbox) Options() shell.Options {
	cwd, home := s.Paths()
	fix := filepath.Join(s.root, "fix")
	ref := filepath.Join(s.root, "ref")
	return shell.Options{Cwd: cwd, Home: home, Glob: func(pattern string) ([]string, error) {
		p := pattern
		mapped := false
		if p == fix || strings.HasPrefix(p, fix+"/") {
			p = ref + strings.TrimPrefix(p, fix)
			mapped = true
		}
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, err
		}
		segs := strings.Split(p, "/")
		var out []string
		for _, m := range matches {
			if !visible(segs, strings.Split(m, "/")) {
				continue
			}
			if mapped {
				m = fix + strings.TrimPrefix(m, ref)
			}
			out = append(out, m)
		}
		return out, nil
	}}
}

func visible(pat, name []string) bool {
	if len(pat) != len(name) {
		return false
	}
	for i, seg := range pat {
		if strings.ContainsAny(seg, "*?[") && !strings.HasPrefix(seg, ".") && strings.HasPrefix(name[i], ".") {
			return false
		}
	}
	return true
}

// writeFixture lays the fixture out under home.
func writeFixture(home string) error {
	names := make([]string, 0, len(Fixture))
	for n := range Fixture {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(home, n)
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if strings.Contains(n, "hooks/") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(Fixture[n]), mode); err != nil {
			return err
		}
	}
	return nil
}
