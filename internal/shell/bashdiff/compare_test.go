package bashdiff

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/shell"
)

func TestMatchWords(t *testing.T) {
	st := func(v string) shell.Word { return shell.Word{Value: v, Static: true} }
	dyn := shell.Word{Value: "$x"}
	m := &matcher{home: "/h"}
	cases := []struct {
		words []shell.Word
		args  []string
		want  bool
	}{
		{[]shell.Word{st("-rf"), st("x")}, []string{"-rf", "x"}, true},
		{[]shell.Word{st("-rf"), st("x")}, []string{"-rf"}, false},
		{[]shell.Word{st("-rf"), st("x")}, []string{"-fr", "x"}, false},
		{[]shell.Word{dyn}, nil, true},
		{[]shell.Word{dyn}, []string{"a", "b", "c"}, true},
		{[]shell.Word{st("a"), dyn, st("z")}, []string{"a", "z"}, true},
		{[]shell.Word{st("a"), dyn, st("z")}, []string{"a", "q", "r"}, false},
		{[]shell.Word{st("*.go")}, []string{"a.go", "b.go"}, true},
		{[]shell.Word{st("~/x")}, []string{"/h/x"}, true},
		{[]shell.Word{st("git\x00")}, []string{"git"}, false},
	}
	for _, c := range cases {
		if got := matchWords(c.words, c.args, m); got != c.want {
			t.Errorf("matchWords(%v, %q) = %v, want %v", c.words, c.args, got, c.want)
		}
	}
}

// TestProgramIsTheFileRun: after hash -p or exec -a, argv[0] names another
// program than the file bash executed; the file decides.
func TestProgramIsTheFileRun(t *testing.T) {
	an := &shell.Analysis{Commands: []*shell.Command{{Words: []shell.Word{{Value: "ls", Static: true}}}}}
	m := &matcher{an: an}
	if got := m.commandsFor([]string{"ls"}, "/bin/rm"); len(got) != 0 {
		t.Errorf("rm run as argv[0]=ls matched the ls command")
	}
	if got := m.commandsFor([]string{"ls"}, "/usr/bin/ls"); len(got) != 1 {
		t.Errorf("ls did not match ls")
	}
}

func TestRefCovers(t *testing.T) {
	cases := []struct {
		ref  shell.PathRef
		p    string
		want bool
	}{
		{shell.PathRef{Path: "/w/out.txt"}, "/w/out.txt", true},
		{shell.PathRef{Path: "/w/out.txt"}, "/w/other", false},
		{shell.PathRef{Path: "/w/sub"}, "/w/sub/x", true},
		{shell.PathRef{Text: "$x", Dynamic: true}, "/anything", true},
		{shell.PathRef{Path: "/w/src/*.go", Glob: true}, "/w/src/a.go", true},
		{shell.PathRef{Path: "/w/src/*.go", Glob: true}, "/w/.env", false},
		{shell.PathRef{Path: "/w/home/.env", Dynamic: true}, "/w/home/.bashrc", false},
	}
	for _, c := range cases {
		if got := refCovers(c.ref, c.p); got != c.want {
			t.Errorf("refCovers(%+v, %q) = %v, want %v", c.ref, c.p, got, c.want)
		}
	}
}

// TestCompare checks the judgement on hand-made traces.
func TestCompare(t *testing.T) {
	opts := shell.Options{Cwd: "/w/proj", Home: "/w"}
	exec := func(argv ...string) Event {
		return Event{Kind: KindExec, Path: "/usr/bin/" + argv[0], Argv: argv, Op: "execve"}
	}
	write := func(p string) Event {
		return Event{Kind: KindWrite, Path: p, Op: "openat", Flags: "O_WRONLY|O_CREAT|O_TRUNC"}
	}
	read := func(p string) Event { return Event{Kind: KindRead, Path: p, Op: "openat", Flags: "O_RDONLY"} }
	cases := []struct {
		cmd    string
		events []Event
		want   string // failure classes, comma separated
	}{
		{"rm -rf x", []Event{exec("rm", "-rf", "x")}, ""},
		{"rm -rf x", []Event{exec("rm", "-rf", "y")}, "exec"},
		{"git status", []Event{exec("curl", "evil")}, "exec"},
		{"echo hi > out.txt", []Event{write("/w/proj/out.txt")}, ""},
		{"echo hi > out.txt", []Event{write("/w/proj/.env")}, "write"},
		{"cat < .env", []Event{read("/w/proj/.env"), exec("cat")}, ""},
		{"cat < .env", []Event{read("/w/.ssh/id_rsa"), exec("cat")}, "read"},
		{"ls", []Event{exec("ls"), write("/w/proj/x")}, "readonly-write"},
		{"timeout 5 rm x", []Event{exec("timeout", "5", "rm", "x"), exec("rm", "x")}, ""},
	}
	for _, c := range cases {
		an := shell.Analyze(c.cmd, opts)
		fails := Compare(&Trace{Cmd: c.cmd, Events: c.events}, an, "/w")
		var classes []string
		for _, f := range fails {
			classes = append(classes, f.Class)
		}
		if got := strings.Join(classes, ","); got != c.want {
			t.Errorf("%q: failures %q, want %q\n%s", c.cmd, got, c.want, Describe(&Trace{Cmd: c.cmd, Events: c.events}, an, fails))
		}
	}
	if f := Compare(&Trace{Cmd: "x", Err: "boom"}, shell.Analyze("x", opts), "/w"); len(f) != 1 || f[0].Class != ClassHarness {
		t.Errorf("harness error not reported: %v", f)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(42, 200), Generate(42, 200)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("command %d differs between runs: %q vs %q", i, a[i], b[i])
		}
	}
	if c := Generate(43, 200); strings.Join(c, "\x00") == strings.Join(a, "\x00") {
		t.Error("different seeds gave the same commands")
	}
}

func TestCommandOfCase(t *testing.T) {
	cases := map[string]string{
		`Bash {"command":"rm -rf x"} => deny rule Bash(rm:*)`:          "rm -rf x",
		`@mode=plan Bash {"command":"ls"} => allow`:                    "ls",
		`local_shell {"command":["bash","-lc","git status"]} => allow`: "git status",
		`exec_command {"command":["rm","-rf","a b"]} => deny`:          "'rm' '-rf' 'a b'",
		`Read {"file_path":"/x"} => allow`:                             "",
		`# Bash {"command":"commented"} => allow`:                      "",
	}
	for line, want := range cases {
		got, _ := commandOfCase(line)
		if got != want {
			t.Errorf("commandOfCase(%q) = %q, want %q", line, got, want)
		}
	}
}
