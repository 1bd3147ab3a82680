package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxForms caps the readings of one command; a command with more is
// unanalysable (tooManyForms).
const maxForms = 32

const tooManyForms = "more readings than deny rules are checked on (32)"

// classify fills in everything about c that follows from its words.
func (an *analyzer) classify(c *Command, ws []wordInfo, sc scope) {
	dir := *sc.dir
	words := ws
	stripped := false
	notRO := false
	for {
		exact, nw := c.ExactOnly, len(c.Writes)
		next, ok := an.wrapperForms(c, words, true)
		if !ok || len(next) == 0 {
			break
		}
		if c.ExactOnly && !exact || len(c.Writes) > nw {
			// xargs with options, or a wrapper that writes a file of its
			// own (time -o): never read-only.
			notRO = true
		}
		words, stripped = next[0], true
	}
	c.Words = an.res.mem.values(words)
	forms := [][]wordInfo{words}
	// delegated marks the forms that another program runs for the
	// caller (runsForms) and the forms read from them.
	delegated := make([]bool, 1, 4)
	addForm := func(f []wordInfo, d bool) {
		if len(f) == 0 {
			return
		}
		for _, g := range forms {
			if sameForm(f, g) {
				return
			}
		}
		if len(forms) >= maxForms {
			// No cap may skip a deny check: what is past it cannot be
			// allowed either.
			setUnanalysable(c, tooManyForms)
			return
		}
		forms = append(forms, f)
		delegated = append(delegated, d)
	}
	add := func(f []wordInfo) { addForm(f, false) }
	add(ws)
	if an.hashed != nil && len(ws) > 0 && ws[0].Static {
		if p, ok := an.hashed[ws[0].Value]; ok {
			// hash -p bound the name to another program.
			add(append([]wordInfo{staticWord(p)}, ws[1:]...))
		}
	}
	through := make([]bool, 0, 4)
	for i := 0; i < len(forms); i++ {
		f, d := forms[i], delegated[i]
		next, _ := an.wrapperForms(c, f, false)
		through = append(through, len(next) > 0)
		for _, g := range next {
			addForm(g, d)
		}
		addForm(baseNameForm(f), d)
		addForm(globalOptsForm(f), d)
		for _, g := range an.runsForms(c, f) {
			addForm(g, true)
			// A command that has another program run commands is never
			// read-only: the commands it runs are judged by deny and ask
			// rules only, so the default must not approve them with it.
			notRO = true
		}
	}
	c.Forms = an.res.mem.formList(len(forms))
	c.Forms[0] = c.Words
	for i := 1; i < len(forms); i++ {
		c.Forms[i] = an.res.mem.values(forms[i])
	}
	ins := an.tmp.inspector()
	*ins = inspector{an: an, c: c, sc: sc, dir: dir}
	for i, f := range forms {
		if delegated[i] {
			// What it runs is read in full: the commands of a script
			// there are Delegated, for deny and ask rules.
			an.delegated++
		}
		ins.inspect(f, i == 0, i < len(through) && through[i])
		if delegated[i] {
			an.delegated--
		}
	}
	for _, w := range ws[1:] {
		an.argPaths(c, w)
	}
	if ins.mayWrite {
		// Not modelled: every path it names may be written.
		c.MayWrite = true
	}
	if c.Unmodelled {
		an.guessTails(c, forms)
	}
	if stripped {
		c.AcceptEdits = false // not plain: run through a wrapper
	}
	if notRO {
		c.ReadOnly, c.AcceptEdits = false, false
	}
	// cd and pushd change the directory of the following commands.
	if len(words) > 0 && words[0].Static {
		switch words[0].Value {
		case "cd", "pushd":
			*sc.dir = an.cdTarget(words[1:], dir)
			if sc.alts != nil {
				for i, d := range *sc.alts {
					(*sc.alts)[i] = an.cdTarget(words[1:], d)
				}
			}
		case "popd":
			*sc.dir = ""
		}
	}
}

func values(ws []wordInfo) []Word {
	out := make([]Word, len(ws))
	for i, w := range ws {
		out[i] = w.Word
	}
	return out
}

func sameForm(a, b []wordInfo) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Word != b[i].Word {
			return false
		}
	}
	return true
}

func (an *analyzer) cdTarget(args []wordInfo, dir string) string {
	i := 0
	for i < len(args) && args[i].Static && len(args[i].Value) > 1 && args[i].Value[0] == '-' {
		if args[i].Value == "--" {
			i++
			break
		}
		i++
	}
	if i >= len(args) {
		return resolve("~", "", an.opts.Home)
	}
	a := args[i]
	if !a.Static || a.glob || a.Value == "-" || a.Value == "" {
		if rest, ok := homeRel(a.node); ok && an.opts.Home != "" {
			return resolve("~/"+rest, "", an.opts.Home)
		}
		return ""
	}
	return resolve(a.Value, dir, an.opts.Home)
}

// skipOpts returns the index of the first word at or after i that is not an
// option. short lists the short options that take an argument; long lists
// the long ones, each surrounded by spaces.
func skipOpts(f []wordInfo, i int, short, long string) int {
	for i < len(f) {
		w := f[i]
		if !w.Static || len(w.Value) < 2 || w.Value[0] != '-' {
			return i
		}
		v := w.Value
		i++
		if v == "--" {
			return i
		}
		if strings.HasPrefix(v, "--") {
			if !strings.Contains(v, "=") && strings.Contains(long, " "+v+" ") {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(short, v[j]) >= 0 {
				if j == len(v)-1 {
					i++
				}
				break
			}
		}
	}
	return i
}

func allStatic(ws []wordInfo) bool {
	for _, w := range ws {
		if !w.Static {
			return false
		}
	}
	return true
}

func isAssignWord(s string) bool {
	i := strings.IndexByte(s, '=')
	return i > 0 && syntax.ValidName(s[:i])
}

// splitWords splits s into words the way env -S does, approximated by the
// shell's word syntax.
func splitWords(s string) []wordInfo {
	p := syntax.NewParser()
	var out []wordInfo
	for w, err := range p.WordsSeq(strings.NewReader(s)) {
		if err != nil {
			break
		}
		out = append(out, evalWord(w, s))
	}
	if out == nil {
		out = []wordInfo{}
	}
	return out
}

// baseNameForm reads a program given by path by its base name.
func baseNameForm(f []wordInfo) []wordInfo {
	if len(f) == 0 || !f[0].Static {
		return nil
	}
	v := f[0].Value
	i := strings.LastIndexByte(v, '/')
	if i < 0 || i == len(v)-1 {
		return nil
	}
	out := make([]wordInfo, len(f))
	copy(out, f)
	out[0] = staticWord(v[i+1:])
	return out
}

// globalOptsForm removes the global options of programs whose options are
// known: git -c x=y push reads as git push.
func globalOptsForm(f []wordInfo) []wordInfo {
	if len(f) < 2 || !f[0].Static {
		return nil
	}
	var i int
	switch f[0].Value {
	case "git":
		i = skipOpts(f, 1, "cC", " --git-dir --work-tree --namespace --super-prefix --config-env --exec-path --list-cmds ")
	case "docker":
		i = skipOpts(f, 1, "cHl", " --config --context --host --log-level --tlscacert --tlscert --tlskey ")
	case "kubectl", "oc":
		i = skipOpts(f, 1, "nsv", " --namespace --context --cluster --user --kubeconfig --server --token --as --as-group --request-timeout --certificate-authority --client-certificate --client-key ")
	case "npm", "pnpm", "yarn":
		i = skipOpts(f, 1, "wC", " --prefix --workspace --loglevel --userconfig --globalconfig --registry --cache --dir --cwd ")
	case "go":
		i = skipOpts(f, 1, "C", "")
	case "tmux":
		i = skipOpts(f, 1, "LSfcT", "")
	case "cargo":
		i = 1
		if f[1].Static && strings.HasPrefix(f[1].Value, "+") {
			i = 2
		}
		i = skipOpts(f, i, "CZ", " --config --color --manifest-path ")
	default:
		return nil
	}
	if i <= 1 || i >= len(f) {
		return nil
	}
	out := make([]wordInfo, 0, len(f)-i+1)
	out = append(out, f[0])
	return append(out, f[i:]...)
}

// runsForms returns, for deny and ask rules, the commands that a program
// runs for its caller, on this machine or another: npx CMD, npm exec CMD,
// kubectl exec|run … -- CMD, docker and podman run|create|exec … CMD
// (and compose run|exec), go's -exec and -toolexec programs as words; the
// scripts of ssh HOST CMD, ssh's ProxyCommand and LocalCommand, and npx
// and npm exec -c as a shell's -c form, so that every command of the
// script is read (classify marks those commands Delegated). Allow rules
// never see these forms: the program's own rule decides (Bash(npx:*)
// approves npx rm), except that inline code (npm exec -c) needs an exact
// rule, as python3 -c does.
//
// delegators lists the programs of its switch; keep the two in step.
func (an *analyzer) runsForms(c *Command, f []wordInfo) [][]wordInfo {
	if len(f) == 0 || !f[0].Static || len(f) < 2 && f[0].Value != "batch" {
		return nil
	}
	var out [][]wordInfo
	script := func(shell string, w wordInfo) {
		if w.Static && strings.Trim(w.Value, " \t\n") != "" {
			if w.Value[0] == '-' || w.Value[0] == '+' {
				// Not an option of the shell: the same script.
				w = staticWord(" " + w.Value)
			}
			out = append(out, []wordInfo{staticWord(shell), staticWord("-c"), w})
		}
	}
	// command adds a command given as words; when every word is static it
	// is quoted into a script, so that it is read as a command of its
	// own, as a script's are.
	command := func(ws []wordInfo) {
		// Leading NAME=value words set the command's environment
		// (cross-env A=1 cmd); for deny the command is what follows, and
		// the values are read as assigned values are.
		for len(ws) > 1 && ws[0].Static && isAssignWord(ws[0].Value) {
			name, value, _ := strings.Cut(ws[0].Value, "=")
			an.readAssigned(name, value, c.Depth+1, c.Dir)
			ws = ws[1:]
		}
		if len(ws) == 0 || ws[0].Static && strings.HasPrefix(ws[0].Value, "-") {
			return // no command: a reading that took an option's value for the image
		}
		if allStatic(ws) {
			if q, ok := quoteWords(ws); ok && q != "" {
				script("bash", staticWord(q))
				return
			}
		}
		out = append(out, ws)
	}
	words := func(w wordInfo) {
		if w.Static {
			command(splitWords(w.Value))
		}
	}
	// optVals calls fn on the values of -x V, -xV, --long V and --long=V.
	// A value that is not static is passed on: script and words skip it.
	optVals := func(args []wordInfo, short byte, long string, fn func(wordInfo)) {
		for i, w := range args {
			if !w.Static {
				continue
			}
			v := w.Value
			switch {
			case long != "" && v == long && i+1 < len(args):
				fn(args[i+1])
			case long != "" && strings.HasPrefix(v, long+"="):
				fn(staticWord(v[len(long)+1:]))
			case short != 0 && len(v) == 2 && v[0] == '-' && v[1] == short && i+1 < len(args):
				fn(args[i+1])
			case short != 0 && len(v) > 2 && v[0] == '-' && v[1] == short:
				fn(staticWord(v[2:]))
			}
		}
	}
	inline := func(args []wordInfo) {
		optVals(args, 'c', "--call", func(w wordInfo) {
			c.ExactOnly = true
			script("sh", w)
		})
	}
	args := f[1:]
	switch f[0].Value {
	case "npx":
		i := skipOpts(f, 1, "pc", " --package --call ")
		inline(f[1:i])
		if i < len(f) {
			command(f[i:])
		}
	case "npm", "pnpm":
		if args[0].Static && (args[0].Value == "exec" || args[0].Value == "x" || args[0].Value == "dlx") {
			i := skipOpts(f, 2, "pc", " --package --call ")
			inline(f[2:i])
			if i < len(f) {
				command(f[i:])
			}
		}
	case "kubectl", "oc":
		dash := false
		for i, w := range args {
			if w.Static && w.Value == "--" {
				if i+1 < len(args) {
					command(args[i+1:])
				}
				dash = true
				break
			}
		}
		if !dash && args[0].Static && args[0].Value == "exec" {
			// The old form without --: kubectl exec POD CMD.
			for _, p := range operandStarts(c, f, 2, "cfn", "iqt", " --container --filename --namespace --pod-running-timeout ", " --stdin --tty --quiet ") {
				command(f[p+1:])
			}
		}
	case "docker", "podman", "docker-compose":
		for _, g := range containerForms(c, f) {
			command(g)
		}
	case "ssh", "scp", "sftp":
		// -o KEY=VALUE (or KEY VALUE) options that run a command, here or
		// on the remote host; a configuration file (-F) may hold them too.
		for i, w := range args {
			if !w.Static || !strings.HasPrefix(w.Value, "-") || strings.HasPrefix(w.Value, "--") {
				continue
			}
			// A cluster (-vo KEY=V, -qF cfg): the first letter that takes
			// a value takes the rest of the word or the next one.
			var kv string
			for k := 1; k < len(w.Value); k++ {
				ch := w.Value[k]
				if strings.IndexByte("BbcDEeFIiJLlmOoPpQRSWws", ch) < 0 {
					continue
				}
				val, ok := w.Value[k+1:], true
				if val == "" {
					ok = i+1 < len(args) && args[i+1].Static
					if ok {
						val = args[i+1].Value
					}
				}
				switch ch {
				case 'o':
					if ok {
						kv = val
					}
				case 'F':
					c.ExactOnly = true
				}
				break
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				k, v, _ = strings.Cut(strings.TrimSpace(kv), " ")
			}
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "proxycommand", "localcommand", "remotecommand", "knownhostscommand":
				if v = strings.TrimSpace(v); !strings.EqualFold(v, "none") {
					script("bash", staticWord(v))
				}
			}
		}
		if f[0].Value != "ssh" {
			break
		}
		// The remote command: the words after the host, joined by spaces
		// as ssh joins them, run by the remote user's shell.
		for _, p := range operandStarts(c, f, 1, "BbcDEeFIiJLlmOoPpQRSWw", "46AaCfGgKkMNnqsTtVvXxYy", "", "") {
			if p+1 >= len(f) {
				continue
			}
			var parts []string
			for _, w := range f[p+1:] {
				if !w.Static {
					parts = nil
					break
				}
				parts = append(parts, w.Value)
			}
			if parts != nil {
				script("bash", staticWord(strings.Join(parts, " ")))
			}
		}
	case "at", "batch":
		// at runs the commands it reads from standard input (or -f FILE)
		// later, with sh; -l, -r, -d and -c only manage jobs.
		file := false
		for i, w := range args {
			if !w.Static || !strings.HasPrefix(w.Value, "-") {
				continue
			}
			if strings.ContainsAny(w.Value[1:], "lrdc") {
				return out
			}
			if strings.HasPrefix(w.Value, "-f") {
				file = true
				c.ExactOnly = true
				if len(w.Value) == 2 && i+1 < len(args) {
					for _, r := range an.pathRefs(args[i+1], c.Dir) {
						c.Reads = an.appendRef(c.Reads, r)
					}
				}
			}
		}
		switch {
		case file:
		case c.StdinStatic:
			script("sh", staticWord(c.Stdin))
		default:
			setUnanalysable(c, f[0].Value+" runs the commands it reads from standard input")
		}
	case "go":
		optVals(args, 0, "-exec", words)
		optVals(args, 0, "-toolexec", words)
		optVals(args, 0, "--exec", words)
		optVals(args, 0, "--toolexec", words)
	default:
		an.runnerForms(c, f, command, script)
	}
	return out
}

// containerForms returns the commands docker and podman run in a
// container: run and create IMAGE CMD (with --entrypoint), exec
// CONTAINER CMD, and compose's run and exec SERVICE CMD, for every place
// the image, container or service may be (operandStarts).
func containerForms(c *Command, f []wordInfo) [][]wordInfo {
	i, compose := 1, false // i: the subcommand
	switch {
	case f[0].Value == "docker-compose":
		compose = true
	case f[1].Static && f[1].Value == "compose":
		i, compose = 2, true
	case f[1].Static && f[1].Value == "container":
		i = 2
	}
	if compose {
		// compose's own options come before its subcommand.
		i = skipOpts(f, i, "fp", " --file --project-name --profile --env-file --project-directory --ansi --progress --parallel ")
	}
	if i >= len(f) || !f[i].Static {
		return nil
	}
	var shortArg, shortNo, longArg, longNo string
	sub := f[i].Value
	switch {
	case compose && sub == "run":
		shortArg, shortNo = "eluvwp", "dTPi"
		longArg = " --entrypoint --env --env-from-file --label --name --publish --pull --user --volume --workdir --cap-add --cap-drop "
		longNo = " --build --detach --interactive --no-TTY --no-deps --quiet-pull --remove-orphans --rm --service-ports --use-aliases --quiet --help "
	case compose && sub == "exec":
		shortArg, shortNo = "euw", "dT"
		longArg = " --env --index --user --workdir "
		longNo = " --detach --no-TTY --privileged --interactive --tty --help "
	case compose:
		return nil
	case sub == "run" || sub == "create":
		shortArg, shortNo = "acehlmpuvw", "dtiPq"
		longArg = " --add-host --annotation --attach --blkio-weight --blkio-weight-device --cap-add --cap-drop --cgroup-parent --cgroupns --cidfile --cpu-count --cpu-percent --cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime --cpu-shares --cpus --cpuset-cpus --cpuset-mems --detach-keys --device --device-cgroup-rule --device-read-bps --device-read-iops --device-write-bps --device-write-iops --dns --dns-option --dns-search --domainname --entrypoint --env --env-file --expose --gpus --group-add --health-cmd --health-interval --health-retries --health-start-interval --health-start-period --health-timeout --hostname --io-maxbandwidth --io-maxiops --ip --ip6 --ipc --isolation --kernel-memory --label --label-file --link --link-local-ip --log-driver --log-opt --mac-address --memory --memory-reservation --memory-swap --memory-swappiness --mount --name --network --net --network-alias --net-alias --oom-score-adj --pid --pids-limit --platform --publish --pull --restart --runtime --security-opt --shm-size --stop-signal --stop-timeout --storage-opt --sysctl --tmpfs --ulimit --user --userns --uts --volume --volume-driver --volumes-from --workdir "
		longNo = " --detach --disable-content-trust --init --interactive --no-healthcheck --oom-kill-disable --privileged --publish-all --quiet --read-only --rm --sig-proxy --tty --use-api-socket --help "
	case sub == "exec":
		shortArg, shortNo = "euw", "dit"
		longArg = " --detach-keys --env --env-file --user --workdir "
		longNo = " --detach --interactive --privileged --tty --help "
	default:
		return nil
	}
	var out [][]wordInfo
	var entry []wordInfo
	for j := i + 1; j < len(f); j++ {
		w := f[j]
		if !w.Static {
			continue
		}
		if w.Value == "--entrypoint" && j+1 < len(f) {
			entry = append(entry, f[j+1])
		} else if v, ok := strings.CutPrefix(w.Value, "--entrypoint="); ok {
			entry = append(entry, staticWord(v))
		}
	}
	for _, p := range operandStarts(c, f, i+1, shortArg, shortNo, longArg, longNo) {
		if p+1 < len(f) {
			out = append(out, f[p+1:])
		}
		for _, e := range entry {
			if e.Static && e.Value != "" {
				out = append(out, append(splitWords(e.Value), f[p+1:]...))
			}
		}
	}
	return out
}

// operandStarts returns the indexes from i on at which the first operand
// of f may be. Short options in shortArg take a value (attached or the
// next word), those in shortNo none; long options in longArg (each
// surrounded by spaces) take a value after = or in the next word, those
// in longNo none. An option in neither may do either, and a word whose
// value is not static may be an option or the operand, so that deny sees
// every reading. At most maxForms indexes are returned; past them c is
// unanalysable.
func operandStarts(c *Command, f []wordInfo, i int, shortArg, shortNo, longArg, longNo string) []int {
	if i >= len(f) {
		return nil
	}
	reach := make([]bool, len(f)+2)
	reach[i] = true
	var out []int
	for j := i; j < len(f); j++ {
		if !reach[j] {
			continue
		}
		if len(out) == maxForms {
			setUnanalysable(c, tooManyForms)
			break
		}
		w := f[j]
		if !w.Static {
			out = append(out, j)
			reach[j+1], reach[j+2] = true, true
			continue
		}
		v := w.Value
		if len(v) < 2 || v[0] != '-' {
			out = append(out, j)
			continue
		}
		if v == "--" {
			if j+1 < len(f) {
				out = append(out, j+1)
			}
			continue
		}
		if strings.HasPrefix(v, "--") {
			switch {
			case strings.Contains(v, "="), strings.Contains(longNo, " "+v+" "):
				reach[j+1] = true
			case strings.Contains(longArg, " "+v+" "):
				reach[j+2] = true
			default:
				reach[j+1], reach[j+2] = true, true
			}
			continue
		}
		next := 1
		for k := 1; k < len(v); k++ {
			switch {
			case strings.IndexByte(shortArg, v[k]) >= 0:
				if k == len(v)-1 {
					next = 2
				}
				k = len(v)
			case strings.IndexByte(shortNo, v[k]) >= 0:
			default:
				next = 3 // either
				k = len(v)
			}
		}
		switch next {
		case 1:
			reach[j+1] = true
		case 2:
			reach[j+2] = true
		default:
			reach[j+1], reach[j+2] = true, true
		}
	}
	return out
}

// delegators are the programs runsForms reads besides the runners table:
// the model knows where the commands they run are, so their other
// operands are not guessed at (guessTails).
var delegators = map[string]bool{
	"npx": true, "npm": true, "pnpm": true, "kubectl": true, "oc": true, "docker": true, "podman": true,
	"docker-compose": true, "ssh": true, "scp": true, "sftp": true, "at": true, "batch": true, "go": true,
}

// maxTails caps the tails of one unmodelled command that guessTails reads;
// a command with more is unanalysable.
const maxTails = 16

// guessTails reads, for deny and ask rules, the commands an unmodelled
// program may run: every tail of one of its forms that starts with the
// name of a program the model knows (bwrap --bind / / sh -c 'rm -rf x',
// mytool sudo rm -rf x) is guessed at as a command of its own (guessScript):
// its commands are Delegated, the safety floors judge them, and what cannot
// be analysed in them is no issue of the call, since the words may be data.
// A tail with a word that is not static is not read; the root's deny and
// ask rules still judge the words of every tail (Command.Unmodelled).
func (an *analyzer) guessTails(c *Command, forms [][]wordInfo) {
	var seen []string
	for _, f := range forms {
		for i := 1; i < len(f); i++ {
			w := f[i]
			if !w.Static || !knownProgram(baseName(w.Value)) || !allStatic(f[i:]) {
				continue
			}
			script, ok := quoteWords(f[i:])
			if !ok || slices.Contains(seen, script) {
				continue
			}
			if len(seen) == maxTails {
				setUnanalysable(c, "more operands that may be commands than are read (16)")
				return
			}
			seen = append(seen, script)
			an.guessScript(script, c.Depth+1, c.Dir)
		}
	}
}

// knownProgram reports whether the model knows a program by this name:
// one it has a model for, a shell or interpreter, a wrapper or a runner.
func knownProgram(n string) bool {
	return lookupModel(n) != nil || programNames[n] || wrapperNames[n] || runnerNames[n] ||
		n == "eval" || n == "source" || n == "."
}

// baseName is the last component of a program path (/bin/rm is rm).
func baseName(p string) string {
	if j := strings.LastIndexByte(p, '/'); j >= 0 && j < len(p)-1 {
		return p[j+1:]
	}
	return p
}

// quoteWords quotes static words into one command line of a script.
func quoteWords(ws []wordInfo) (string, bool) {
	var b strings.Builder
	for i, w := range ws {
		q, err := Quote(w.Value)
		if err != nil {
			return "", false
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q)
	}
	return b.String(), true
}
