package shell

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

// The families of issue 9, each closed at its cause. The expectations are
// written from SPEC.md revision 6 (§4.1, §7) and checked against bash 5.2
// where bash's behaviour decides (the order of redirections, NUL cuts).

func unanalysable(a *Analysis) bool {
	if len(a.Unanalysable) > 0 {
		return true
	}
	for _, c := range a.Commands {
		if c.Unanalysable != "" {
			return true
		}
	}
	return false
}

func commandWords(a *Analysis) []string {
	var out []string
	for _, c := range a.Commands {
		out = append(out, wordsString(c.Words))
	}
	return out
}

// Family 1: only a here-document or here-string on descriptor 0 is a
// shell's program; one on another descriptor is data, and one together
// with another redirection of descriptor 0 leaves the program unknown.
func TestFamilyHeredocDescriptor(t *testing.T) {
	tests := []struct {
		src    string
		unan   bool
		cmds   []string // Words of every command
		stdin  string   // Stdin of the first command
		static bool     // StdinStatic of the first command
	}{
		{"bash <<'A'\ngit status\nA", false, []string{"bash", "git status"}, "git status\n", true},
		{"bash 0<<'A'\ngit status\nA", false, []string{"bash", "git status"}, "git status\n", true},
		{"bash <<< 'git status'", false, []string{"bash", "git status"}, "git status\n", true},
		// The fd-3 body is data: bash reads the fd-0 one.
		{"bash <<'A' 3<<'B'\ngit status\nA\nrm -rf x\nB", false, []string{"bash", "git status"}, "git status\n", true},
		{"bash 3<<'B' <<'A'\nrm -rf x\nB\ngit status\nA", false, []string{"bash", "git status"}, "git status\n", true},
		// No program on descriptor 0.
		{"bash < /dev/tcp/h/1 3<<< 'git status'", true, []string{"bash"}, "", false},
		{"bash 3<<'B'\ngit status\nB", true, []string{"bash"}, "", false},
		// A here-string and an input file: the later one wins in bash;
		// either way the program is not read from the here-string.
		// The here-document is still read for deny rules.
		{"bash <<< 'git status' < script.sh", true, []string{"bash", "git status"}, "", false},
		{"bash < script.sh <<< 'git status'", true, []string{"bash", "git status"}, "", false},
		{"bash <<< 'git status' 0<&3", true, []string{"bash", "git status"}, "", false},
		{"bash <<'A' <<'B'\nls\nA\nls -l\nB", true, []string{"bash", "ls", "ls -l"}, "", false},
		{"{ bash <<< 'git status'; } < script.sh", true, []string{"bash", "git status"}, "", false},
		{"cat <<< 'git status' < f", false, []string{"cat"}, "", false},
		{"{ bash; } <<< 'git status'", false, []string{"bash", "git status"}, "git status\n", true},
		// Output redirections of other descriptors change nothing.
		{"bash <<< 'git status' 2>/dev/null", false, []string{"bash", "git status"}, "git status\n", true},
		// A {var} descriptor is never 0.
		{"bash {fd}<<< 'x' <<< 'git status'", false, []string{"bash", "git status"}, "git status\n", true},
		// apply_patch reads its patch from descriptor 0 only.
		{"apply_patch <<'EOF'\n*** Begin Patch\nEOF", false, []string{"apply_patch"}, "*** Begin Patch\n", true},
		{"apply_patch 3<<'EOF'\n*** Begin Patch\nEOF", true, []string{"apply_patch"}, "", false},
		{"apply_patch <<'EOF' < x.patch\n*** Begin Patch\nEOF", true, []string{"apply_patch"}, "", false},
		{"apply_patch < x.patch", true, []string{"apply_patch"}, "", false},
		{"cat x | apply_patch", true, []string{"cat x", "apply_patch"}, "", false},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		if got := unanalysable(a); got != tt.unan {
			t.Errorf("%q: unanalysable = %v, want %v (%+v)", tt.src, got, tt.unan, a.Commands[0])
		}
		if got := commandWords(a); !slices.Equal(got, tt.cmds) {
			t.Errorf("%q: commands %q, want %q", tt.src, got, tt.cmds)
		}
		c := a.Commands[0]
		if c.Stdin != tt.stdin || c.StdinStatic != tt.static {
			t.Errorf("%q: stdin %q static %v, want %q %v", tt.src, c.Stdin, c.StdinStatic, tt.stdin, tt.static)
		}
	}
}

// Family 2: $'…' words whose value holds a NUL are cut there (as bash
// builds C strings); deny reads the cut value and the word is unanalysable.
func TestFamilyANSICNul(t *testing.T) {
	tests := []struct {
		src   string
		words string // Words of the first command
		reads []string
	}{
		{`git $'push\0' --force`, "git push --force", nil},
		{`git $'push\0x' --force`, "git push --force", nil},
		{`$'rm\0' -rf ~`, "rm -rf ~", nil},
		{`cat $'.env\0x'`, "cat .env", []string{"/a/b/.env"}},
		{`cat $'.env\x00x'`, "cat .env", []string{"/a/b/.env"}},
		{`cat $'.env\x0'`, "cat .env", []string{"/a/b/.env"}},
		{`cat $'.env\u0000'`, "cat .env", []string{"/a/b/.env"}},
		{`cat $'.env\U00000000'`, "cat .env", []string{"/a/b/.env"}},
		{`cat $'.env\c@'`, "cat .env", []string{"/a/b/.env"}},
		{`cat $'.env\000'`, "cat .env", []string{"/a/b/.env"}},
		{`cat $'.env\400'`, "cat .env", []string{"/a/b/.env"}},
		// The rest of the word after the $'…' part is kept (bash: x$'a\0b'y is xay).
		{`cat .e$'n\0zz'v`, "cat .env", []string{"/a/b/.env"}},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		if !unanalysable(a) {
			t.Errorf("%q: not unanalysable", tt.src)
		}
		c := a.Commands[0]
		if got := wordsString(c.Words); got != tt.words {
			t.Errorf("%q: words %q, want %q", tt.src, got, tt.words)
		}
		if tt.reads != nil && !slices.Equal(paths(c.Reads), tt.reads) {
			t.Errorf("%q: reads %q, want %q", tt.src, paths(c.Reads), tt.reads)
		}
	}
	if a := analyze(t, `rm -rf $'\0'x`); a.Commands[0].CriticalRemoval != "" {
		// x is removed, not ""; harmless either way but checks the cut.
		t.Logf("rm $'\\0'x: %s", a.Commands[0].CriticalRemoval)
	}
	// Benign look-alikes: escapes that are not NUL.
	for _, src := range []string{`echo $'a\tb'`, `printf $'%s\n' x`, `echo $'\x41\101\u0041\cA'`, `echo $'\c?'`} {
		if a := analyze(t, src); unanalysable(a) {
			t.Errorf("%q: unanalysable (%+v)", src, a.Commands[0].Unanalysable)
		}
	}
	for in, want := range map[string]string{
		`a\tb`: "a\tb", `\x41\101\u0041`: "AAA", `\cA\ca`: "\x01\x01", `\c?`: "\x7f", `\c\\x`: "\x1cx",
		`ab\0cd`: "ab", `\x0g`: "", `\u0`: "", `\777`: "\xff", `a\c@b`: "a", `\e`: "\x1b", `\q`: `\q`,
	} {
		if got := decodeANSIC(in); got != want {
			t.Errorf("decodeANSIC(%q) = %q, want %q", in, got, want)
		}
	}
}

// Family 3: builtins that run code, and option changes that make the rest
// of the script unreadable.
func TestFamilyBuiltinsRunningCode(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"compgen -C 'rm -rf x' w", true},
		{"compgen -F f w", true},
		{"compgen -W '$(id)' w", true},
		{"compgen -aW x", true},
		{"compgen -o default -W x", true},
		{"compgen $X", true},
		{"complete -C 'rm x' git", true},
		{"complete -F _f git", true},
		{"compgen -c gi", false},
		{"compgen -A file x", false},
		{"complete -o default -W 'a b' git", false},
		{"unset 'a[$(id)]'", true},
		{"unset a[x]", true},
		{"unset \"$v\"", true},
		{"unset a[1] b", false},
		{"unset -v x y", false},
		{"export 'a[$(id)]'", true},
		{"getopts ab 'o[$(id)]'", true},
		{"wait -p 'a[`id`]' 1", true},
		// Arithmetic on non-static operands.
		{"(( x + 1 ))", true},
		{"(( a[1] ))", true},
		{"echo $(( x ))", true},
		{"echo $(( $n + 1 ))", true},
		{"let x=1", true},
		{"[[ $x -eq 1 ]]", true},
		{"[[ 1 -lt $(cat f) ]]", true},
		{"for ((i=0; i<3; i++)); do echo; done", true},
		{"echo ${a[i]}", true},
		{"echo ${s:$n}", true},
		{"(( 1 + 2 ))", false},
		{"echo $(( 0x1f + 2#101 + 10 ))", false},
		{"echo $(( $# + $? + $$ + $! ))", false},
		{"echo $(( ${#s} * 2 ))", false},
		{"[[ $# -eq 0 ]]", false},
		{"[[ 3 -gt 2 ]]", false},
		{"echo \"${a[@]}\" ${a[*]} ${a[0]} ${s:1:2}", false},
		{"[[ $x == y ]]", false},
		{"[ \"$x\" -eq 1 ]", false}, // test's -eq does not evaluate arithmetic
		// shopt and set option changes.
		{"shopt -s dotglob", true},
		{"shopt -u extglob", true},
		{"shopt -s expand_aliases; ls", true},
		{"shopt -qs x", true},
		{"shopt $o", true},
		{"shopt", false},
		{"shopt -q extglob", false},
		{"shopt -p", false},
		{"set -f", true},
		{"set -o posix", true},
		{"set -o noglob", true},
		{"set -euo noclobber", true},
		{"set +B", true},
		{"set -$x", true},
		{"set -e", false},
		{"set -eu", false},
		{"set -euxo pipefail", false},
		{"set -o errexit -o nounset", false},
		{"set +x", false},
		{"set -o", false},
		{"set -- a b", false},
		{"set a b", false},
		{"builtin set -f", true},
		{"command shopt -s dotglob", true},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		if got := unanalysable(a); got != tt.want {
			var why []string
			for _, c := range a.Commands {
				why = append(why, c.Unanalysable)
			}
			t.Errorf("%q: unanalysable = %v, want %v (%q %+v)", tt.src, got, tt.want, why, a.Unanalysable)
		}
		if unanalysable(a) && a.ReadOnly {
			t.Errorf("%q: unanalysable but read-only", tt.src)
		}
	}
}

// After shopt or set changes the options, every later command is
// unanalysable and globs count dot-files for deny.
func TestFamilyOptionsRestOfScript(t *testing.T) {
	a := analyze(t, "git status; shopt -s dotglob; git status; cat *")
	var got []bool
	for _, c := range a.Commands {
		got = append(got, c.Unanalysable != "")
	}
	if !slices.Equal(got, []bool{false, true, true, true}) {
		t.Errorf("unanalysable per command %v", got)
	}
	cat := a.Commands[3]
	if !slices.Contains(paths(cat.Reads), "/a/b/.*") {
		t.Errorf("cat * after dotglob: reads %q, want a dot-file reading", paths(cat.Reads))
	}
	a = analyze(t, "cat *")
	for _, p := range paths(a.Commands[0].Reads) {
		if strings.Contains(p, "/.") {
			t.Errorf("cat * without dotglob reads %q", p)
		}
	}
	opts := testOpts
	var asked []string
	opts.Glob = func(p string) ([]string, error) {
		asked = append(asked, p)
		return nil, nil
	}
	Analyze("set -f; ls src/*/?x", opts)
	for _, want := range []string{"/a/b/src/*/?x", "/a/b/src/.*/?x", "/a/b/src/*/.x", "/a/b/src/.*/.x"} {
		if !slices.Contains(asked, want) {
			t.Errorf("glob %q not expanded (asked %q)", want, asked)
		}
	}
	if got := pathmatch.DotVariants("[ab]c"); !slices.Equal(got, []string{".c"}) {
		t.Errorf("DotVariants([ab]c) = %q", got)
	}
}

// Family 4: critical removals through every spelling of home and the
// working directory, with a reason naming what is at risk.
func TestFamilyCriticalSpellings(t *testing.T) {
	tests := []struct {
		src  string
		want string // substring of CriticalRemoval; "" for none
	}{
		{"rm -rf ${HOME}", "home directory /home/u"},
		{"rm -rf \"${HOME}/proj/..\"", "home directory /home/u"},
		{"rm -rf $HOME/proj/../", "home directory /home/u"},
		{"rm -rf ${HOME:?}", "home directory /home/u"},
		{"rm -rf \"${HOME:?}\"/", "home directory /home/u"},
		{"rm -rf ${HOME%/}", "home directory /home/u"},
		{"rm -rf \"${HOME%/}\"", "home directory /home/u"},
		{"rm -rf ${HOME:-/tmp}", "home directory /home/u"},
		{"rm -rf ${HOME:+/}", "root directory"},
		{"rm -rf ${HOME%/*}", "computed from $HOME"},
		{"rm -rf \"${HOME}\"/*", "every entry of the home directory"},
		{"rm -rf \"$PWD\"", "working directory /a/b"},
		{"rm -rf ${PWD}", "working directory /a/b"},
		{"rm -rf \"$(pwd)\"", "working directory /a/b"},
		{"rm -rf `pwd`", "working directory /a/b"},
		{"rm -rf $(pwd)/..", "/a, a parent of the working directory"},
		{"rm -rf \"$PWD\"/*", "every entry of the working directory /a/b"},
		{"rm -rf ~+", "working directory /a/b"},
		{"rm -rf ~+/", "working directory /a/b"},
		{"rm -rf ~-", "home directory of ~-"},
		{"rm -rf ~bob/x/..", "home directory of ~bob"},
		{"rm -rf ~bob/..", "parent of the home directory of ~bob"},
		{"rm -rf .", "working directory /a/b (as '.')"},
		{"rm -rf ./", "working directory /a/b"},
		{"rm -rf x/..", "working directory /a/b"},
		{"rm -rf /*", "top-level directories"},
		{"rm -rf /*/*", "include the home directory /home/u"},
		{"rm -rf /*/*/*", "every entry of"},
		{"rm -rf /home/*", "include the home directory /home/u"},
		{"rm -rf ~/*", "every entry of the home directory /home/u"},
		{"rm -rf *", "every entry of the working directory /a/b"},
		{"cd \"$X\"; rm -rf *", "unknown after a dynamic cd"},
		{"cd \"$X\"; rm -rf \"$PWD\"", "unknown after a dynamic cd"},
		{"cd \"$X\"; rm -rf .", "unknown after a dynamic cd"},
		{"rm -rf \"$DIR\"/*", "directory named by a variable"},
		{"ls | xargs rm", "xargs may pass any path"},
		{"find / -delete", "root directory"},
		{"find build / -delete", "root directory"},
		{"rm -rf {x,/}", "root directory"},
		{"rm -rf /usr/", "top-level directory /usr"},
		{"rm -rf \"$HOME\"/{a,..}", "top-level directory /home"},
		{"rm -rf ${PWD}/{x,.}", "working directory /a/b"},
		{"rm -rf \"$HOME\"/{a,b}", ""},
		{"rm -rf /a", "/a, a parent of the working directory /a/b"},
		// Look-alikes that are not critical.
		{"rm -rf \"$HOME/proj\"", ""},
		{"rm -rf ${HOME}/proj/build/..", ""},
		{"rm -rf \"$PWD/build\"", ""},
		{"rm -rf \"$(pwd)/build\"", ""},
		{"rm -rf ~+/build", ""},
		{"rm -rf ./build", ""},
		{"rm -rf build/*", ""},
		{"rm -rf /a/b/c/*", ""},
		{"cd build && rm -rf *", ""},
		{"rm -rf $DIR", ""},
		{"rm -rf ~/x/*", ""},
		{"rm -f build.log", ""},
		{"rm -rf ${HOME%%/x}/tmp", ""},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		got := ""
		for _, c := range a.Commands {
			if c.CriticalRemoval != "" {
				got = c.CriticalRemoval
				break
			}
		}
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%q: critical removal %q, want %q", tt.src, got, tt.want)
		}
	}
}

// Family 5: words that begin with $PWD, ${PWD}, $(pwd) or `pwd` (and $HOME)
// are placed against the command's directory for deny; they stay
// non-static for allow. zsh named directories are unanalysable.
func TestFamilyPwdPaths(t *testing.T) {
	tests := []struct {
		src  string
		want []string // Reads of the first command
	}{
		{`cat "$PWD/.env"`, []string{"/a/b/.env"}},
		{`cat ${PWD}/.env`, []string{"/a/b/.env"}},
		{`cat "$(pwd)/.env"`, []string{"/a/b/.env"}},
		{"cat `pwd`/.env", []string{"/a/b/.env"}},
		{`cat "${PWD:?}/x/../.env"`, []string{"/a/b/.env"}},
		{`cd sub && cat "$PWD/.env"`, nil},
		{`cat "$HOME/.ssh/id_rsa"`, []string{"/home/u/.ssh/id_rsa"}},
		{`cat "$OTHER/.env"`, []string{`?"$OTHER/.env"`}},
		{`cat ~+/.env`, []string{"/a/b/.env"}},
		{`cat "$PWD"/{x,.env}`, []string{"/a/b/x", "/a/b/.env"}},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		c := a.Commands[0]
		if strings.HasPrefix(tt.src, "cd ") {
			c = a.Commands[1]
			tt.want = []string{"/a/b/sub/.env"}
		}
		if got := paths(c.Reads); !slices.Equal(got, tt.want) {
			t.Errorf("%q: reads %q, want %q", tt.src, got, tt.want)
		}
		if !strings.Contains(tt.src, "~+") {
			for _, w := range c.Words[1:] {
				if w.Static {
					t.Errorf("%q: word %q static", tt.src, w.Value)
				}
			}
		}
	}
	// After a dynamic cd, $PWD cannot be placed.
	a := analyze(t, `cd "$X"; cat "$PWD/.env"`)
	if got := paths(a.Commands[1].Reads); !slices.Equal(got, []string{`?"$PWD/.env"`}) {
		t.Errorf("after dynamic cd: reads %q", got)
	}
	// A function named pwd makes $(pwd) unknown.
	a = analyze(t, `pwd() { echo /etc; }; cat "$(pwd)/passwd"`)
	if got := paths(a.Commands[1].Reads); !slices.Equal(got, []string{`?"$(pwd)/passwd"`}) {
		t.Errorf("with a pwd function: reads %q", got)
	}
	for _, src := range []string{"ls ~[name]", "cat ~[x]/y", "echo a ~[n]"} {
		if a := analyze(t, src); !unanalysable(a) {
			t.Errorf("%q: not unanalysable", src)
		}
	}
	for _, src := range []string{"ls '~[name]'", "ls ~/x[1]", "ls a~[b]"} {
		if a := analyze(t, src); unanalysable(a) {
			t.Errorf("%q: unanalysable", src)
		}
	}
}

// Family 6: eval runs in the same shell, so a cd inside it moves the
// commands after it; bash -c runs a child and does not.
func TestFamilyEvalCd(t *testing.T) {
	tests := []struct {
		src   string
		dirs  []string // Dir of every command
		redir string   // Path of the last command's redirection
	}{
		{"eval 'cd .git/hooks'; echo x > pre-commit", []string{"/a/b", "/a/b", "/a/b/.git/hooks"}, "/a/b/.git/hooks/pre-commit"},
		{"eval cd .git/hooks && echo x > pre-commit", []string{"/a/b", "/a/b", "/a/b/.git/hooks"}, "/a/b/.git/hooks/pre-commit"},
		{"eval 'cd x; eval \"cd y\"'; echo x > f", []string{"/a/b", "/a/b", "/a/b/x", "/a/b/x", "/a/b/x/y"}, "/a/b/x/y/f"},
		{"eval 'cd \"$D\"'; echo x > f", []string{"/a/b", "/a/b", ""}, ""},
		{"bash -c 'cd .git/hooks'; echo x > pre-commit", []string{"/a/b", "/a/b", "/a/b"}, "/a/b/pre-commit"},
		{"(eval 'cd x'); echo x > f", []string{"/a/b", "/a/b", "/a/b"}, "/a/b/f"},
		{"f() { cd .git/hooks; }; f; echo x > pre-commit", []string{"/a/b", "/a/b", ""}, ""},
		{"f() { ls; }; f; echo x > g", []string{"/a/b", "/a/b", "/a/b"}, "/a/b/g"},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		var dirs []string
		for _, c := range a.Commands {
			dirs = append(dirs, c.Dir)
		}
		if !slices.Equal(dirs, tt.dirs) {
			t.Errorf("%q: dirs %q, want %q", tt.src, dirs, tt.dirs)
		}
		last := a.Commands[len(a.Commands)-1]
		// The first placement is the new directory's; a cd that may have
		// failed adds the old directory's after it.
		if len(last.Redirects) == 0 || last.Redirects[0].Path != tt.redir {
			t.Errorf("%q: redirects %+v, want %q", tt.src, last.Redirects, tt.redir)
		}
	}
}

// A loop whose body changes the directory runs its later iterations
// elsewhere: their paths cannot be placed.
func TestFamilyLoopCd(t *testing.T) {
	a := analyze(t, "for i in 1 2; do echo x > config; cd .git; done; ls")
	var redirs []string
	for _, c := range a.Commands {
		redirs = append(redirs, paths(c.Redirects)...)
	}
	if !slices.Equal(redirs, []string{"/a/b/config", "?config"}) {
		t.Errorf("redirects %q, want the first iteration's and an unplaced one", redirs)
	}
	if last := a.Commands[len(a.Commands)-1]; last.Dir != "" {
		t.Errorf("after the loop: dir %q, want unknown", last.Dir)
	}
	a = analyze(t, "while read l; do echo \"$l\" > out; done; ls")
	if n := len(a.Commands); n != 3 {
		t.Errorf("loop without cd: %d commands, want 3", n)
	}
	if last := a.Commands[len(a.Commands)-1]; last.Dir != "/a/b" {
		t.Errorf("after a loop without cd: dir %q", last.Dir)
	}
}

// An option changed inside a loop may apply to commands before it in the
// source (the next iteration): every glob then counts dot-files.
func TestFamilyOptionsInLoop(t *testing.T) {
	a := analyze(t, "for i in 1 2; do cat *; shopt -s dotglob; done")
	if !slices.Contains(paths(a.Commands[0].Reads), "/a/b/.*") {
		t.Errorf("cat * before shopt in a loop: reads %q", paths(a.Commands[0].Reads))
	}
	a = analyze(t, "cat *; shopt -s dotglob")
	if slices.Contains(paths(a.Commands[0].Reads), "/a/b/.*") {
		t.Errorf("cat * before shopt outside a loop: reads %q", paths(a.Commands[0].Reads))
	}
}

// A function's body runs in the directory of each call.
func TestFamilyFunctionCalledElsewhere(t *testing.T) {
	a := analyze(t, "f() { echo x > config; }; cd .git; f")
	var redirs []string
	for _, c := range a.Commands {
		redirs = append(redirs, paths(c.Redirects)...)
	}
	if !slices.Contains(redirs, "/a/b/.git/config") {
		t.Errorf("redirects %q, want the call's directory", redirs)
	}
	// Recursion is walked once.
	if a := analyze(t, "f() { cd x; f; }; cd y; f"); len(a.Commands) > 8 {
		t.Errorf("recursive function: %d commands", len(a.Commands))
	}
}

// Walking loop bodies and function bodies again is bounded.
func TestFamilyRewalkBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("for i in 1; do cd /x; ")
	}
	b.WriteString("echo > f")
	for i := 0; i < 40; i++ {
		b.WriteString("; cd y; done")
	}
	a := analyze(t, b.String())
	if !unanalysable(a) {
		t.Errorf("nested loops: not unanalysable")
	}
	if len(a.Commands) > 2*MaxCommands {
		t.Errorf("nested loops: %d commands", len(a.Commands))
	}
	b.Reset()
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "f%d() { cd a; f%d; cd b; f%d; }; ", i+1, i, i)
	}
	b.WriteString("cd z; f30")
	a = analyze(t, b.String())
	if len(a.Commands) > 2*MaxCommands {
		t.Errorf("function chain: %d commands", len(a.Commands))
	}
}

// Family: bash removes a backslash-newline before it reads words, also
// between a $ and what it expands, where the parser reads a lone $ (checked
// against bash 5.2: echo $\<newline>(echo hi) prints hi, as does the same
// in double quotes; in single quotes it is text).
func TestFamilyDollarContinuation(t *testing.T) {
	tests := []struct {
		src  string
		cmd  string // the words of some command
		unan bool
	}{
		{"echo $\\\n(rm x)", "rm x", true},
		{"echo \"$\\\n(rm x)\"", "rm x", true},
		{"echo $\\\n\\\n(rm x)", "rm x", true},
		{"rm -rf $\\\n{HOME}", "rm -rf ~${HOME}", true}, // ~ marks a word that is not static
		{"echo '$\\\n(rm x)'", "echo $\\\n(rm x)", false},
		{"echo a\\\nb", "echo ab", false},
	}
	for _, tt := range tests {
		a := Analyze(tt.src, Options{Cwd: "/p", Home: "/h"})
		if got := commandWords(a); !slices.Contains(got, tt.cmd) {
			t.Errorf("%q: commands %q, want one %q", tt.src, got, tt.cmd)
		}
		if unanalysable(a) != tt.unan {
			t.Errorf("%q: unanalysable = %v, want %v", tt.src, unanalysable(a), tt.unan)
		}
	}
	if a := Analyze("rm -rf $\\\n{HOME}", Options{Cwd: "/p", Home: "/h"}); a.Commands[0].CriticalRemoval == "" {
		t.Errorf("rm -rf $\\<newline>{HOME} is not a critical removal")
	}
}
