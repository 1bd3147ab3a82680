package shell

import "strings"

// wrapper is a command that runs another command: how to find it.
type wrapper struct {
	m *model
	// allow: allow rules read through it too (timeout, nice, ...); the
	// others are seen through by deny and ask rules only.
	allow bool
	// pre is the number of operands before the command (timeout's
	// duration, flock's lock file, chroot's directory).
	pre int
	// script names the option whose argument is a shell script (su -c).
	script string
	// noCmd names options after which the operands are not a command
	// (command -v, ionice -p).
	noCmd []string
	// exact: no prefix or wildcard allow rule covers the command.
	exact bool
	// assigns: VAR=value operands before the command (env, sudo).
	assigns bool
}

var wrappers map[string]*wrapper

func init() {
	w := func(name, opts string, wr wrapper) {
		wr.m = compileModel(name, spec{posix: true, num: name == "nice", opts: opts})
		wrappers[name] = &wr
	}
	wrappers = map[string]*wrapper{}
	w("timeout", "-s|--signal= -k|--kill-after= --foreground --preserve-status -v|--verbose"+helpVersion, wrapper{allow: true, pre: 1})
	w("time", "-f|--format= -o|--output=!w -a|--append -p|--portability -v|--verbose -q|--quiet -V"+helpVersion, wrapper{allow: true})
	w("nice", "-n|--adjustment="+helpVersion, wrapper{allow: true})
	w("nohup", helpVersion, wrapper{allow: true})
	w("stdbuf", "-i|--input= -o|--output= -e|--error="+helpVersion, wrapper{allow: true})
	w("command", "-p -v -V", wrapper{allow: true, noCmd: []string{"-v", "-V"}})
	w("builtin", "", wrapper{allow: true})
	w("exec", "-a= -c -l", wrapper{allow: true})
	w("noglob", "", wrapper{allow: true})
	w("sudo", "-A|--askpass -b|--background -B|--bell -C|--close-from= -D|--chdir= -E|--preserve-env? -e|--edit -g|--group= -H|--set-home -h|--host= -i|--login -K|--remove-timestamp -k|--reset-timestamp -l|--list -n|--non-interactive -P|--preserve-groups -p|--prompt= -R|--chroot= -r|--role= -S|--stdin -s|--shell -T|--command-timeout= -t|--type= -U|--other-user= -u|--user= -V|--version -v|--validate --help", wrapper{assigns: true, noCmd: []string{"-l", "-e", "-K", "-k", "-v", "-V"}})
	w("doas", "-a= -C=!r -L -n -s -u=", wrapper{})
	w("env", "-i|--ignore-environment -0|--null -u|--unset= -C|--chdir= -S|--split-string= -v|--debug --block-signal? --default-signal? --ignore-signal? --list-signal-handling -a|--argv0="+helpVersion, wrapper{assigns: true})
	w("watch", "-b|--beep -c|--color -C|--no-color -d|--differences? -e|--errexit -g|--chgexit -n|--interval= -p|--precise -t|--no-title -w|--no-wrap -x|--exec -q|--equexit= -r|--no-rerun"+helpVersion, wrapper{exact: true})
	w("ionice", "-c|--class= -n|--classdata= -p|--pid -P|--pgid -t|--ignore -u|--uid"+helpVersion, wrapper{noCmd: []string{"-p", "-P", "-u"}})
	w("setsid", "-c|--ctty -f|--fork -w|--wait"+helpVersion, wrapper{exact: true})
	w("flock", "-s|--shared -x|-e|--exclusive -u|--unlock -n|--nb|--nonblock -w|--timeout= -E|--conflict-exit-code= -o|--close -c|--command= -F|--no-fork --verbose"+helpVersion, wrapper{exact: true, pre: 1, script: "-c"})
	w("su", "-c|--command= --session-command= -l|--login -m|-p|--preserve-environment -s|--shell= -g|--group= -G|--supp-group= -f|--fast -P|--pty -w|--whitelist-environment="+helpVersion, wrapper{script: "-c", pre: 1})
	w("runuser", "-c|--command= --session-command= -l|--login -m|-p|--preserve-environment -s|--shell= -g|--group= -G|--supp-group= -f|--fast -P|--pty -w|--whitelist-environment= -u|--user="+helpVersion, wrapper{script: "-c"})
	w("strace", "-f -F -q -Q -r -t -T -v -V -x -y -Y -z -Z -c -C -d -D -i -k -n -w -A -b= -a= -e= -o|--output=!w -O= -p= -P= -s|--string-limit= -S= -u= -E= -I= -X= --trace= --signal= --status= --follow-forks --summary-only --seccomp-bpf --absolute-timestamps? --relative-timestamps? --syscall-times? --decode-fds? --trace-path= --quiet? --instruction-pointer --stack-trace --summary --env= --user= --detach-on=", wrapper{})
	w("ltrace", "-a= -A= -b -c -C -D= -e= -f -F= -h -i -l= -L -n= -o|--output=!w -p= -r -s= -S -t -T -u= -V -w= -x= --demangle --library= --indent=", wrapper{})
	w("chroot", "--userspec= --groups= --skip-chdir"+helpVersion, wrapper{pre: 1})
	w("unshare", "-i|--ipc? -m|--mount? -n|--net? -p|--pid? -u|--uts? -U|--user? -C|--cgroup? -T|--time? -f|--fork -r|--map-root-user -c|--map-current-user --map-user= --map-group= --map-users= --map-groups= --kill-child? --mount-proc? --propagation= --setgroups= -R|--root= -w|--wd= -S|--setuid= -G|--setgid= --monotonic= --boottime= -l|--load-interp= --keep-caps"+helpVersion, wrapper{})
	w("nsenter", "-a|--all -t|--target= -m|--mount? -u|--uts? -i|--ipc? -n|--net? -p|--pid? -C|--cgroup? -U|--user? -T|--time? -G|--setgid= -S|--setuid= --preserve-credentials -r|--root? -w|--wd? -W|--wdns= -e|--env -F|--no-fork -Z|--follow-context"+helpVersion, wrapper{})
	w("fakeroot", "-l|--lib= --faked= -s=!w -i=!r -u|--unknown-is-real -b= -h -v", wrapper{})
	w("taskset", "-a|--all-tasks -p|--pid -c|--cpu-list"+helpVersion, wrapper{pre: 1, noCmd: []string{"-p"}})
	w("chrt", "-a|--all-tasks -b|--batch -d|--deadline -f|--fifo -i|--idle -o|--other -r|--rr -R|--reset-on-fork -T|--sched-runtime= -P|--sched-period= -D|--sched-deadline= -m|--max -p|--pid -v|--verbose"+helpVersion, wrapper{pre: 1, noCmd: []string{"-p", "-m"}})
	w("numactl", "-a|--all -i|--interleave= -N|--cpunodebind= -C|--physcpubind= -l|--localalloc -p|--preferred= -m|--membind= -s|--show -H|--hardware -b|--balancing -w|--weighted-interleave= -P|--preferred-many= --huge --offset= --shmmode= --length= --strict --shmid= --shm= --file= --touch --dump --dump-nodes"+helpVersion, wrapper{noCmd: []string{"-s", "-H"}})
	w("script", "-a|--append -c|--command= -e|--return -E|--echo= -f|--flush -B|--log-io=!w -I|--log-in=!w -O|--log-out=!w -T|--log-timing=!w -m|--logging-format= -o|--output-limit= -q|--quiet"+helpVersion, wrapper{script: "-c", exact: true})
	w("xargs", "-0|--null -a|--arg-file=!r -d|--delimiter= -E= -e|--eof? -I= -i|--replace? -L= -l|--max-lines? -n|--max-args= -o|--open-tty -P|--max-procs= -p|--interactive --process-slot-var= -r|--no-run-if-empty -s|--max-chars= --show-limits -t|--verbose -x|--exit"+helpVersion, wrapper{allow: true})
}

// wrapperForms returns the readings of f seen through one wrapper: for
// allow (the first, when allow is set and the wrapper is read through for
// allow) and for deny. An option the model does not know makes the
// wrapper unreadable for allow (the command is unanalysable) and gives
// deny both readings: the option without an argument and with one.
// assignScript reads the code a wrapper's assignment NAME=value may run
// (assignCode), beside command c, for deny rules.
func (an *analyzer) assignScript(c *Command, name, value string) {
	an.readAssigned(name, value, c.Depth+1, c.Dir)
}

func (an *analyzer) wrapperForms(c *Command, f []wordInfo, allowOnly bool) (forms [][]wordInfo, allow bool) {
	if len(f) == 1 && f[0].Static && f[0].Value == "xargs" {
		// xargs without a command runs echo.
		return [][]wordInfo{{staticWord("echo"), {Word: Word{Value: "…"}, xargs: true}}}, true
	}
	if len(f) < 2 || !f[0].Static {
		return nil, false
	}
	switch f[0].Value {
	case "firejail":
		if allowOnly {
			return nil, false
		}
		i := 1
		for i < len(f) && f[i].Static && strings.HasPrefix(f[i].Value, "-") {
			i++
		}
		if i < len(f) {
			return [][]wordInfo{f[i:]}, false
		}
		return nil, false
	case "parallel":
		if allowOnly {
			return nil, false
		}
		c.ExactOnly = true
		return parallelForms(f), false
	}
	w := wrappers[f[0].Value]
	if w == nil || allowOnly && !w.allow {
		return nil, false
	}
	args := f[1:]
	a := w.m.parse(args)
	for _, o := range a.opts {
		for _, n := range w.noCmd {
			if o.name == n {
				return nil, false
			}
		}
	}
	if w.exact {
		c.ExactOnly = true
	}
	// Files the wrapper's own options read or write (time -o, strace -o).
	for _, o := range a.opts {
		if o.def == nil || !o.has {
			continue
		}
		switch o.def.eff {
		case effWrite:
			for _, r := range an.pathRefs(o.val, c.Dir) {
				c.Writes = an.appendRef(c.Writes, r)
			}
		case effRead, effList:
			for _, r := range an.pathRefs(o.val, c.Dir) {
				c.Reads = an.appendRef(c.Reads, r)
			}
		}
	}
	if f[0].Value == "flock" && a.rest < len(args) && !(args[a.rest].Static && isDigits(args[a.rest].Value)) {
		// flock opens (and creates) its lock file.
		for _, r := range an.pathRefs(args[a.rest], c.Dir) {
			c.Writes = an.appendRef(c.Writes, r)
		}
	}
	if f[0].Value == "flock" && a.rest+1 < len(args) && args[a.rest+1].Static && (args[a.rest+1].Value == "-c" || args[a.rest+1].Value == "--command") {
		// flock FILE -c SCRIPT: the option after the lock file.
		if a.rest+2 < len(args) && args[a.rest+2].Static {
			return [][]wordInfo{{staticWord("sh"), staticWord("-c"), args[a.rest+2]}}, false
		}
		if c.Unanalysable == "" {
			c.Unanalysable = "flock -c with a non-static script"
		}
		return nil, false
	}
	if f[0].Value == "xargs" && len(a.opts)+len(a.unknown) > 0 {
		c.ExactOnly = true
	}
	starts := []int{a.rest}
	if len(a.unknown) > 0 || a.dyn {
		if w.allow {
			if c.Unanalysable == "" {
				c.Unanalysable = f[0].Value + ": option the model does not know"
				if len(a.unknown) > 0 {
					c.Unanalysable = f[0].Value + ": unknown option " + a.unknown[0]
				}
			}
		}
		// Deny reads on assuming the worst: the unknown option may have
		// taken the next word as its argument.
		starts = append(starts, a.rest+1)
	}
	script := false
	if w.script != "" {
		for _, o := range a.opts {
			if o.name == w.script && o.has {
				script = true
				if !o.val.Static {
					if c.Unanalysable == "" {
						c.Unanalysable = f[0].Value + " with a non-static script"
					}
					continue
				}
				forms = append(forms, []wordInfo{staticWord("sh"), staticWord("-c"), o.val})
			}
		}
	}
	if n := f[0].Value; (n == "su" || n == "runuser") && a.rest < len(args) {
		// su permutes its options: in su USER -c SCRIPT (and su - USER
		// -c, runuser -l USER -c) the script follows the user.
		for j := a.rest; j < len(args); j++ {
			v := args[j]
			if !v.Static {
				continue
			}
			var sw wordInfo
			switch {
			case v.Value == "-c" || v.Value == "--command" || v.Value == "--session-command":
				if j+1 >= len(args) {
					continue
				}
				j++
				sw = args[j]
			case strings.HasPrefix(v.Value, "--command=") || strings.HasPrefix(v.Value, "--session-command="):
				sw = staticWord(v.Value[strings.IndexByte(v.Value, '=')+1:])
			case len(v.Value) > 1 && v.Value[0] == '-' && v.Value[1] != '-':
				// A cluster (-lc SCRIPT, -cSCRIPT); -s, -g, -G and -w
				// take the rest as their argument.
				k := strings.IndexAny(v.Value[1:], "csgGw") + 1
				if k == 0 || v.Value[k] != 'c' {
					continue
				}
				if k+1 < len(v.Value) {
					sw = staticWord(v.Value[k+1:])
				} else if j+1 < len(args) {
					j++
					sw = args[j]
				} else {
					continue
				}
			default:
				continue
			}
			script = true
			if !sw.Static {
				if c.Unanalysable == "" {
					c.Unanalysable = n + " with a non-static script"
				}
				continue
			}
			forms = append(forms, []wordInfo{staticWord("sh"), staticWord("-c"), sw})
		}
	}
	for _, s := range starts {
		i := s
		if w.assigns {
			for i < len(args) && args[i].Static && (isAssignWord(args[i].Value) || f[0].Value == "env" && args[i].Value == "-") {
				if args[i].Value != "-" {
					name, value, _ := strings.Cut(args[i].Value, "=")
					if f[0].Value == "env" {
						an.assign(name)
					}
					an.assignScript(c, name, value)
				}
				i++
			}
		}
		if f[0].Value == "env" {
			if sp := a.vals("-S"); len(sp) > 0 {
				var out []wordInfo
				for _, v := range sp {
					if !v.Static {
						if c.Unanalysable == "" {
							c.Unanalysable = "env -S with a non-static string"
						}
						continue
					}
					out = append(out, splitWords(v.Value)...)
				}
				// The split words come first, then the operands as given;
				// leading assignments among them are env's.
				out = append(out, args[min(s, len(args)):]...)
				for len(out) > 0 && out[0].Static && isAssignWord(out[0].Value) {
					name, value, _ := strings.Cut(out[0].Value, "=")
					an.assign(name)
					an.assignScript(c, name, value)
					out = out[1:]
				}
				forms = append(forms, out)
				continue
			}
		}
		if !script || s == a.rest {
			i += w.pre
		}
		if i >= len(args) {
			if script {
				continue
			}
			if f[0].Value == "xargs" {
				forms = append(forms, []wordInfo{staticWord("echo"), {Word: Word{Value: "…"}, xargs: true}})
			}
			continue
		}
		g := args[i:]
		if f[0].Value == "xargs" {
			g = append(append([]wordInfo(nil), g...), wordInfo{Word: Word{Value: "…"}, xargs: true})
		}
		forms = append(forms, g)
	}
	if f[0].Value == "watch" && !a.has("-x") && len(forms) > 0 {
		// watch runs its words through sh -c.
		rest := forms[0]
		if allStatic(rest) {
			forms = append(forms, []wordInfo{staticWord("sh"), staticWord("-c"), staticWord(joinValues(rest))})
		}
	}
	if f[0].Value == "sudo" && a.has("-s", "-i") && len(forms) > 0 && allStatic(forms[0]) {
		forms = append(forms, []wordInfo{staticWord("sh"), staticWord("-c"), staticWord(joinValues(forms[0]))})
	}
	allow = w.allow && len(a.unknown) == 0 && !a.dyn && !script && len(forms) > 0
	return forms, allow
}

// parallelForms reads GNU parallel's command: the words before its first
// ::: separator, after its options.
func parallelForms(f []wordInfo) [][]wordInfo {
	i := 1
	for i < len(f) && f[i].Static && strings.HasPrefix(f[i].Value, "-") {
		i++
	}
	j := i
	for j < len(f) && !(f[j].Static && strings.HasPrefix(f[j].Value, ":::")) {
		j++
	}
	if j == i {
		return nil
	}
	g := append(append([]wordInfo(nil), f[i:j]...), wordInfo{Word: Word{Value: "…"}, xargs: true})
	out := [][]wordInfo{g}
	if i+1 < len(f) && allStatic(f[i:j]) {
		out = append(out, []wordInfo{staticWord("sh"), staticWord("-c"), staticWord(joinValues(f[i:j]))})
	}
	return out
}
