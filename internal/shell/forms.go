package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxForms caps the readings of one command.
const maxForms = 32

// classify fills in everything about c that follows from its words.
func (an *analyzer) classify(c *Command, ws []wordInfo, sc scope) {
	dir := *sc.dir
	words := ws
	stripped := false
	for {
		next := an.allowStep(c, words)
		if next == nil {
			break
		}
		words, stripped = next, true
	}
	c.Words = values(words)
	forms := [][]wordInfo{words}
	add := func(f []wordInfo) {
		if len(f) == 0 || len(forms) >= maxForms {
			return
		}
		for _, g := range forms {
			if sameForm(f, g) {
				return
			}
		}
		forms = append(forms, f)
	}
	add(ws)
	for i := 0; i < len(forms); i++ {
		f := forms[i]
		add(an.allowStep(c, f))
		add(an.denyStep(c, f))
		add(baseNameForm(f))
		add(globalOptsForm(f))
	}
	c.Forms = make([][]Word, len(forms))
	c.Forms[0] = c.Words
	for i := 1; i < len(forms); i++ {
		c.Forms[i] = values(forms[i])
	}
	ins := inspector{an: an, c: c, sc: sc, dir: dir}
	for i, f := range forms {
		ins.inspect(f, i == 0)
	}
	for _, w := range ws[1:] {
		an.argPaths(c, w)
	}
	if stripped {
		c.AcceptEdits = false // not plain: run through a wrapper
	}
	// cd and pushd change the directory of the following commands.
	if len(words) > 0 && words[0].Static {
		switch words[0].Value {
		case "cd", "pushd":
			*sc.dir = an.cdTarget(words[1:], dir)
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

// allowStep strips one wrapper that allow rules read through.
func (an *analyzer) allowStep(c *Command, f []wordInfo) []wordInfo {
	if len(f) < 2 || !f[0].Static {
		return nil
	}
	var i int
	switch f[0].Value {
	case "timeout":
		i = skipOpts(f, 1, "sk", " --signal --kill-after ")
		i++ // the duration
	case "time":
		i = 1
		for i < len(f) && f[i].Static && (f[i].Value == "-p" || f[i].Value == "--") {
			i++
		}
	case "nice":
		i = skipOpts(f, 1, "n", " --adjustment ")
	case "nohup", "builtin", "noglob":
		i = 1
		if f[i].Static && f[i].Value == "--" {
			i++
		}
	case "stdbuf":
		i = skipOpts(f, 1, "ioe", " --input --output --error ")
	case "command":
		i = 1
		for i < len(f) && f[i].Static && strings.HasPrefix(f[i].Value, "-") && len(f[i].Value) > 1 {
			if f[i].Value == "--" {
				i++
				break
			}
			if strings.ContainsAny(f[i].Value, "vV") {
				return nil // a lookup, not a run
			}
			i++
		}
	case "exec":
		i = skipOpts(f, 1, "a", "")
	case "xargs":
		return an.xargs(c, f)
	default:
		return nil
	}
	if i >= len(f) {
		return nil
	}
	return f[i:]
}

// xargs reads `xargs CMD ARGS` as CMD ARGS followed by unknown arguments.
func (an *analyzer) xargs(c *Command, f []wordInfo) []wordInfo {
	i := skipOpts(f, 1, "EIadLlnPs", " --eof --replace --arg-file --delimiter --max-lines --max-args --max-procs --max-chars --process-slot-var ")
	if i > 1 {
		c.ExactOnly = true
	}
	var out []wordInfo
	if i >= len(f) {
		out = []wordInfo{staticWord("echo")}
	} else {
		out = append(out, f[i:]...)
	}
	out = append(out, wordInfo{Word: Word{Value: "…"}, xargs: true})
	return out
}

// denyStep reads through one wrapper that only deny and ask rules see
// through.
func (an *analyzer) denyStep(c *Command, f []wordInfo) []wordInfo {
	if len(f) < 2 || !f[0].Static {
		return nil
	}
	var i int
	switch f[0].Value {
	case "sudo":
		i = 1
		for i < len(f) {
			j := skipOpts(f, i, "ughpCDrtUTR", " --user --group --host --prompt --close-from --chdir --role --type --other-user --command-timeout ")
			if j == i {
				if f[i].Static && isAssignWord(f[i].Value) {
					j = i + 1
				} else {
					break
				}
			}
			i = j
		}
	case "doas":
		i = skipOpts(f, 1, "uC", "")
	case "env":
		return an.envForm(f)
	case "watch":
		c.ExactOnly = true
		i = skipOpts(f, 1, "nq", " --interval --equexit ")
		exec := false
		for _, w := range f[1:i] {
			if w.Value == "-x" || w.Value == "--exec" {
				exec = true
			}
		}
		if !exec && i == len(f)-1 && f[i].Static && strings.ContainsAny(f[i].Value, " \t\n;|&$<>`()") {
			return []wordInfo{staticWord("sh"), staticWord("-c"), f[i]}
		}
		if !exec && i < len(f) && allStatic(f[i:]) && len(f)-i > 1 {
			return []wordInfo{staticWord("sh"), staticWord("-c"), staticWord(joinValues(f[i:]))}
		}
	case "ionice":
		i = skipOpts(f, 1, "cnpPut", " --class --classdata --pid --pgid --uid ")
		for _, w := range f[1:i] {
			if strings.HasPrefix(w.Value, "-p") || strings.HasPrefix(w.Value, "-P") || strings.HasPrefix(w.Value, "-u") {
				return nil
			}
		}
	case "setsid":
		c.ExactOnly = true
		i = skipOpts(f, 1, "", "")
	case "flock":
		c.ExactOnly = true
		i = skipOpts(f, 1, "wE", " --timeout --conflict-exit-code ")
		i++ // the lock file or descriptor
		if i < len(f) && f[i].Static && (f[i].Value == "-c" || f[i].Value == "--command") {
			if i+1 < len(f) {
				return []wordInfo{staticWord("sh"), staticWord("-c"), f[i+1]}
			}
			return nil
		}
	default:
		return nil
	}
	if i >= len(f) {
		return nil
	}
	return f[i:]
}

func allStatic(ws []wordInfo) bool {
	for _, w := range ws {
		if !w.Static {
			return false
		}
	}
	return true
}

func joinValues(ws []wordInfo) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.Value)
	}
	return b.String()
}

func isAssignWord(s string) bool {
	i := strings.IndexByte(s, '=')
	return i > 0 && syntax.ValidName(s[:i])
}

// envForm reads through env's options and assignments.
func (an *analyzer) envForm(f []wordInfo) []wordInfo {
	i := 1
	var split []wordInfo
	for i < len(f) {
		w := f[i]
		if !w.Static {
			break
		}
		v := w.Value
		switch {
		case v == "--":
			i++
		case v == "-" || v == "-i" || v == "-0" || v == "-v" || v == "--ignore-environment" || v == "--null" || v == "--debug":
			i++
			continue
		case v == "-u" || v == "-C" || v == "--unset" || v == "--chdir":
			i += 2
			continue
		case v == "-S" || v == "--split-string":
			if i+1 < len(f) {
				split = splitWords(f[i+1].Value)
			}
			i += 2
			continue
		case strings.HasPrefix(v, "-S"):
			split = splitWords(v[2:])
			i++
			continue
		case strings.HasPrefix(v, "--split-string="):
			split = splitWords(v[len("--split-string="):])
			i++
			continue
		case strings.HasPrefix(v, "-"):
			i++
			continue
		case isAssignWord(v):
			an.assign(v[:strings.IndexByte(v, '=')])
			i++
			continue
		}
		break
	}
	if split != nil {
		out := append(split, f[min(i, len(f)):]...)
		return out
	}
	if i >= len(f) {
		return nil
	}
	return f[i:]
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
