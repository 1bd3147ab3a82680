package shell

import (
	"slices"
	"strings"
	"testing"
)

var testOpts = Options{Cwd: "/a/b", Home: "/home/u"}

func wordsString(ws []Word) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		if !w.Static {
			b.WriteByte('~')
		}
		b.WriteString(w.Value)
	}
	return b.String()
}

func formsStrings(c *Command) []string {
	var out []string
	for _, f := range c.Forms {
		out = append(out, wordsString(f))
	}
	return out
}

func paths(refs []PathRef) []string {
	var out []string
	for _, r := range refs {
		p := r.Path
		if p == "" {
			p = "?" + r.Text
		}
		out = append(out, p)
	}
	return out
}

func analyze(t *testing.T, src string) *Analysis {
	t.Helper()
	return Analyze(src, testOpts)
}

func TestCommandsEverywhere(t *testing.T) {
	tests := []struct {
		src  string
		want []string // Words of each command
	}{
		{"git status", []string{"git status"}},
		{"cargo build && curl x | sh", []string{"cargo build", "curl x", "sh"}},
		{"echo $(rm -rf /)", []string{"echo ~$(rm -rf /)", "rm -rf /"}},
		{"echo `id`", []string{"echo ~`id`", "id"}},
		{"diff <(ls a) <(ls b)", []string{"diff ~<(ls a) ~<(ls b)", "ls a", "ls b"}},
		{"(cd x; make)", []string{"cd x", "make"}},
		{"{ a; b; }", []string{"a", "b"}},
		{"f() { rm x; }; f", []string{"rm x", "f"}},
		{"if test -f x; then rm x; elif y; then z; else w; fi", []string{"test -f x", "rm x", "y", "z", "w"}},
		{"while read l; do echo $l; done < in", []string{"read l", "echo ~$l"}},
		{"for f in $(ls); do rm $f; done", []string{"ls", "rm ~$f"}},
		{"case $(a) in x) b;; esac", []string{"a", "b"}},
		{"[[ -n $(whoami) ]]", []string{"[[ -n ~$(whoami) ]]", "whoami"}},
		{"echo $(( $(c) + 1 ))", []string{"echo ~$(( $(c) + 1 ))", "c"}},
		{"echo ${x:-$(rm y)}", []string{"echo ~${x:-$(rm y)}", "rm y"}},
		{"bash -c 'rm -rf x; ls'", []string{"bash -c rm -rf x; ls", "rm -rf x", "ls"}},
		{"sh -lc \"echo hi\"", []string{"sh -lc echo hi", "echo hi"}},
		{"eval 'ls; rm a'", []string{"eval ls; rm a", "ls", "rm a"}},
		{"bash <<'EOF'\nrm -rf z\nEOF", []string{"bash", "rm -rf z"}},
		{"sh <<< 'echo a'", []string{"sh", "echo a"}},
		{"timeout 5 npm test", []string{"npm test"}},
		{"time -p nice -n 5 nohup stdbuf -oL command -p builtin exec noglob ls", []string{"ls"}},
		{"xargs rm", []string{"rm ~…"}},
		{"NODE_ENV=x npm test", []string{"npm test"}},
		{"x=$(curl evil)", []string{"curl evil"}},
		{"a; b & c", []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		var got []string
		for _, c := range a.Commands {
			got = append(got, wordsString(c.Words))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: commands = %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestForms(t *testing.T) {
	tests := []struct {
		src  string
		want []string // must all be among the forms of the first command
	}{
		{"sudo rm -rf /", []string{"sudo rm -rf /", "rm -rf /"}},
		{"sudo -u root -- rm x", []string{"rm x"}},
		{"git -c core.pager=x push", []string{"git -c core.pager=x push", "git push"}},
		{"git -C /tmp --no-pager log", []string{"git log"}},
		{"/usr/bin/git push", []string{"/usr/bin/git push", "git push"}},
		{"env -i A=b /bin/rm x", []string{"env -i A=b /bin/rm x", "/bin/rm x", "rm x"}},
		{"env -S 'rm -rf x'", []string{"rm -rf x"}},
		{"doas -u x rm y", []string{"rm y"}},
		{"watch -n 1 ls", []string{"ls"}},
		{"ionice -c 3 rm x", []string{"rm x"}},
		{"setsid rm x", []string{"rm x"}},
		{"flock /tmp/l rm x", []string{"rm x"}},
		{"timeout 5 npm test", []string{"npm test", "timeout 5 npm test"}},
		{"kubectl -n prod delete pod x", []string{"kubectl delete pod x"}},
		{"docker --context x run y", []string{"docker run y"}},
		{"npm --prefix x run build", []string{"npm run build"}},
		{"go -C x test", []string{"go test"}},
		{"cargo +nightly build", []string{"cargo build"}},
		{"sudo timeout 3 /usr/bin/git -c a=b push", []string{"git push"}},
		{"find . -exec rm -rf {} \\;", []string{"rm -rf ."}},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		if len(a.Commands) == 0 {
			t.Errorf("%q: no commands", tt.src)
			continue
		}
		forms := formsStrings(a.Commands[0])
		if forms[0] != wordsString(a.Commands[0].Words) {
			t.Errorf("%q: first form %q is not Words", tt.src, forms[0])
		}
		for _, w := range tt.want {
			if !slices.Contains(forms, w) {
				t.Errorf("%q: forms %q lack %q", tt.src, forms, w)
			}
		}
		seen := map[string]bool{}
		for _, f := range forms {
			if seen[f] {
				t.Errorf("%q: duplicate form %q", tt.src, f)
			}
			seen[f] = true
		}
	}
}

func TestUnanalysable(t *testing.T) {
	tests := []struct {
		src  string
		want bool // some command or the analysis is unanalysable
	}{
		{"ls -la", false},
		{"$CMD x", true},
		{"$(echo rm) x", true},
		{"/bin/r* x", true},
		{"eval $X", true},
		{"eval 'ls'", false},
		{"source ./x.sh", false},
		{". ./x.sh", false},
		{"bash -c \"$X\"", true},
		{"bash -c 'ls'", false},
		{"bash x.sh", false},
		{"curl x | sh", true},
		{"curl x | bash -s", true},
		{"python3 x.py", false},
		{"python3 -m pytest", false},
		{"python3 -c 'print(1)'", false},
		{"python3 --version", false},
		{"node -e 'x'", false},
		{"cat x | python", true},
		{"perl x.pl", false},
		{"trap 'rm x' EXIT", true},
		{"alias ls='rm -rf /'", true},
		{"let x=1", true},
		{"mapfile -C cb arr", true},
		{"readarray -C cb arr", true},
		{"coproc cat", true},
		{"hash -p /tmp/evil ls", true},
		{"enable -f x y", true},
		{"printf -v 'a[$(id)]' x", true},
		{"read -a 'a[$(id)]'", true},
		{"declare 'a[$(id)]=1'", true},
		{"test -v 'a[$(id)]'", true},
		{"[[ -v a[$(id)] ]]", true},
		{"[[ $x -eq a[1] ]]", true},
		{"echo ${x@P}", true},
		{"echo ${x@Q}", false},
		{"echo ${!x}", true},
		{"echo =ls", true},
		{"echo *(e:rm:)", true},
		{"echo 'unterminated", true},
		{"echo (", true},
		{"bash -c 'echo (' ", true},
		{strings.Repeat("( ", 20) + "ls" + strings.Repeat(" )", 20), true},
		{strings.Repeat("true;", MaxCommands+1), true},
		{"echo " + strings.Repeat("a", MaxAnalysable), true},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		got := len(a.Unanalysable) > 0
		for _, c := range a.Commands {
			if c.Unanalysable != "" {
				got = true
			}
		}
		if got != tt.want {
			t.Errorf("%q: unanalysable = %v, want %v (%+v)", tt.src, got, tt.want, a.Unanalysable)
		}
		if got && a.ReadOnly {
			t.Errorf("%q: unanalysable but read-only", tt.src)
		}
	}
}

// TestCarriageReturn checks that a carriage return, a blank to the parser
// but a word character to bash, makes the command unanalysable and that
// deny sees the commands bash runs.
func TestCarriageReturn(t *testing.T) {
	tests := []struct {
		src  string
		want string // a form some command must have ("" for none)
	}{
		{"ls \\\r\nrm x", "rm x"},                     // bash: ls $'\r', then rm x
		{"ls \r# ; rm x", "rm x"},                     // bash: ls $'\r#'; rm x
		{"ls\r\nrm x", "rm x"},                        // bash: ls$'\r', then rm x
		{"cat <<EOF\rX\nEOF\rX\nrm x\nEOF\n", "rm x"}, // the delimiter is EOF\rX
		{"bash -c $'ls \\\\\r\nrm x'", ""},
		{"echo 'a\rb'", ""},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		if len(a.Unanalysable) == 0 || a.ReadOnly {
			t.Errorf("%q: analysable (%+v), read-only %v", tt.src, a.Unanalysable, a.ReadOnly)
		}
		if tt.want == "" {
			continue
		}
		var all []string
		for _, c := range a.Commands {
			all = append(all, formsStrings(c)...)
		}
		if !slices.Contains(all, tt.want) {
			t.Errorf("%q: forms %q lack %q", tt.src, all, tt.want)
		}
	}
}

func TestParseErrorKeepsCommands(t *testing.T) {
	a := analyze(t, "rm -rf /tmp/x; echo 'oops")
	if len(a.Unanalysable) == 0 {
		t.Fatal("no issue for parse error")
	}
	found := false
	for _, c := range a.Commands {
		if len(c.Words) > 0 && c.Words[0].Value == "rm" {
			found = true
		}
	}
	if !found {
		t.Errorf("commands before the parse error are lost: %+v", a.Commands)
	}
}

func TestLimitsStillCollect(t *testing.T) {
	src := strings.Repeat("( ", 20) + "rm -rf /" + strings.Repeat(" )", 20)
	a := analyze(t, src)
	if len(a.Commands) != 1 || a.Commands[0].CriticalRemoval == "" {
		t.Errorf("deep command not collected: %+v", a.Commands)
	}
	a = analyze(t, strings.Repeat("true;", MaxCommands+5)+"rm -rf /")
	last := a.Commands[len(a.Commands)-1]
	if last.CriticalRemoval == "" {
		t.Errorf("command past the limit not checked")
	}
}

func TestAssignments(t *testing.T) {
	tests := []struct {
		src    string
		unsafe []string
	}{
		{"NODE_ENV=test CI=1 LC_ALL=C npm test", nil},
		{"PATH=/tmp git status", []string{"PATH"}},
		{"PATH=/tmp; git status", []string{"PATH"}},
		{"export PATH=/tmp", []string{"PATH"}},
		{"declare -x LD_PRELOAD=x", []string{"LD_PRELOAD"}},
		{"local IFS=x", []string{"IFS"}},
		{"readonly BASH_ENV=x", []string{"BASH_ENV"}},
		{"typeset GIT_DIR=x", []string{"GIT_DIR"}},
		{"env PROMPT_COMMAND=x ls", []string{"PROMPT_COMMAND"}},
		{"for PATH in /tmp; do git status; done", []string{"PATH"}},
		{"read PATH", []string{"PATH"}},
		{"echo ${PATH:=/tmp}", []string{"PATH"}},
		{"(( IFS=1 ))", []string{"IFS"}},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		if !slices.Equal(a.UnsafeAssign, tt.unsafe) {
			t.Errorf("%q: unsafe = %q, want %q", tt.src, a.UnsafeAssign, tt.unsafe)
		}
		if len(tt.unsafe) > 0 && a.ReadOnly {
			t.Errorf("%q: read-only despite unsafe assignment", tt.src)
		}
	}
	a := analyze(t, "A=1 B=2 ls")
	if got := a.Commands[0].Assigns; !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("Assigns = %q", got)
	}
}

func TestDir(t *testing.T) {
	tests := []struct {
		src  string
		dirs []string
	}{
		{"ls", []string{"/a/b"}},
		{"cd /tmp && ls", []string{"/a/b", "/tmp"}},
		{"cd x; ls; cd ..; ls", []string{"/a/b", "/a/b/x", "/a/b/x", "/a/b"}},
		{"cd $X; ls", []string{"/a/b", ""}},
		{"(cd /tmp; ls); ls", []string{"/a/b", "/tmp", "/a/b"}},
		{"cd; ls", []string{"/a/b", "/home/u"}},
		{"pushd /x; ls; popd; ls", []string{"/a/b", "/x", "/x", ""}},
		{"cd /tmp | ls", []string{"/a/b", "/a/b"}},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		var got []string
		for _, c := range a.Commands {
			got = append(got, c.Dir)
		}
		if !slices.Equal(got, tt.dirs) {
			t.Errorf("%q: dirs = %q, want %q", tt.src, got, tt.dirs)
		}
	}
}

func TestCriticalRemoval(t *testing.T) {
	tests := []struct {
		src  string
		want bool
	}{
		{"rm -rf /", true},
		{"rm -rf ~", true},
		{"rm -rf ~/", true},
		{"rm -rf ~bob", true},
		{"rm -rf $HOME", true},
		{"rm -rf \"${HOME}\"", true},
		{"rm -rf /*", true},
		{"rm -rf ~/*", true},
		{"rm -rf /usr", true},
		{"rm -rf /usr/", true},
		{"cd /; rm -rf *", true},
		{"cd $X; rm -rf *", true},
		{"rm -rf \"$DIR\"/*", true},
		{"rm -rf $DIR/*", true},
		{"rm -rf ..", true},
		{"rm -rf .", true},
		{"rm -rf /a", true},
		{"rm -rf /a/b", true},
		{"rm -rf *", true}, // a glob directly inside the working directory
		{"cd build && rm -rf *", false},
		{"rm -rf ./build", false},
		{"rm -rf /a/b/c", false},
		{"rm -rf ~/x", false},
		{"rm -rf $DIR", false},
		// The values the script gave the variable (SPEC §7: every spelling).
		{"d=/; rm -rf $d", true},
		{"d=~; rm -rf \"$d\"", true},
		{"for d in x /; do rm -rf $d; done", true},
		{"d='/*'; rm -rf $d", true},
		{"d=build; rm -rf $d", false},
		{"rmdir /usr", true},
		{"shred /", true},
		{"unlink /", true},
		{"sudo rm -rf /", true},
		{"echo $(rm -rf /)", true},
		{"bash -c 'rm -rf ~'", true},
		{"find / -delete", true},
		{"find ./build -delete", false},
		{"ls | xargs rm", true},
		{"rm -rf {/,x}", true},
		{"/bin/rm -rf /", true},
		{"find / -exec rm -rf {} +", true},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		got := false
		for _, c := range a.Commands {
			if c.CriticalRemoval != "" {
				got = true
			}
		}
		if got != tt.want {
			t.Errorf("%q: critical = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestFiles(t *testing.T) {
	tests := []struct {
		src                                string
		writes, redirects, reads, searches []string
	}{
		{src: "echo x > out", writes: []string{"/a/b/out"}, redirects: []string{"/a/b/out"}},
		{src: "echo x >> /tmp/o 2> err", writes: []string{"/tmp/o", "/a/b/err"}, redirects: []string{"/tmp/o", "/a/b/err"}},
		{src: "echo x &> o", writes: []string{"/a/b/o"}, redirects: []string{"/a/b/o"}},
		{src: "echo x >| o", writes: []string{"/a/b/o"}, redirects: []string{"/a/b/o"}},
		{src: "echo x > /dev/null 2>&1"},
		{src: "echo x >&2"},
		{src: "cat .env", reads: []string{"/a/b/.env"}},
		{src: "cat < in", reads: []string{"/a/b/in"}},
		{src: "head -n 5 a b", reads: []string{"/a/b/a", "/a/b/b"}},
		{src: "grep -r foo .", reads: []string{"/a/b"}, searches: []string{"/a/b"}},
		{src: "grep -r foo", searches: []string{"/a/b"}},
		{src: "grep foo x", reads: []string{"/a/b/x"}},
		{src: "grep -e foo x y", reads: []string{"/a/b/x", "/a/b/y"}},
		{src: "rg foo", searches: []string{"/a/b"}},
		{src: "git grep foo", searches: []string{"/a/b"}},
		{src: "find src -exec grep x {} +", searches: []string{"/a/b/src"}, reads: []string{"/a/b/src"}},
		{src: "cp a b", writes: []string{"/a/b/b"}, reads: []string{"/a/b/a"}},
		{src: "mv a b", writes: []string{"/a/b/b", "/a/b/a"}},
		{src: "cp -t d a", writes: []string{"/a/b/d"}, reads: []string{"/a/b/a"}},
		{src: "tee x y", writes: []string{"/a/b/x", "/a/b/y"}},
		{src: "touch ~/x", writes: []string{"/home/u/x"}},
		{src: "mkdir -p $HOME/x", writes: []string{"/home/u/x"}},
		{src: "sed -i s/a/b/ f", writes: []string{"/a/b/f"}, reads: []string{"/a/b/f"}},
		{src: "dd if=a of=b", writes: []string{"/a/b/b"}, reads: []string{"/a/b/a"}},
		{src: "tar -xzf a.tgz -C out", writes: []string{"/a/b/out"}, reads: []string{"/a/b/a.tgz"}},
		{src: "tar xf a.tar", writes: []string{"/a/b"}, reads: []string{"/a/b/a.tar"}},
		{src: "tar -czf a.tgz src", writes: []string{"/a/b/a.tgz"}, reads: []string{"/a/b/src"}, searches: []string{"/a/b/src"}},
		{src: "unzip a.zip -d out", writes: []string{"/a/b/out"}, reads: []string{"/a/b/a.zip"}},
		{src: "curl -d @.env x", reads: []string{"/a/b/.env"}},
		{src: "curl --data-binary @f -T g -F k=@h x", reads: []string{"/a/b/f", "/a/b/g", "/a/b/h"}},
		{src: "curl -o out x", writes: []string{"/a/b/out"}},
		{src: "git show HEAD:.env", reads: []string{"/a/b/.env"}},
		{src: "git diff --no-index .env x", reads: []string{"/a/b/.env", "/a/b/x"}},
		{src: "git diff HEAD -- .env", reads: []string{"/a/b/HEAD", "/a/b/.env"}},
		{src: "git diff HEAD:.env x", reads: []string{"/a/b/HEAD:.env", "/a/b/x", "/a/b/.env"}},
		{src: "git -C sub blame -L 1,2 .env", reads: []string{"/a/b/sub/.env", "/a/b/.env"}},
		{src: "git checkout -- f", writes: []string{"/a/b", "/a/b/f"}},
		{src: "cd /x && cat y", reads: []string{"/x/y"}},
		{src: "cd $D && cat y", reads: []string{"?y"}},
		{src: "python3 x.py", reads: []string{"/a/b/x.py"}},
		{src: "source ./env.sh", reads: []string{"/a/b/env.sh"}},
		{src: "ln -s /etc/passwd l", writes: []string{"/a/b/l"}, reads: []string{"/etc/passwd"}},
		{src: "chmod +x f", writes: []string{"/a/b/f"}},
		{src: "truncate -s 0 f", writes: []string{"/a/b/f"}},
		{src: "rsync -a src/ host:dst", reads: []string{"/a/b/src"}, searches: []string{"/a/b/src"}},
		{src: "cp -r src dst", writes: []string{"/a/b/dst"}, reads: []string{"/a/b/src"}, searches: []string{"/a/b/src"}},
		{src: "ls | xargs cat", searches: []string{"/a/b"}, reads: []string{"?…"}}, // any path xargs passes: unplaced
		{src: "{ echo a; } > o", writes: []string{"/a/b/o"}, redirects: []string{"/a/b/o"}},
		{src: "sort -o out in", writes: []string{"/a/b/out"}, reads: []string{"/a/b/in"}},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		var w, r, rd, s []string
		for _, c := range a.Commands {
			w = append(w, paths(c.Writes)...)
			r = append(r, paths(c.Redirects)...)
			rd = append(rd, paths(c.Reads)...)
			s = append(s, paths(c.Searches)...)
		}
		check := func(field string, got, want []string) {
			if !slices.Equal(got, want) {
				t.Errorf("%q: %s = %q, want %q", tt.src, field, got, want)
			}
		}
		check("writes", w, tt.writes)
		check("redirects", r, tt.redirects)
		check("reads", rd, tt.reads)
		check("searches", s, tt.searches)
	}
}

func TestArgPaths(t *testing.T) {
	tests := []struct {
		src  string
		want string // must be among the arg paths
	}{
		{"echo .env", "/a/b/.env"},
		{"git add .env", "/a/b/.env"},
		{"foo --file=.env", "/a/b/.env"},
		{"curl -d @.env x", "/a/b/.env"},
		{"git show HEAD:.env", "/a/b/.env"},
		{"dd if=.env", "/a/b/.env"},
		{"cat ~/.ssh/id_rsa", "/home/u/.ssh/id_rsa"},
		{"cat $HOME/.netrc", "/home/u/.netrc"},
		{"cat {a,.env}", "/a/b/.env"},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		if got := paths(a.Commands[0].ArgPaths); !slices.Contains(got, tt.want) {
			t.Errorf("%q: arg paths %q lack %q", tt.src, got, tt.want)
		}
	}
}

func TestGlobExpansion(t *testing.T) {
	opts := testOpts
	opts.Glob = func(p string) ([]string, error) {
		if p == "/a/b/*.env" {
			return []string{"/a/b/x.env"}, nil
		}
		return nil, nil
	}
	a := Analyze("cat *.env", opts)
	c := a.Commands[0]
	if got := paths(c.Reads); !slices.Equal(got, []string{"/a/b/*.env", "/a/b/x.env"}) {
		t.Errorf("reads = %q", got)
	}
	if !c.Reads[0].Glob || c.Reads[1].Glob {
		t.Errorf("glob flags wrong: %+v", c.Reads)
	}
	a = analyze(t, "cat '*.env'")
	if a.Commands[0].Reads[0].Glob {
		t.Errorf("quoted * read as a glob")
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		src                     string
		exact, ro, accept, wrap bool
	}{
		{src: "ls -la", ro: true},
		{src: "cat x", ro: true},
		{src: "git status", ro: true},
		{src: "git log --oneline", ro: true},
		{src: "git diff HEAD", ro: true},
		{src: "git diff --output=x"},
		{src: "git branch --list", ro: true},
		{src: "git branch -D x"},
		{src: "git push"},
		{src: "echo x > out"},
		{src: "echo x > /dev/null", ro: true},
		{src: "printf '%s' x", ro: true},
		{src: "printf -v x y"},
		{src: "grep -r x .", ro: true},
		{src: "rg x", ro: true},
		{src: "rg --pre cat x", exact: true},
		{src: "rg -z x", exact: true},
		{src: "find . -name x", ro: true},
		{src: "find . -name x -exec rm {} \\;", exact: true},
		{src: "find . -delete", exact: true},
		{src: "find . -fprint out", exact: true},
		{src: "find . -execdir ls \\;", exact: true},
		{src: "watch ls", exact: true},
		{src: "setsid ls", exact: true},
		{src: "flock l ls", exact: true},
		{src: "xargs -0 rm", exact: true},
		{src: "xargs rm"},
		{src: "sed -n p x", ro: true},
		{src: "sed s/a/b/ x"},
		{src: "sed -n 's/a/b/e' x", exact: true},
		{src: "sed -n 'w out' x", exact: true},
		{src: "sed -n '1e id' x", exact: true},
		{src: "sed -i s/a/b/ x", accept: true},
		{src: "awk '{print $1}' x", ro: true},
		{src: "awk '{system(\"id\")}' x", exact: true},
		{src: "awk '{\"date\" | getline d}'", exact: true},
		{src: "awk '{print > \"out\"}'", exact: true},
		{src: "awk '$1 > 5 {print}' f", ro: true},
		// A quote in a regular expression or a comment starts no string.
		{src: `awk '$0 ~ /"/ {system("rm x")}' f`, exact: true},
		{src: `awk '/"/ {system("rm x")}' f`, exact: true},
		{src: "awk 'print /\"/; system(\"rm x\")' f", exact: true},
		{src: "awk '# \"\nBEGIN{system(\"rm x\")} # \"' f", exact: true},
		{src: `awk '/"/ {print > "out"} /"/' f`, exact: true},
		{src: `awk 'x++ /"/ {system("rm x")}' f`, exact: true},
		{src: `awk '/[/"]/ {print $1 / 2} # "' f`, ro: true},
		{src: `awk '{print $1 / 2 " x"}' f`, ro: true},
		{src: `awk 'BEGIN{f="system"; @f("rm x")}'`, exact: true},
		{src: `awk '@include "x.awk"; {print}' f`, exact: true},
		{src: "awk -W exec prog.awk f", exact: true},
		{src: "awk '{print ENVIRON[\"HOME\"]}' f"},
		{src: "awk '{print \"ENVIRON\"}' f", ro: true},
		{src: "mkdir x", accept: true},
		{src: "rm x", accept: true},
		{src: "sudo rm x"},
		{src: "bash -c 'ls'", wrap: true, ro: true},
		{src: "bash -c 'rm x'", wrap: true},
		{src: "eval ls", wrap: true, ro: true},
		{src: "sh <<'E'\nls\nE", wrap: true, ro: true},
		{src: "jq . x", ro: true},
		{src: "date", ro: true},
		{src: "date -s now"},
		{src: "sort -o x y"},
		{src: "tree", ro: true},
		{src: "which ls", ro: true},
		{src: "echo $(ls)", ro: true},
		{src: "echo $(rm x)"},
		{src: "ls; rm x"},
		{src: "curl x"},
		// Scripts, modules and inline code: only an exact rule (SPEC §4.1).
		{src: "source ./x.sh", exact: true},
		{src: "bash x.sh", exact: true},
		{src: "python3 tools/gen.py", exact: true},
		{src: "python3 -m pytest", exact: true},
		{src: "python3 -c 'print(1)'", exact: true},
		{src: "node -e 'x'", exact: true},
		{src: "./x.sh", exact: true},
	}
	for _, tt := range tests {
		a := analyze(t, tt.src)
		c := a.Commands[0]
		if c.ExactOnly != tt.exact {
			t.Errorf("%q: ExactOnly = %v", tt.src, c.ExactOnly)
		}
		if a.ReadOnly != tt.ro {
			t.Errorf("%q: ReadOnly = %v", tt.src, a.ReadOnly)
		}
		if c.AcceptEdits != tt.accept {
			t.Errorf("%q: AcceptEdits = %v", tt.src, c.AcceptEdits)
		}
		if c.Wrapper != tt.wrap {
			t.Errorf("%q: Wrapper = %v", tt.src, c.Wrapper)
		}
	}
}

func TestTextAndStdin(t *testing.T) {
	a := analyze(t, "ls -l  >out;  bash -c 'echo  hi'")
	var texts []string
	for _, c := range a.Commands {
		texts = append(texts, c.Text)
	}
	want := []string{"ls -l  >out", "bash -c 'echo  hi'", "echo  hi"}
	if !slices.Equal(texts, want) {
		t.Errorf("texts = %q, want %q", texts, want)
	}
	a = analyze(t, "apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF")
	c := a.Commands[0]
	if !c.StdinStatic || c.Stdin != "*** Begin Patch\n*** End Patch\n" {
		t.Errorf("stdin = %q %v", c.Stdin, c.StdinStatic)
	}
	a = analyze(t, "cat <<EOF\n$(id)\nEOF")
	if a.Commands[0].StdinStatic || len(a.Commands) != 2 {
		t.Errorf("dynamic heredoc: %+v", a.Commands)
	}
	if d := a.Commands[1].Depth; d != 1 || a.Commands[1].Words[0].Value != "id" {
		t.Errorf("depth = %d", d)
	}
}

func TestNeverPanics(t *testing.T) {
	for _, src := range []string{"", " ", ";", "((", "$((", "${", "<<", "a <<E", "\x00", "case", "[[ ]]", "function", "f() {", "`", "$(`", "echo ${x[", "for ((;;))"} {
		_ = Analyze(src, Options{})
		_ = Analyze(src, testOpts)
	}
}
