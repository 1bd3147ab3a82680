package shell

import (
	"fmt"
	"strings"
	"testing"
)

// Every model entry compiles (init would panic otherwise) and its option
// spellings are reachable: a canonical key found by its own spelling.
func TestModelTable(t *testing.T) {
	n, opts := 0, 0
	check := func(m *model) {
		n++
		for _, d := range m.long {
			opts++
			if d.key == "" {
				t.Errorf("%s: option without a key", m.name)
			}
		}
		for _, d := range m.short {
			if d != nil {
				opts++
			}
		}
	}
	for _, m := range models {
		check(m)
		for _, s := range m.subs {
			check(s)
		}
	}
	for _, w := range wrappers {
		check(w.m)
	}
	if n < 150 {
		t.Errorf("only %d commands modelled", n)
	}
	t.Logf("%d commands and subcommands, %d option spellings", n, opts)
}

func TestModelParse(t *testing.T) {
	tests := []struct {
		cmd     string
		opts    string // canonical names, space-separated
		ops     string
		unknown string
	}{
		{"rm -rf x", "-r -f", "x", ""},
		{"rm -fr x", "-f -r", "x", ""},
		{"rm -Rf x", "-r -f", "x", ""},
		{"rm --recursive --force x", "-r -f", "x", ""},
		{"rm --rec --fo x", "-r -f", "x", ""},
		{"rm -r -f -- -x", "-r -f", "-x", ""},
		{"rm -rfZ x", "-r -f", "x", "-Z"},
		{"head -5 f", "-NUM", "f", ""},
		{"head -n5 f", "-n", "f", ""},
		{"head -n 5 f", "-n", "f", ""},
		{"sort -o out f", "-o", "f", ""},
		{"sort --output=out f", "-o", "f", ""},
		{"sort --compress-program gzip f", "--compress-program", "f", ""},
		{"sed -i.bak s/a/b/ f", "-i", "s/a/b/ f", ""},
		{"sed -n -e p f", "-n -e", "f", ""},
		{"ls --color=auto -la", "--color -l -a", "", ""},
		{"ls --colour", "", "", "--colour"},
		{"cut --delim=, -f1 f", "-d -f", "f", ""},
		{"cat --show", "", "", "--show"}, // ambiguous: --show-all, --show-ends...
		{"jq --arg a b . f", "--arg", ". f", ""},
	}
	for _, tt := range tests {
		ws := strings.Fields(tt.cmd)
		m := lookupModel(ws[0])
		args := make([]wordInfo, len(ws)-1)
		for i, w := range ws[1:] {
			args[i] = staticWord(w)
		}
		a := m.parse(args)
		var names, ops []string
		for _, o := range a.opts {
			names = append(names, o.name)
		}
		for _, w := range a.ops {
			ops = append(ops, w.Value)
		}
		if g := strings.Join(names, " "); g != tt.opts {
			t.Errorf("%q: options %q, want %q", tt.cmd, g, tt.opts)
		}
		if g := strings.Join(ops, " "); g != tt.ops {
			t.Errorf("%q: operands %q, want %q", tt.cmd, g, tt.ops)
		}
		if g := strings.Join(a.unknown, " "); g != tt.unknown {
			t.Errorf("%q: unknown %q, want %q", tt.cmd, g, tt.unknown)
		}
	}
}

// The closed world: an option or command the model does not know is never
// read-only; options that write or run are not read-only either.
func TestClosedWorldReadOnly(t *testing.T) {
	tests := []struct {
		src string
		ro  bool
	}{
		{"ls -la src", true},
		{"ls --group-directories-first", true},
		{"ls --frobnicate", false},
		{"cat -n f", true},
		{"cat --evil f", false},
		{"git status", true},
		{"git log --oneline -n 5", true},
		{"git log --output=.git/hooks/pre-commit", false},
		{"git show --output=x HEAD", false},
		{"git diff --output x", false},
		{"git diff --ext-diff", false},
		{"git archive HEAD", false},
		{"git config user.name", true},
		{"git config --get user.name", true},
		{"git config user.name x --get", false},
		{"git config --list", true},
		{"git config core.pager evil", false},
		{"sort f", true},
		{"sort --compress-program=sh f", false},
		{"sort -T /tmp f", false},
		{"sed -n 1p f", true},
		{"sed -n '1r ~/.ssh/id_rsa' f", false},
		{"sed -n 'R /etc/shadow' f", false},
		{"sed -n 'w out' f", false},
		{"awk '{print $1}' f", true},
		{`awk 'BEGIN{getline l < ".env"; print l}'`, false},
		{"yq -i .a=1 f.yaml", false},
		{"yq --inplace .a=1 f.yaml", false},
		{"yq .a f.yaml", true},
		{"rg --hostname-bin ./x pat", false},
		{"rg --pre ./x pat", false},
		{"rg pat", true},
		{"env", false},
		{"printenv", false},
		{"printenv HOME", false},
		{"set", false},
		{"export -p", false},
		{"declare -p", false},
		{"export", false},
		{"declare", false},
		{"typeset", false},
		{"readonly", false},
		{"local", false},
		{"ps aux", true},
		{"ps eww", false},
		{"ps -o pid,comm", true},
		{"ps -eo pid:8,user,%cpu,args=CMD", true},
		{"ps -o environ", false},
		{"ps -p 1 -o pid,environ", false},
		{"ps -o args=CMD,environ", false},
		{"ps -O ENVIRON", false},
		{"ps --format pid,environ", false},
		{"ps -o \"$F\"", false},
		{"git config --local --get user.name", true},
		{"git config -f x -l", true},
		{"git config --local --includes -l", false},
		{"date +%s", true},
		{"date 0101", false},
		{"jq . f", true},
		{"jq -n env", false},
		{"jq -n '$ ENV'", false},
		{`jq -n 'include "x"; 1'`, false},
		{`jq -n 'import "cfg" as $c; $c'`, false},
		{"jq -n modulemeta", false},
		{`jq -r '.includes[]' f`, false},
		{"jq -n '$#\nENV'", false},
		{"jq -n -f prog.jq", false},
		{"jq --from-file prog.jq f", false},
		{"frobnicate", false},
		{"make", false},
		{"find . -name '*.go'", true},
		{"find . -frobnicate", false},
		{"echo --anything goes", true},
		{"timeout 5 ls", true},
		{"timeout --frob 5 ls", false},
		{"xargs -l ls", false},
		{"nice -n 5 cat f", true},
		{"command -v ls", false},
		{"hostname", true},
		{"hostname evil", false},
		{"cat < /dev/tcp/127.0.0.1/80", false},
		{"cat < /dev/null", true},
	}
	for _, tt := range tests {
		a := Analyze(tt.src, Options{Cwd: "/p", Home: "/h"})
		if a.ReadOnly != tt.ro {
			t.Errorf("%q: ReadOnly = %v, want %v (%+v)", tt.src, a.ReadOnly, tt.ro, a.Unanalysable)
		}
	}
}

// What the model finds in wrappers, xargs and the read-only commands that
// read or write through options.
func TestModelReadsWrites(t *testing.T) {
	tests := []struct {
		src                  string
		forms                []string // forms that must be present
		reads, writes        []string
		exact, mayWrite, una bool
	}{
		{src: "xargs -l rm -rf /", forms: []string{"rm -rf / ~…"}, exact: true},
		{src: "xargs --max-lines rm -rf /", forms: []string{"rm -rf / ~…"}, exact: true},
		{src: "xargs -i rm {}", forms: []string{"rm {} ~…"}, exact: true},
		{src: "xargs -e rm -rf x", forms: []string{"rm -rf x ~…"}, exact: true},
		{src: "xargs --eof=x rm -rf y", forms: []string{"rm -rf y ~…"}, exact: true},
		{src: "xargs --replace rm {}", forms: []string{"rm {} ~…"}, exact: true},
		{src: "env -iS 'rm -rf /'", forms: []string{"rm -rf /"}, mayWrite: false},
		{src: "env -vS'rm -rf /'", forms: []string{"rm -rf /"}},
		{src: "ionice -t rm -rf x", forms: []string{"rm -rf x"}},
		{src: "/usr/bin/time -f %e rm -rf x", forms: []string{"rm -rf x"}},
		{src: "command time -v rm -rf x", forms: []string{"rm -rf x"}},
		{src: "su -c 'rm -rf x' root", forms: []string{"rm -rf x"}},
		{src: "su root -c 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "su - root -c 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "su root -lc 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "su root --command='rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "runuser -l u -c 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "runuser -l u -crm", forms: []string{"rm"}},
		{src: "strace -f -o /dev/null rm -rf x", forms: []string{"rm -rf x"}},
		{src: "timeout --frob 5 rm x", forms: []string{"rm x", "x"}, una: true},
		{src: "git log --output=out", writes: []string{"/p/out"}},
		{src: "sed -n '1r /h/.ssh/id_rsa' f", reads: []string{"/h/.ssh/id_rsa", "/p/f"}},
		{src: `awk 'BEGIN{getline l < ".env"}'`, reads: []string{"/p/.env"}},
		// sh reads sort's compressed data as its program.
		{src: "sort --compress-program=sh f", reads: []string{"/p/f"}, exact: true, una: true},
		// The commands that options make a program run are read (for deny).
		{src: "sort --compress-program='rm -rf x' f", forms: []string{"rm -rf x"}, exact: true},
		{src: "tar -xf a.tar --to-command='rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "tar --checkpoint-action=exec='rm -rf x' -cf a .", forms: []string{"rm -rf x"}, exact: true},
		{src: "tar -I 'rm -rf x' -xf a", forms: []string{"rm -rf x"}, exact: true},
		{src: "rsync -e 'rm -rf x' a h:b", forms: []string{"rm -rf x"}, exact: true},
		{src: "rg --pre 'rm -rf x' foo", forms: []string{"rm -rf x"}, exact: true},
		{src: "ack --output='$1' foo", exact: true},
		{src: "zip -TT 'rm -rf x' a.zip f", forms: []string{"rm -rf x"}, exact: true},
		{src: "man -P 'rm -rf x' ls", forms: []string{"rm -rf x"}, exact: true},
		{src: "man -H'rm -rf x' ls", forms: []string{"rm -rf x"}, exact: true},
		{src: "make CC='rm -rf x' all", forms: []string{"rm -rf x"}},
		{src: "make --eval='all:; rm x'", exact: true},
		{src: "make -f - all", exact: true},
		{src: "cargo --config 'target.x.runner=\"x\"' run", exact: true},
		{src: "curl -K cfg", exact: true},
		// The values a script gives its variables are read for deny.
		{src: "f=.env; cat $f", reads: []string{"/p/.env"}},
		{src: "f=.env; g=\"./$f\"; cat \"$g\"", reads: []string{"/p/.env"}},
		{src: "x=(a .env); cat \"${x[@]}\"", reads: []string{"/p/.env"}},
		{src: "for f in a .env; do cat $f; done", reads: []string{"/p/.env"}},
		{src: "export d=/h/.ssh; cat $d/id_rsa", reads: []string{"/h/.ssh/id_rsa"}, exact: true}, // the value read as a guessed script: a program by path
		// A value that is not code is no issue: P holds a glob.
		{src: "P='*.txt'; ls $P"},
		{src: "MSG='a b'; echo $MSG"},
		{src: "X='eval $Y'"},
		// A variable programs run as a command is code: unanalysable.
		{src: "PAGER='eval $Y' git log", una: true},
		{src: "GIT_CONFIG_VALUE_0='!eval $Y' git x", una: true},
		// bash runs what history -s adds when fc -s asks, even when not
		// interactive (checked with bash 5.2).
		{src: "history -s 'rm -rf x'; fc -s", forms: []string{"rm -rf x"}, una: true, mayWrite: true},
		{src: "fc -e - rm", una: true},
		{src: "fc -l"},
		// The string literals of inline code may be commands it runs.
		{src: `python3 -c 'import os; os.system("rm -rf x")'`, forms: []string{"rm -rf x"}, exact: true},
		{src: "node -e 'require(`child_process`).execSync(`rm -rf x`)'", forms: []string{"rm -rf x"}, exact: true},
		{src: "python3 <<'EOF'\nimport os; os.system('rm -rf x')\nEOF", forms: []string{"rm -rf x"}, una: true},
		{src: "frob .git/config", mayWrite: true},
		{src: "wc --files0-from=list", reads: []string{"/p/list", "?…"}},
		{src: "du --files0-from list", reads: []string{"/p/list", "?…"}},
		{src: "sort --files0-from=l", reads: []string{"/p/l", "?…"}},
		{src: "file -f list", reads: []string{"/p/list", "?…"}},
		{src: "sha256sum -c sums", reads: []string{"/p/sums", "?…"}},
		{src: "git -c alias.p='!rm -rf x' p", forms: []string{"rm -rf x"}, exact: true},
		{src: "git -c core.pager='rm -rf x' log", forms: []string{"rm -rf x"}, exact: true},
		{src: "git --config-env=core.pager=X log", exact: true, una: true},
		{src: "git rebase --exec 'rm -rf x' main", forms: []string{"rm -rf x"}, exact: true},
		{src: "git rebase -ix 'rm -rf x' main", forms: []string{"rm -rf x"}, exact: true},
		{src: "git rebase --exe='rm -rf x' main", forms: []string{"rm -rf x"}, exact: true},
		{src: "git rebase -i main", exact: false},
		{src: "git bisect run rm -rf 'a b'", forms: []string{"rm -rf a b"}, exact: true},
		{src: "git submodule foreach --recursive 'rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "git clone -u 'rm -rf x' . y", forms: []string{"rm -rf x"}, exact: true},
		{src: "git fetch --upload-pack 'rm -rf x' .", forms: []string{"rm -rf x"}, exact: true},
		{src: "git filter-branch --tree-filter 'rm -rf x' HEAD", forms: []string{"rm -rf x"}, exact: true},
		{src: "git difftool -x 'rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "git rebase -x \"$C\" main", exact: true, una: true},
		// Commands that programs run for their caller are deny forms.
		{src: "npx -p pkg rm -rf x", forms: []string{"rm -rf x"}},
		{src: "npm exec -- rm -rf x", forms: []string{"rm -rf x"}},
		{src: "npm exec -c 'rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "npm exec -c 'ls; rm -rf x'", forms: []string{"sh -c ls; rm -rf x", "ls", "rm -rf x"}, exact: true},
		{src: "npx --call='ls; rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "npx sh -c 'ls; rm -rf x'", forms: []string{"sh -c ls; rm -rf x", "rm -rf x"}},
		{src: "ssh host 'ls; rm -rf x'", forms: []string{"bash -c ls; rm -rf x", "ls", "rm -rf x"}},
		{src: "ssh -J jump host ls '&&' rm -rf x", forms: []string{"rm -rf x"}},
		{src: "ssh -Y host 'cd x && rm -rf y'", forms: []string{"rm -rf y"}},
		{src: "ssh -o 'ProxyCommand=nc %h; rm -rf x' host", forms: []string{"rm -rf x"}},
		{src: "docker run alpine rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker run -it --rm -e A=1 -v /a:/b --name n alpine:3 rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker run -eA=1 -dit alpine rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker run --entrypoint rm alpine -rf x", forms: []string{"rm -rf x"}},
		{src: "docker run --frob alpine rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker run --frob v alpine rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker run -Z alpine rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker --context c exec -u root box sh -c 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "docker container create alpine rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker compose -f c.yml exec -T web rm -rf x", forms: []string{"rm -rf x"}},
		{src: "docker-compose run --rm web rm -rf x", forms: []string{"rm -rf x"}},
		{src: "podman exec box rm -rf x", forms: []string{"rm -rf x"}},
		{src: "kubectl exec -n ns pod rm -rf x", forms: []string{"rm -rf x"}},
		// Runners (runners.go).
		{src: "tmux new-session -d -s s 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "tmux -L sock new -d rm -rf x", forms: []string{"rm -rf x"}},
		{src: "tmux -c 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "tmux send-keys -t s 'rm -rf x' Enter", forms: []string{"rm -rf x"}},
		{src: "tmux split-window -f 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "screen -dmS n rm -rf x", forms: []string{"rm -rf x"}},
		{src: "systemd-run --user -p X=1 rm -rf x", forms: []string{"rm -rf x"}},
		{src: "pkexec --user root rm -rf x", forms: []string{"rm -rf x"}},
		{src: "xvfb-run -a -s '-screen 0' rm -rf x", forms: []string{"rm -rf x"}},
		{src: "lxc exec c --env A=1 -- rm -rf x", forms: []string{"rm -rf x"}},
		{src: "distrobox enter -n box -- rm -rf x", forms: []string{"rm -rf x"}},
		{src: "vagrant ssh -c 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "gcloud compute ssh vm --command='rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "nix-shell -p hello --run 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "nix develop .#dev -c rm -rf x", forms: []string{"rm -rf x"}},
		{src: "poetry run rm -rf x", forms: []string{"rm -rf x"}},
		{src: "uv tool run rm -rf x", forms: []string{"rm -rf x"}},
		{src: "uvx --from pkg rm -rf x", forms: []string{"rm -rf x"}},
		{src: "conda run -n env rm -rf x", forms: []string{"rm -rf x"}},
		{src: "direnv exec . rm -rf x", forms: []string{"rm -rf x"}},
		{src: "sg grp 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "bun exec 'rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "busybox rm -rf x", forms: []string{"rm -rf x"}},
		{src: "vim -c ':!rm -rf x' f", forms: []string{"rm -rf x"}, exact: true},
		{src: "vim +'!rm -rf x' f", forms: []string{"rm -rf x"}, exact: true},
		{src: "gdb -batch -ex 'shell rm -rf x' ./a.out", forms: []string{"rm -rf x"}, exact: true},
		{src: "expect -c 'spawn rm -rf x'", exact: true},
		{src: "ls | entr -s 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "concurrently 'npm:watch' 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "nodemon --exec 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "watchexec -e go -- rm -rf x", forms: []string{"rm -rf x"}},
		{src: "hyperfine --prepare 'rm -rf x' ls", forms: []string{"rm -rf x"}},
		{src: "gdb --args rm -rf x", forms: []string{"rm -rf x"}},
		{src: "setarch x86_64 -R rm -rf x", forms: []string{"rm -rf x"}},
		{src: "sshpass -p pw ssh h 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "ip netns exec ns rm -rf x", forms: []string{"rm -rf x"}},
		{src: "ansible all -m shell -a 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "aws-vault exec prod --no-session -- rm -rf x", forms: []string{"rm -rf x"}},
		{src: "op run --env-file=.env -- rm -rf x", forms: []string{"rm -rf x"}},
		{src: "cross-env NODE_ENV=x rm -rf x", forms: []string{"rm -rf x"}},
		{src: "xterm -e rm -rf x", forms: []string{"rm -rf x"}},
		// No cap may skip a deny check: past them a command is unanalysable.
		{src: "docker run" + strings.Repeat(" --frob v", 40) + " img rm -rf x", una: true},
		{src: "for f in" + manyWords(40) + " .env; do cat $f; done", una: true},
		{src: "python3 -c '" + strings.Repeat(`"a";`, 300) + "'", exact: true, una: true, mayWrite: true},
		{src: "ssh -vo ProxyCommand='rm -rf x' host", forms: []string{"rm -rf x"}},
		{src: "scp -qF cfg a h:b", exact: true},
		// Database clients, editors and network tools that run commands.
		{src: "sqlite3 db 'select 1; .shell rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "sqlite3 db <<< '.system rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "psql -c '\\! rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "psql db <<< '\\! rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "mysql -e 'SYSTEM rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "ed f <<< '!rm -rf x'", forms: []string{"rm -rf x"}, exact: true},
		{src: "socat - EXEC:'rm -rf x',pty", forms: []string{"rm -rf x"}},
		{src: "nc -c 'rm -rf x' h 1", forms: []string{"rm -rf x"}, exact: true},
		{src: "strace -o '|rm -rf x' ls", forms: []string{"rm -rf x", "ls"}},
		// A unified diff on patch's or git apply's standard input names
		// what they write (every strip level).
		{src: "git apply <<'EOF'\n--- a/src/x\n+++ b/.claude/settings.json\n@@ -1 +1 @@\nEOF", writes: []string{"/p/.claude/settings.json", "/p/src/x"}},
		{src: "patch -p1 <<< $'--- a/x\\n+++ b/secrets/k\\n'", writes: []string{"/p/secrets/k"}},
		// A relative symlink target is resolved from the link's directory.
		{src: "ln -s ../secrets/key a/k", reads: []string{"/p/secrets/key"}},
		{src: "ln -s -t a ../secrets/key", reads: []string{"/p/secrets/key"}},
		{src: "kubectl exec pod -- rm -rf x", forms: []string{"rm -rf x"}},
		{src: "ssh -p 22 host 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "ssh -o ProxyCommand='rm -rf x' host", forms: []string{"rm -rf x"}},
		{src: "ssh -o RemoteCommand='rm -rf x' host", forms: []string{"rm -rf x"}},
		{src: "ssh -oKnownHostsCommand=rm\\ -rf\\ x host", forms: []string{"rm -rf x"}},
		{src: "scp -o 'ProxyCommand rm -rf x' a h:b", forms: []string{"rm -rf x"}},
		{src: "ssh -F cfg host", exact: true},
		{src: "at now <<< 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "batch <<< 'rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "echo x | at now", una: true},
		{src: "at -f job.sh now", reads: []string{"/p/job.sh"}, exact: true},
		{src: "at -l"},
		{src: "go test -toolexec='rm -rf x' ./...", forms: []string{"rm -rf x"}},
		{src: "git -c \"$X\" log", exact: true, una: true},
		{src: "md5sum --check sums", reads: []string{"/p/sums", "?…"}},
		{src: "cksum f", reads: []string{"/p/f"}},
		{src: "tar -cf a.tar -T list", reads: []string{"/p/list", "?…"}},
		{src: "git config --get user.name", reads: []string{"/h/.gitconfig", "/h/.config/git/config", "/etc/gitconfig"}},
		{src: "git config -l", reads: []string{"/h/.gitconfig", "/etc/gitconfig"}},
		{src: "git config --global -l", reads: []string{"/h/.gitconfig"}},
		{src: "git config --system -l", reads: []string{"/etc/gitconfig"}},
		{src: "python3 tools/gen.py", reads: []string{"/p/tools/gen.py"}, exact: true, mayWrite: true},
		{src: "shred -u /h", writes: []string{"/h"}},
		{src: "flock lock -c 'rm z'", forms: []string{"rm z"}, exact: true},
		{src: "/usr/bin/time --output=x.txt make", writes: []string{"/p/x.txt"}},
		{src: "strace -o trace.log ls", writes: []string{"/p/trace.log"}},
		// Found by the bash differential harness.
		{src: "flock -w 1 lock curl", forms: []string{"curl"}, writes: []string{"/p/lock"}, exact: true},
		{src: "sed -ibak s/a/b/ build.log", writes: []string{"/p/build.log", "/p/build.logbak"}},
		{src: "sed -i'old/*.orig' s/a/b/ src/x", writes: []string{"/p/old/src/x.orig"}},
		{src: "sed -i'bak_*' s/a/b/ src/x", writes: []string{"/p/bak_src/x"}},
		{src: "source /dev/stdin <<'EOF'\nrm -rf x\nEOF", forms: []string{"rm -rf x"}},
		{src: "bash /dev/stdin <<< 'rm x'", forms: []string{"rm x"}},
		// bash joins a body line ending in a backslash with the next one
		// before looking for the delimiter: EO\<newline>F ends this one.
		{src: "cat <<EOF\nEO\\\nF\nrm x\nEOF\n", forms: []string{"rm x"}, una: true},
		{src: "cat <<-EOF\n\tE\\\nOF\nrm x\nEOF\n", forms: []string{"rm x"}, una: true},
		{src: "cat <<EOF\n$\\\n(rm x)\nEOF\n", forms: []string{"rm x"}, una: true},
		{src: "cat <<EOF\n`\\\nrm x`\nEOF\n", forms: []string{"rm x"}, una: true},
		// A comment ends at the newline even after a backslash.
		{src: "ls # a \\\nrm -rf x", forms: []string{"rm -rf x"}, una: true},
		{src: "ls # a \\\\\\\nrm -rf x", forms: []string{"rm -rf x"}, una: true},
		{src: "ls # a \\\\\nrm -rf x", forms: []string{"rm -rf x"}, una: true},
		{src: "source /dev/stdin < script.sh", una: true, reads: []string{"/p/script.sh"}},
		{src: "find . -exec rm {} \\;", forms: []string{"rm ~{}", "rm ."}, writes: []string{"/p"}, exact: true},
		{src: "find . -exec env rm {} \\;", forms: []string{"rm ~{}", "rm ."}, writes: []string{"/p"}, exact: true},
		{src: "find . -exec /bin/rm {} +", forms: []string{"rm ~{}", "rm ."}, writes: []string{"/p"}, exact: true},
		{src: "find . -execdir timeout 5 git -c a=b push \\;", forms: []string{"git push"}, exact: true},
		{src: "echo x | xargs", forms: []string{"echo ~…"}},
		{src: "coproc head 'a b' .env | cat", forms: []string{"head a b .env"}, reads: []string{"/p/.env"}, una: true},
		{src: "coproc \\rm &>>out.txt", forms: []string{"rm"}, una: true},
		{src: "time -o x ls", forms: []string{"-o x ls"}},
		{src: "true | time -o x ls", forms: []string{"ls"}, writes: []string{"/p/x"}},
		{src: "taskset 0x1 cat ./out.txt $x", forms: []string{"cat ./out.txt ~$x"}},
		{src: `awk 'BEGIN{system("rm -rf x")}'`, forms: []string{"rm -rf x"}, exact: true},
		{src: `awk '{print | "sh"}' f`, forms: []string{"sh"}, exact: true, una: true},
		{src: `awk '{print > $1}' f`, exact: true},
		{src: "/bin/sh $X -la", una: true},
		{src: `python3 -c 'open(".claude/settings.json","w").write("{}")'`, writes: []string{"/p/.claude/settings.json"}, exact: true},
		{src: `node -e 'require("fs").writeFileSync(".git/hooks/pre-commit","x")'`, writes: []string{"/p/.git/hooks/pre-commit"}, exact: true},
		// An assigned value is also read as a script, for deny: "/" and
		// "~/x" read as programs run by path, which only an exact rule
		// could approve (the assignments rule out allow anyway).
		{src: "coproc IFS=/ wget -rf x", forms: []string{"wget -rf x"}, una: true, exact: true},
		// Strings bash runs but the parser rejects are repaired for deny.
		{src: "time ! sort -o out.txt x", forms: []string{"sort -o out.txt x"}, writes: []string{"/p/out.txt"}, una: true},
		{src: "a[0]=a b; cat .env", forms: []string{"b", "cat .env"}, reads: []string{"/p/.env"}, una: true},
		{src: "ls | ! rm -rf x", forms: []string{"rm -rf x"}, una: true},
		{src: "a[$(rm x)]=a b; ls", forms: []string{"rm x", "b", "ls"}, una: true},
		{src: "x='a[$(rm y)]'; (( x ))", forms: []string{"rm y"}, una: true},
		{src: "set -o history", reads: []string{"/h/.bash_history", "/h/.history"}, una: true},
		{src: "PS4='$(rm x)'; set -x; true", forms: []string{"rm x"}},
		{src: "cd .git/hooks || cd src; echo > ../x", writes: []string{"/p/.git/x", "/p/x", "/x"}},
		{src: "cd x || exit; echo > y", writes: []string{"/p/x/y"}},
		{src: "! cd src || echo x > pre-commit", writes: []string{"/p/src/pre-commit", "/p/pre-commit"}},
		{src: "! cd src && echo x > f", writes: []string{"/p/src/f", "/p/f"}},
		{src: "HOME=~/x; echo > $HOME/.bashrc", writes: []string{"/h/x/.bashrc"}, exact: true},
		{src: "GIT_PAGER='rm -rf x' git log", forms: []string{"rm -rf x", "git log"}},
		{src: "export PROMPT_COMMAND='rm -rf x'", forms: []string{"rm -rf x"}},
		{src: "env GIT_PAGER='rm -rf x' git log", forms: []string{"rm -rf x"}},
		{src: "sudo PAGER='rm -rf x' git log", forms: []string{"rm -rf x"}},
		{src: "env -S \"PAGER='rm -rf x' git\" log", forms: []string{"rm -rf x"}},
		{src: "LESSOPEN='|rm -rf x %s' less f", forms: []string{"rm -rf x %s"}},
		{src: "HOME=$Y; echo > ~/.bashrc", writes: []string{"?"}},
		{src: `sh -c "rm $'-rf'"`, forms: []string{"rm -rf"}, una: true},
		{src: "sh -c 'timeout 5 ls'", forms: []string{"ls"}},
		{src: "sh -c 'coproc ls'", una: true},
		{src: "hash -p /bin/rm ls; ls -rf x", forms: []string{"/bin/rm -rf x", "rm -rf x"}, una: true},
		{src: "declare -n r='a[$(rm x)]'; r=1", forms: []string{"rm x"}, una: true},
		{src: "x='cd ..'; eval \"$x\"; cat y", reads: []string{"?y"}, una: true},
		// A cd that may fail or not run leaves the shell in either directory.
		{src: "false && cd src; echo x > a.go", writes: []string{"/p/src/a.go", "/p/a.go"}},
		{src: "cd nosuch; echo x > a.go", writes: []string{"/p/nosuch/a.go", "/p/a.go"}},
		{src: "cd a; cd b; echo > x", writes: []string{"/p/a/b/x", "/p/b/x", "/p/a/x", "/p/x"}},
		{src: "cd sub & echo > x", writes: []string{"/p/x"}},
		{src: "env -S 'rm -rf x' GIT_DIR=x /usr/bin/rm", forms: []string{"rm -rf x GIT_DIR=x /usr/bin/rm"}},
		{src: "sed '1e rm x' f", forms: []string{"sh -c rm x", "rm x"}, exact: true},
		{src: "sed 's/a/b/e' f", exact: true, una: true},
		{src: "sed -n '1r ~/.ssh/id_rsa' f", reads: []string{"/h/.ssh/id_rsa", "/p/~/.ssh/id_rsa"}},
		{src: "ls | time -p nice rm x", forms: []string{"time -p nice rm x", "rm x"}, writes: []string{"/p/x"}},
		{src: `awk 'BEGIN{system("rm x")}' f`, forms: []string{"sh -c rm x", "rm x"}, exact: true},
		{src: `awk '/"/ {system("rm x")}' f`, forms: []string{"sh -c rm x", "rm x"}, exact: true},
	}
	for _, tt := range tests {
		a := Analyze(tt.src, Options{Cwd: "/p", Home: "/h"})
		var got []string
		for _, c := range a.Commands {
			got = append(got, formsStrings(c)...)
		}
		for _, f := range tt.forms {
			found := false
			for _, g := range got {
				if g == f {
					found = true
				}
			}
			if !found {
				t.Errorf("%q: no form %q in %q", tt.src, f, got)
			}
		}
		var reads, writes []string
		exact, may, una := false, false, len(a.Unanalysable) > 0
		for _, c := range a.Commands {
			reads = append(reads, paths(c.Reads)...)
			writes = append(writes, paths(c.Writes)...)
			exact = exact || c.ExactOnly
			may = may || c.MayWrite
			una = una || c.Unanalysable != ""
		}
		for _, r := range tt.reads {
			if !strings.Contains(strings.Join(reads, " "), r) {
				t.Errorf("%q: reads %q, want %q", tt.src, reads, r)
			}
		}
		for _, w := range tt.writes {
			if !strings.Contains(strings.Join(writes, " "), w) {
				t.Errorf("%q: writes %q, want %q", tt.src, writes, w)
			}
		}
		if exact != tt.exact {
			t.Errorf("%q: ExactOnly = %v, want %v", tt.src, exact, tt.exact)
		}
		if tt.mayWrite && !may {
			t.Errorf("%q: MayWrite = false", tt.src)
		}
		if una != tt.una {
			t.Errorf("%q: unanalysable = %v, want %v", tt.src, una, tt.una)
		}
	}
}

// manyWords returns n distinct words, each after a blank.
func manyWords(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, " w%d", i)
	}
	return b.String()
}

// Every runner's option letters are either with a value or without, not
// both (a letter that is both in its program must be in neither, so that
// it is read both ways).
func TestRunnersTable(t *testing.T) {
	for name, r := range runners {
		for i := 0; i < len(r.withArg); i++ {
			if strings.IndexByte(r.noArg, r.withArg[i]) >= 0 {
				t.Errorf("%s: -%c both with and without a value", name, r.withArg[i])
			}
		}
		for _, l := range strings.Fields(r.longArg) {
			if strings.Contains(r.longNo, " "+l+" ") {
				t.Errorf("%s: %s both with and without a value", name, l)
			}
		}
		for _, list := range []string{r.longArg, r.longNo, r.scripts, r.code, r.after} {
			if list != "" && (list[0] != ' ' || list[len(list)-1] != ' ') {
				t.Errorf("%s: option list %q must begin and end with a space", name, list)
			}
		}
	}
	if len(runners) < 40 {
		t.Errorf("only %d runners", len(runners))
	}
}

// Commands that another program runs for the caller are Delegated, and
// only those: deny and ask rules judge them, the program's rule allow.
func TestDelegated(t *testing.T) {
	tests := []struct {
		src       string
		delegated string // the Delegated commands' texts, joined by " | "
	}{
		{"ssh host 'ls; rm -rf x'", "ls | rm -rf x"},
		{"ssh host ls", "ls"},
		{"ssh host", ""},
		{"npm exec -c 'make && curl x'", "make | curl x"},
		{"docker exec box sh -c 'make'", "sh -c make | make"},
		{"docker exec box ls src", "ls src"},
		{"npx sh -c 'make; ls'", "sh -c 'make; ls' | make | ls"},
		{"ssh -o ProxyCommand='nc %h %p' host", "nc %h %p"},
		// A script the caller's own shell runs is not delegated.
		{"bash -c 'ls; rm -rf x'", ""},
		{"ls; ssh h; rm x", ""},
		{"sudo sh -c 'rm x'", ""},
		// A program the model does not know may run its operands: a tail
		// that starts with a program it knows is guessed at.
		{"bwrap --bind / / sh -c 'rm x; ls'", "sh -c 'rm x; ls' | rm x | ls"},
		{"mytool sudo rm -rf x", "sudo rm -rf x | rm -rf x"},
		{"./run.sh make build", "make build"},
		{"mytool 'rm x'", ""},
		{"mytool rm \"$X\"", ""},
		// Programs whose delegation is read precisely are not guessed at.
		{"npm test", ""},
		{"make test", ""},
		{"docker build -t x .", ""},
	}
	for _, tt := range tests {
		a := Analyze(tt.src, Options{Cwd: "/p", Home: "/h"})
		var got []string
		for _, c := range a.Commands {
			if c.Delegated {
				got = append(got, c.Text)
			}
		}
		if g := strings.Join(got, " | "); g != tt.delegated {
			t.Errorf("%q: delegated %q, want %q", tt.src, g, tt.delegated)
		}
		if len(a.Commands) == 0 || a.Commands[0].Delegated {
			t.Errorf("%q: the first command is delegated", tt.src)
		}
	}
}

// Unmodelled marks the programs the model does not know, and only those; a
// guessed tail that cannot be analysed is no issue of the call.
func TestUnmodelled(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want bool
	}{
		{"bwrap --bind / / ls", true},
		{"./tools/run.sh a", true},
		{"busybox frob x", true},
		{"sudo bwrap ls", true},
		{"ls -la", false},
		{"git status", false},
		{"npm test", false},
		{"make all", false},
		{"ssh h ls", false},
		{"tmux new-session -d make", false},
		{"bash -c ls", false},
	} {
		a := Analyze(tt.src, Options{Cwd: "/p", Home: "/h"})
		if got := a.Commands[0].Unmodelled; got != tt.want {
			t.Errorf("%q: Unmodelled = %v, want %v", tt.src, got, tt.want)
		}
	}
	a := Analyze("mytool build --target node", Options{Cwd: "/p", Home: "/h"})
	if len(a.Unanalysable) != 0 || len(a.Commands) != 2 || a.Commands[1].Unanalysable != "" || !a.Commands[1].Delegated {
		t.Errorf("a guessed tail's issue became the call's: %+v, %+v", a.Unanalysable, a.Commands)
	}
	var b strings.Builder
	b.WriteString("mytool")
	for range maxTails + 1 {
		b.WriteString(" ls")
	}
	a = Analyze(b.String(), Options{Cwd: "/p", Home: "/h"})
	if a.Commands[0].Unanalysable == "" {
		t.Errorf("%d tails that may be commands: not unanalysable", maxTails+1)
	}
}

// Deny and ask patterns naming options match every spelling of them.
func TestOptionAwarePatterns(t *testing.T) {
	tests := []struct {
		pat, cmd string
		deny     bool
	}{
		{"rm -rf:*", "rm -fr x", true},
		{"rm -rf:*", "rm -r -f x", true},
		{"rm -rf:*", "rm -Rf x", true},
		{"rm -rf:*", "rm --recursive --force x", true},
		{"rm -rf:*", "rm --rec --force x", true},
		{"rm -rf:*", "rm -rfv x", true},
		{"rm -rf:*", "rm -f build.log", false},
		{"rm -rf:*", "rm -r x", false},
		{"rm -rf:*", "rm $FLAGS x", true},
		{"rm -rf *", "rm -fr x", true},
		{"rm -rf /", "rm -fr /", true},
		{"rm -rf /", "rm -fr /tmp", false},
		{"git push --force:*", "git push -f", true},
		{"git push --force:*", "git push -f origin main", true},
		{"git push --force:*", "git push origin +main", true},
		{"git push --force:*", "git push origin main", false},
		{"git push --force", "git push -f", true},
		{"git reset --hard:*", "git reset --har HEAD~1", true},
		{"git clean -fd:*", "git clean -df", true},
		{"git clean -fd:*", "git clean -f", false},
		{"chmod -R:*", "chmod --recursive 777 x", true},
	}
	for _, tt := range tests {
		p, err := CompilePattern(tt.pat)
		if err != nil {
			t.Fatalf("%q: %v", tt.pat, err)
		}
		a := Analyze(tt.cmd, Options{Cwd: "/p", Home: "/h"})
		got := false
		for _, c := range a.Commands {
			for _, f := range c.Forms {
				if p.Match(f, true) {
					got = true
				}
			}
		}
		if got != tt.deny {
			t.Errorf("%q against %q: deny match = %v, want %v", tt.pat, tt.cmd, got, tt.deny)
		}
	}
}

// Allow patterns match options as written: another spelling or order is
// not approved.
func TestOptionPatternsAllowAsWritten(t *testing.T) {
	tests := []struct {
		pat, cmd string
		allow    bool
	}{
		{"rm -rf:*", "rm -rf x", true},
		{"rm -rf:*", "rm -fr x", false},
		{"rm -rf:*", "rm -r -f x", false},
		{"rm -rf:*", "rm --recursive --force x", false},
		{"git push --force:*", "git push --force origin", true},
		{"git push --force:*", "git push -f origin", false},
	}
	for _, tt := range tests {
		p, err := CompilePattern(tt.pat)
		if err != nil {
			t.Fatalf("%q: %v", tt.pat, err)
		}
		a := Analyze(tt.cmd, Options{Cwd: "/p", Home: "/h"})
		if got := p.Match(a.Commands[0].Words, false); got != tt.allow {
			t.Errorf("%q against %q: allow match = %v, want %v", tt.pat, tt.cmd, got, tt.allow)
		}
		if !p.Match(a.Commands[0].Words, true) {
			t.Errorf("%q against %q: deny reading does not match", tt.pat, tt.cmd)
		}
	}
}

// A command that has another program run commands is never read-only,
// even when the commands it runs are: they face deny and ask rules only,
// so the read-only default must not approve them with it.
func TestDelegatingNotReadOnly(t *testing.T) {
	for _, src := range []string{"ssh h ls", "docker exec c ls", "tmux new -d ls", "man -P cat ls",
		"sort --compress-program=cat f", "sqlite3 db 'select 1'", "npx ls", "kubectl exec p -- ls",
		"at now <<< ls", "nodemon --exec ls", "strace -o '|cat' ls"} {
		a := Analyze(src, Options{Cwd: "/p", Home: "/h"})
		if len(a.Commands) == 0 || a.Commands[0].ReadOnly || a.ReadOnly {
			t.Errorf("%q: read-only", src)
		}
		delegated := false
		for _, c := range a.Commands {
			delegated = delegated || c.Delegated
		}
		if !delegated && !strings.HasPrefix(src, "sqlite3") {
			t.Errorf("%q: no delegated command", src)
		}
	}
}
