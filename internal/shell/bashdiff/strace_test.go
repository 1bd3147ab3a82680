package bashdiff

import (
	"reflect"
	"strings"
	"testing"
)

// hexq quotes s the way strace -xx prints strings.
func hexq(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		b.WriteString("\\x")
		b.WriteString("0123456789abcdef"[s[i]>>4 : s[i]>>4+1])
		b.WriteString("0123456789abcdef"[s[i]&15 : s[i]&15+1])
	}
	b.WriteByte('"')
	return b.String()
}

func hexfd(fd, p string) string { return fd + "<" + strings.Trim(hexq(p), "\"") + ">" }

func TestParseLine(t *testing.T) {
	line := "openat(" + hexfd("AT_FDCWD", "/w") + ", " + hexq("out.txt") + ", O_WRONLY|O_CREAT|O_TRUNC, 0666) = " + hexfd("3", "/w/out.txt")
	c, ok := parseLine(line)
	if !ok || c.name != "openat" || len(c.args) != 4 {
		t.Fatalf("parseLine = %+v, %v", c, ok)
	}
	if p, _ := unquote(c.args[1]); p != "out.txt" {
		t.Errorf("path %q", p)
	}
	if d := fdDir(c.args[0]); d != "/w" {
		t.Errorf("dir %q", d)
	}
	n, errName, deco := c.retVal()
	if n != 3 || errName != "" || deco == "" {
		t.Errorf("retVal = %d %q %q", n, errName, deco)
	}
	c, ok = parseLine("execve(" + hexq("/usr/bin/rm") + ", [" + hexq("rm") + ", " + hexq("a,b") + "], [" + hexq("X=1") + "]) = -1 ENOENT (No such file or directory)")
	if !ok {
		t.Fatal("execve line not parsed")
	}
	argv, ok := unquoteArray(c.args[1])
	if !ok || !reflect.DeepEqual(argv, []string{"rm", "a,b"}) {
		t.Errorf("argv = %q", argv)
	}
	if _, errName, _ := c.retVal(); errName != "ENOENT" {
		t.Errorf("err = %q", errName)
	}
	for _, bad := range []string{"--- SIGCHLD {si_signo=SIGCHLD} ---", "+++ exited with 0 +++", "garbage", "open(" + hexq("x")} {
		if _, ok := parseLine(bad); ok {
			t.Errorf("parseLine(%q) accepted", bad)
		}
	}
	if s, ok := unquote(`"a\n\x41\101"`); !ok || s != "a\nAA" {
		t.Errorf("unquote escapes = %q", s)
	}
}

func TestReadProcLogResumed(t *testing.T) {
	log := "openat(" + hexfd("AT_FDCWD", "/w") + ", " + hexq("f") + ", O_RDONLY <unfinished ...>\n" +
		"<... openat resumed>) = " + hexfd("3", "/w/f") + "\n+++ exited with 0 +++\n"
	pl, err := readProcLog(1, strings.NewReader(log))
	if err != nil || len(pl.calls) != 1 || pl.bad != 0 {
		t.Fatalf("calls = %+v bad=%d err=%v", pl.calls, pl.bad, err)
	}
}

// TestDecode walks a small process tree: bash redirects in a forked child
// that then runs a shim (its own opens are not recorded), runs the real
// env which runs another shim, reads a file itself, and a here-document
// temporary file is ignored.
func TestDecode(t *testing.T) {
	cwd := "/w/home/proj"
	at := hexfd("AT_FDCWD", cwd)
	logs := map[int]*procLog{}
	add := func(pid int, lines ...string) {
		pl, err := readProcLog(pid, strings.NewReader(strings.Join(lines, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		logs[pid] = pl
	}
	add(10,
		"execve("+hexq("/w/tools/bash")+", ["+hexq("bash")+", "+hexq("-c")+", "+hexq("x")+"], []) = 0",
		"openat("+at+", "+hexq("/etc/ld.so.cache")+", O_RDONLY|O_CLOEXEC) = 3",
		"openat("+at+", "+hexq("/w/tmp/sh-thd.123")+", O_WRONLY|O_CREAT|O_EXCL|O_TRUNC, 0600) = 3",
		"openat("+at+", "+hexq(".env")+", O_RDONLY) = "+hexfd("3", cwd+"/.env"),
		"newfstatat("+at+", "+hexq("/usr/bin/nosuch")+", 0x7ffd, 0) = -1 ENOENT (No such file or directory)",
		"connect(3<socket:[77]>, {sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("+hexq("127.0.0.1")+")}, 16) = -1 ENETUNREACH (Network is unreachable)",
		"clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD) = 11",
		"clone(child_stack=NULL, flags=SIGCHLD) = 12",
	)
	add(11,
		"openat("+at+", "+hexq("out.txt")+", O_WRONLY|O_CREAT|O_TRUNC, 0666) = "+hexfd("3", cwd+"/out.txt"),
		"execve("+hexq("/usr/bin/rm")+", ["+hexq("rm")+", "+hexq("x")+"], []) = 0",
		"openat("+at+", "+hexq("/sys/kernel/mm/x")+", O_WRONLY) = 3",
	)
	add(12,
		"execve("+hexq("/usr/bin/env")+", ["+hexq("env")+", "+hexq("-i")+", "+hexq("git")+"], []) = 0",
		"openat("+at+", "+hexq("/usr/lib/locale/x")+", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)",
		"execve("+hexq("/usr/bin/git")+", ["+hexq("git")+"], []) = 0",
		"openat("+at+", "+hexq("secret")+", O_RDONLY) = 3",
	)
	d := newDecoder([]string{"bash", "env"}, cwd, "/w/tools/bash", "/w/tmp")
	got := d.decode(logs, 10)
	var lines []string
	for _, e := range got {
		e.Flags = ""
		lines = append(lines, e.String())
	}
	want := []string{
		`read openat /w/home/proj/.env`,
		`connect connect /dev/tcp/127.0.0.1/80 = ENETUNREACH`,
		`write openat /w/home/proj/out.txt [owner ["rm" "x"]]`,
		`exec execve /usr/bin/rm ["rm" "x"]`,
		`exec execve /usr/bin/env ["env" "-i" "git"]`,
		`exec execve /usr/bin/git ["git"] [owner ["env" "-i" "git"]]`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if c := got[len(got)-1].Chain; !reflect.DeepEqual(c, [][]string{{"env", "-i", "git"}}) {
		t.Errorf("chain of git = %q", c)
	}
	if !d.notFound["nosuch"] {
		t.Errorf("notFound = %v", d.notFound)
	}
}
