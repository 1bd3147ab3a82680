package shell

import "strings"

// Runners: programs that run a command or a script for their caller,
// described as data. runsForms reads them: the command they run is read
// as a command of its own, which deny and ask rules judge (it is
// Delegated), while the runner's own rule decides allow. Where the
// command starts depends on the runner's options with values; an option
// not in the table is read both ways (operandStarts), so that deny sees
// every place the command may start.
//
// A runner entry is keyed by the program's name, or by "name sub" for a
// subcommand (the words before the options). Its fields:
//
//	withArg, noArg  short options that take a value and that take none
//	longArg, longNo long options likewise, each surrounded by spaces
//	skip            operands before the command (a container, a directory)
//	dash            the command follows a literal -- only
//	joined          the command's words are joined by spaces into a script
//	each            every operand is a script (tmux send-keys)
//	scripts         options whose value is a shell script (" -c --command ")
//	optsOnly        the command is given by those options only
//	after           options after which the rest of the words are the
//	                command (nix develop -c CMD…)
//	stdin           options whose value - or /dev/stdin reads code from
//	                standard input (make -f -): no prefix rule may approve
//	                the call
//	assigns         operands NAME=value set variables the program may
//	                run (make CC='cmd'): each value is read as an assigned
//	                value is (readAssigned), for deny
//	runs            options whose value is a command the program runs
//	                (man -P): no prefix rule may approve the call, and the
//	                command is read as a script
//	codeOps         the operands after the first, and a here-document,
//	                are code too (sqlite3 DB SQL, ed FILE <<< CMDS)
//	pipes           options whose value |cmd or !cmd is a command
//	addrs           the operands are socat addresses (EXEC:, SYSTEM:)
//	stdinCode       a here-document on standard input is code (psql)
//	code            options whose value is code in the program's own
//	                language (vim -c, gdb -ex): no prefix rule may approve
//	                the call, and a shell escape in it (vim's :!cmd, gdb's
//	                shell cmd) is read as a script
type runner struct {
	withArg, noArg  string
	longArg, longNo string
	skip            int
	dash            bool
	joined          bool
	each            bool
	scripts         string
	optsOnly        bool
	after           string
	stdin           string
	assigns         bool
	runs            string
	code            string
	// codeOps: the operands after the first (sqlite3 DB SQL…) are code
	// too, and so is a here-document on standard input (ed, psql).
	codeOps bool
	// pipes: options whose value, starting with | or !, is a command the
	// output is piped to (strace -o '|cmd').
	pipes string
	// addrs: operands that are socat addresses (EXEC:cmd, SYSTEM:cmd).
	addrs bool
	// stdinCode: a here-document on standard input is the program's code
	// (psql, mysql): its shell escapes are read.
	stdinCode bool
}

var runners = map[string]*runner{}

// runnerNames holds the programs of the runners table (tmux for
// "tmux new-session").
var runnerNames = map[string]bool{}

func init() {
	r := func(names string, rn runner) {
		for _, n := range strings.Fields(names) {
			if strings.Contains(n, "/") {
				// "prog/sub1,sub2": subcommands of prog.
				prog, subs, _ := strings.Cut(n, "/")
				runnerNames[prog] = true
				for _, s := range strings.Split(subs, ",") {
					x := rn
					runners[prog+" "+s] = &x
				}
				continue
			}
			x := rn
			runners[n] = &x
			runnerNames[n] = true
		}
	}
	// tmux's -f takes a value in new-session and none in split-window:
	// it is read both ways.
	r("tmux/new-session,new,new-window,neww,split-window,splitw,respawn-pane,respawnp,respawn-window,respawnw", runner{withArg: "cFenstxyl", noArg: "AdDEPXabkShIvZ", joined: true})
	r("tmux/display-popup,popup", runner{withArg: "bcdehsStTwxy", noArg: "BCEkN", joined: true})
	r("tmux/run-shell,run", runner{withArg: "cdt", noArg: "bC", joined: true})
	r("tmux/if-shell,if", runner{withArg: "t", noArg: "bF", skip: 0, each: true})
	r("tmux/send-keys,send", runner{withArg: "Nt", noArg: "FHKlMRX", each: true})
	r("tmux/pipe-pane,pipep", runner{withArg: "t", noArg: "IOo", joined: true})
	r("screen", runner{withArg: "cehpSsTtX", noArg: "aAdDfilLmOqrRUvwx", longNo: " --help --version "})
	r("systemd-run", runner{withArg: "pMHuE", noArg: "dGqrtPS", longArg: " --property --unit --machine --host --description --slice --setenv --working-directory --uid --gid --nice --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar --on-timer --timer-property --path-property --socket-property --service-type --background --json ", longNo: " --user --system --scope --wait --pipe --pty --quiet --no-block --collect --same-dir --remain-after-exit --send-sighup --no-ask-password --verbose --expand-environment --shell "})
	r("pkexec", runner{longArg: " --user ", longNo: " --keep-cwd --disable-internal-agent --help --version "})
	r("unbuffer", runner{noArg: "p"})
	r("xvfb-run", runner{withArg: "nsfewep", noArg: "alh", longArg: " --server-num --server-args --auth-file --error-file --wait --xauth-protocol ", longNo: " --auto-servernum --auto-display --listen-tcp --help "})
	r("dbus-run-session", runner{longArg: " --config-file --dbus-daemon ", longNo: " --help --version "})
	r("dbus-launch", runner{longArg: " --config-file --autolaunch ", longNo: " --sh-syntax --csh-syntax --exit-with-session --exit-with-x11 --close-stderr --binary-syntax --version --help "})
	r("chronic", runner{noArg: "ev"})
	r("flatpak-spawn", runner{longArg: " --env --unset-env --directory --forward-fd --app-path --usr-path ", longNo: " --host --sandbox --watch-bus --expose-pids --share-pids --latest-version --no-network --clear-env --verbose --help "})
	r("sg", runner{skip: 1, joined: true, scripts: " -c "})
	r("vagrant/ssh", runner{scripts: " -c --command ", optsOnly: true})
	r("gcloud/compute", runner{scripts: " --command ", optsOnly: true})
	r("lxc/exec", runner{longArg: " --env --cwd --user --group --mode --project ", longNo: " --force-interactive --force-noninteractive ", skip: 1, dash: true})
	r("distrobox/enter", runner{withArg: "n", noArg: "eTvVh", longArg: " --name --additional-flags ", longNo: " --no-tty --no-workdir --clean-path --verbose --help --root ", dash: true})
	r("toolbox/run", runner{withArg: "cr", longArg: " --container --distro --release ", longNo: " --preserve-fds "})
	r("nix-shell", runner{scripts: " --run --command ", optsOnly: true})
	r("nix/develop,shell", runner{after: " -c --command ", optsOnly: true})
	r("poetry/run pdm/run hatch/run pipenv/run rye/run uv/run bundle/exec yarn/exec,dlx bun/x asdf/exec rbenv/exec pyenv/exec volta/run devbox/run pixi/run", runner{})
	r("conda/run mamba/run micromamba/run", runner{withArg: "np", longArg: " --name --prefix --cwd ", longNo: " --no-capture-output --live-stream --dev --debug-wrapper-scripts "})
	r("uvx bunx pipx/run pnpx", runner{longArg: " --from --with --python --spec --index-url ", withArg: "p"})
	r("direnv/exec", runner{skip: 1})
	r("mise/exec,x", runner{withArg: "Cj", longArg: " --cd --jobs ", longNo: " --raw --fresh-env "})
	r("fnm/exec", runner{longArg: " --using ", dash: true})
	r("nvm/exec", runner{skip: 1})
	r("bun/exec", runner{joined: true})
	r("busybox toybox", runner{})
	// Watchers, benchmarks and process runners.
	r("entr", runner{noArg: "acdnprsz", joined: true})
	r("concurrently", runner{each: true})
	r("nodemon", runner{scripts: " --exec -x ", optsOnly: true})
	r("watchexec", runner{withArg: "wefisdE", longArg: " --watch --exts --filter --ignore --signal --debounce --shell --env --workdir --delay-run --poll --on-busy-update ", joined: true})
	r("hyperfine", runner{each: true, scripts: " --prepare -p --setup -s --cleanup -c --conclude ", withArg: "wmMrPLDSuoin", longArg: " --warmup --min-runs --max-runs --runs --parameter-scan --parameter-step-size --parameter-list --shell --style --sort --time-unit --export-asciidoc --export-csv --export-json --export-markdown --export-orgmode --output --reference --command-name --input "})
	r("valgrind rr/record prlimit catchsegv", runner{})
	r("perf/record,stat,trace", runner{withArg: "eopcFgGCtuPjmrIDzM", longArg: " --event --output --pid --cpu --freq --call-graph --cgroup --tid --uid --mmap-pages --repeat --delay "})
	r("lldb", runner{after: " -- ", optsOnly: true})
	r("setarch", runner{skip: 1})
	r("cgexec", runner{withArg: "g"})
	r("systemd-inhibit", runner{longArg: " --what --who --why --mode "})
	r("torsocks proxychains proxychains4 tsocks", runner{withArg: "fupaP", noArg: "iqd"})
	r("nq tsp", runner{})
	r("pueue/add", runner{joined: true})
	r("zellij/run", runner{after: " -- ", optsOnly: true})
	r("xterm konsole alacritty kitty urxvt terminator", runner{after: " -e -x ", optsOnly: true})
	r("gnome-terminal", runner{after: " -- -e -x ", optsOnly: true})
	r("ssh-agent", runner{withArg: "aEPt", noArg: "cDdkls"})
	r("sshpass", runner{withArg: "pfdP", noArg: "ev"})
	r("mosh", runner{after: " -- ", optsOnly: true})
	r("ip/netns", runner{skip: 2})
	// Remote execution.
	r("pdsh clush", runner{withArg: "wxgXlRtufF", joined: true})
	r("pssh parallel-ssh", runner{withArg: "hHlpotxXOe", noArg: "iIAvP", joined: true})
	r("ansible", runner{scripts: " -a --args ", optsOnly: true})
	r("az/vm", runner{scripts: " --scripts ", optsOnly: true})
	r("fly/ssh flyctl/ssh", runner{scripts: " -C --command ", optsOnly: true})
	r("heroku/run railway/run", runner{withArg: "aser"})
	// Secret managers and environment loaders that run a command.
	r("doppler/run", runner{scripts: " --command ", after: " -- ", optsOnly: true})
	r("op/run infisical/run dotenvx/run teller/run chamber/exec", runner{after: " -- ", optsOnly: true})
	r("aws-vault/exec", runner{skip: 1, withArg: "dtr", longArg: " --duration --region --mfa-token --prompt ", longNo: " --no-session --json --server --ec2-server --ecs-server --stdout --lazy "})
	r("dotenv", runner{withArg: "ecv"})
	r("env-cmd", runner{withArg: "fre", longArg: " --file --rc-file --environments "})
	r("cross-env cross-env-shell summon", runner{})
	r("sops/exec-env,exec-file", runner{skip: 1, joined: true})
	// Database clients and editors whose commands can run a shell, and
	// programs that pipe to or execute a command.
	r("sqlite3 duckdb", runner{code: " -cmd -c ", codeOps: true})
	r("psql", runner{code: " -c --command ", withArg: "dhpUWfoLTPvF", longArg: " --dbname --host --port --username --file --output --log-file --set --variable --pset ", stdinCode: true})
	r("mysql mariadb", runner{code: " -e --execute ", withArg: "uphPDSh", longArg: " --user --password --host --port --database --socket ", stdinCode: true})
	r("ed red", runner{codeOps: true})
	r("socat", runner{addrs: true})
	r("nc ncat netcat", runner{runs: " -e -c --exec --sh-exec --lua-exec "})
	r("strace ltrace", runner{pipes: " -o --output "})
	r("man", runner{runs: " -P --pager -H --html "})
	r("zip", runner{runs: " -TT --unzip-command "})
	r("make gmake bmake", runner{code: " --eval -E ", assigns: true, stdin: " -f --file --makefile "})
	r("cargo", runner{code: " --config "})
	r("gpg gpg2", runner{code: " --exec-path "})
	r("ssh-keygen", runner{code: " -D "})
	r("ssh-add", runner{code: " -s -S "})
	r("curl", runner{code: " -K --config "})
	r("wget", runner{code: " -e --execute --config "})
	r("vim vi nvim view ex vimdiff gvim", runner{code: " -c --cmd "})
	r("gdb", runner{code: " -ex --ex -eval-command --eval-command -iex --init-eval-command ", after: " --args "})
	r("expect", runner{code: " -c "})
	r("emacs", runner{code: " --eval -eval --execute "})
}

// runnerForms adds to out (through command and script) what the runner
// f[0] (or f[0] f[1]) runs.
func (an *analyzer) runnerForms(c *Command, f []wordInfo, command func([]wordInfo), script func(string, wordInfo)) {
	rn, i := runners[f[0].Value], 1
	if f[1].Static {
		if s := runners[f[0].Value+" "+f[1].Value]; s != nil {
			rn, i = s, 2
		} else if f[0].Value == "uv" && f[1].Value == "tool" && len(f) > 2 && f[2].Static && f[2].Value == "run" {
			rn, i = runners["uvx"], 3
		}
	}
	if f[0].Value == "tmux" {
		// tmux -c CMD runs CMD as a shell would (tmux's global options
		// come before the subcommand).
		end := skipOpts(f, 1, "LSfcT", "")
		for j := 1; j < end; j++ {
			if w := f[j]; w.Static && strings.HasPrefix(w.Value, "-") && !strings.HasPrefix(w.Value, "--") {
				if k := strings.IndexByte(w.Value, 'c'); k > 0 && !strings.ContainsAny(w.Value[1:k], "LSfT") {
					if k < len(w.Value)-1 {
						script("sh", staticWord(w.Value[k+1:]))
					} else if j+1 < end {
						script("sh", f[j+1])
					}
				}
			}
		}
	}
	if rn == nil {
		return
	}
	for j := i; j < len(f); j++ {
		w := f[j]
		if rn.assigns && w.Static && isAssignWord(w.Value) {
			name, value, _ := strings.Cut(w.Value, "=")
			an.readAssigned(name, value, c.Depth+1, c.Dir)
		}
		if !w.Static || !strings.HasPrefix(w.Value, "-") && !strings.HasPrefix(w.Value, "+") {
			continue
		}
		if x, ok := optValue(f, j, rn.scripts); ok {
			script("sh", x)
		}
		if x, ok := optValue(f, j, rn.stdin); ok {
			switch {
			case !x.Static:
				// make -f <(cmd): as for bash $F, what runs cannot be known.
				setUnanalysable(c, f[0].Value+" reads its program from a file whose name is not static")
			case x.Value == "-" || stdinPath(x):
				c.ExactOnly = true
			}
		}
		if x, ok := optValue(f, j, rn.runs); ok {
			c.ExactOnly = true
			script("sh", x)
		}
		if rn.after != "" && strings.Contains(rn.after, " "+w.Value+" ") {
			command(f[j+1:])
			break
		}
		if rn.code == "" {
			continue
		}
		x, ok := optValue(f, j, rn.code)
		if w.Value[0] == '+' && strings.Contains(rn.code, " -c ") {
			x, ok = staticWord(w.Value[1:]), true // vim +cmd
		}
		if ok {
			c.ExactOnly = true
			codeEscapes(x, script)
		}
	}
	for j := i; j < len(f); j++ {
		if x, ok := optValue(f, j, rn.pipes); ok && x.Static && (strings.HasPrefix(x.Value, "|") || strings.HasPrefix(x.Value, "!")) {
			script("sh", staticWord(x.Value[1:]))
		}
		if w := f[j]; rn.addrs && w.Static {
			k, v, _ := strings.Cut(w.Value, ":")
			if strings.EqualFold(k, "EXEC") || strings.EqualFold(k, "SYSTEM") {
				if cut := strings.IndexByte(v, ','); cut >= 0 {
					v = v[:cut] // address options follow a comma
				}
				script("sh", staticWord(v))
			}
		}
	}
	if (rn.codeOps || rn.stdinCode) && c.StdinStatic {
		codeEscapes(staticWord(c.Stdin), script)
	}
	if rn.codeOps {
		c.ExactOnly = true
		for _, p := range operandStarts(c, f, i, rn.withArg, rn.noArg, rn.longArg, rn.longNo) {
			for _, w := range f[min(p+1, len(f)):] {
				codeEscapes(w, script)
			}
		}
	}
	if rn.code != "" || rn.runs != "" || rn.optsOnly || rn.codeOps || rn.pipes != "" || rn.addrs {
		return // the command is given by options or in code only
	}
	emit := func(p int) {
		if p >= len(f) {
			return
		}
		switch {
		case rn.each:
			for _, w := range f[p:] {
				script("sh", w)
			}
		case rn.joined:
			if allStatic(f[p:]) {
				script("sh", staticWord(joinValues(f[p:])))
			}
		default:
			command(f[p:])
		}
	}
	for _, p := range operandStarts(c, f, i, rn.withArg, rn.noArg, rn.longArg, rn.longNo) {
		switch {
		case rn.dash:
			// operandStarts may have stopped at the -- already.
			if afterDash := f[p-1].Static && f[p-1].Value == "--"; !afterDash {
				p = dashAt(f, p)
			}
			if p >= 0 {
				emit(p)
			}
		case rn.skip > 0:
			// Options may also follow the operands skipped (GNU
			// permutation): aws-vault exec PROFILE -- CMD.
			if p+rn.skip < len(f) {
				for _, q := range operandStarts(c, f, p+rn.skip, rn.withArg, rn.noArg, rn.longArg, rn.longNo) {
					emit(q)
				}
			}
		default:
			emit(p)
		}
	}
}

// optValue returns the value of the option f[j] when it is one of list
// (spellings surrounded by spaces): --long=V, --long V, -x V, -xV (for a
// one-letter option), or the word itself for a list entry ending in '='
// (gdb -ex V is -ex, not -e x). ok is false when f[j] is not in list or
// has no value.
func optValue(f []wordInfo, j int, list string) (wordInfo, bool) {
	if list == "" {
		return wordInfo{}, false
	}
	v := f[j].Value
	if k, val, eq := strings.Cut(v, "="); eq && strings.HasPrefix(k, "--") {
		if strings.Contains(list, " "+k+" ") {
			return staticWord(val), true
		}
		return wordInfo{}, false
	}
	if strings.Contains(list, " "+v+" ") {
		if j+1 < len(f) {
			return f[j+1], true
		}
		return wordInfo{}, false
	}
	if len(v) > 2 && v[1] != '-' && strings.Contains(list, " "+v[:2]+" ") {
		return staticWord(v[2:]), true
	}
	return wordInfo{}, false
}

// dashAt returns the index after the first literal -- at or after i, or -1.
func dashAt(f []wordInfo, i int) int {
	for ; i < len(f); i++ {
		if f[i].Static && f[i].Value == "--" {
			return i + 1
		}
	}
	return -1
}

// codeEscapes reads, for deny, the shell commands that code in another
// program's language runs: each line, and each part of it after a ';',
// that is a shell escape (shellEscape).
func codeEscapes(w wordInfo, script func(string, wordInfo)) {
	if !w.Static {
		return
	}
	for line := range strings.SplitSeq(w.Value, "\n") {
		if s, ok := shellEscape(line); ok {
			script("sh", staticWord(s))
			continue
		}
		for part := range strings.SplitSeq(line, ";") {
			if s, ok := shellEscape(part); ok {
				script("sh", staticWord(s))
			}
		}
	}
}

// shellEscape returns the shell command in an editor's, debugger's or
// database client's command: vim's and ed's [:]!cmd, gdb's shell cmd,
// sqlite3's and duckdb's .shell and .system, psql's and mysql's \! and
// mysql's system.
func shellEscape(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t:")
	for _, p := range [...]string{"!", "\\!", "shell ", ".shell ", ".system ", "system "} {
		if r, ok := strings.CutPrefix(s, p); ok {
			return r, true
		}
		if len(p) > 1 && len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return s[len(p):], true
		}
	}
	return "", false
}
