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
	if an.hashed != nil && len(ws) > 0 && ws[0].Static {
		if p, ok := an.hashed[ws[0].Value]; ok {
			// hash -p bound the name to another program.
			add(append([]wordInfo{staticWord(p)}, ws[1:]...))
		}
	}
	through := make([]bool, 0, 4)
	for i := 0; i < len(forms); i++ {
		f := forms[i]
		next, _ := an.wrapperForms(c, f, false)
		through = append(through, len(next) > 0)
		for _, g := range next {
			add(g)
		}
		add(baseNameForm(f))
		add(globalOptsForm(f))
		for _, g := range runsForms(f) {
			add(g)
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
		ins.inspect(f, i == 0, i < len(through) && through[i])
	}
	for _, w := range ws[1:] {
		an.argPaths(c, w)
	}
	if ins.mayWrite {
		// Not modelled: every path it names may be written.
		c.MayWrite = true
	}
	if stripped {
		c.AcceptEdits = false // not plain: run through a wrapper
	}
	if notRO {
		c.ReadOnly = false
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
// runs for its caller, on this machine or another: npx CMD, npm exec CMD
// (and -c SCRIPT), kubectl exec|run … -- CMD, ssh HOST CMD and its
// ProxyCommand or LocalCommand, go's -exec and -toolexec programs. A script
// is split into its first command's words. Allow rules never see these
// forms: the program's own rule decides (Bash(npx:*) approves npx rm).
func runsForms(f []wordInfo) [][]wordInfo {
	if len(f) < 2 || !f[0].Static {
		return nil
	}
	var out [][]wordInfo
	script := func(w wordInfo) {
		if w.Static {
			if ws := splitWords(strings.TrimPrefix(w.Value, "!")); len(ws) > 0 {
				out = append(out, ws)
			}
		}
	}
	// optVal returns the values of -x V, -xV, --long V and --long=V.
	optVals := func(args []wordInfo, short byte, long string) {
		for i, w := range args {
			if !w.Static {
				continue
			}
			v := w.Value
			switch {
			case long != "" && v == long && i+1 < len(args):
				script(args[i+1])
			case long != "" && strings.HasPrefix(v, long+"="):
				script(staticWord(v[len(long)+1:]))
			case short != 0 && len(v) == 2 && v[0] == '-' && v[1] == short && i+1 < len(args):
				script(args[i+1])
			case short != 0 && len(v) > 2 && v[0] == '-' && v[1] == short:
				script(staticWord(v[2:]))
			}
		}
	}
	args := f[1:]
	switch f[0].Value {
	case "npx":
		optVals(args, 'c', "--call")
		if i := skipOpts(f, 1, "p", " --package "); i < len(f) {
			out = append(out, f[i:])
		}
	case "npm", "pnpm":
		if args[0].Static && (args[0].Value == "exec" || args[0].Value == "x" || args[0].Value == "dlx") {
			optVals(args[1:], 'c', "--call")
			if i := skipOpts(f, 2, "pc", " --package --call "); i < len(f) {
				out = append(out, f[i:])
			}
		}
	case "kubectl", "oc":
		for i, w := range args {
			if w.Static && w.Value == "--" && i+1 < len(args) {
				out = append(out, args[i+1:])
				break
			}
		}
	case "ssh":
		optVals(args, 0, "-oProxyCommand")
		optVals(args, 0, "-oLocalCommand")
		for i, w := range args {
			if w.Static && w.Value == "-o" && i+1 < len(args) && args[i+1].Static {
				k, v, _ := strings.Cut(args[i+1].Value, "=")
				if strings.EqualFold(k, "ProxyCommand") || strings.EqualFold(k, "LocalCommand") {
					script(staticWord(v))
				}
			}
		}
		// The remote command: the words after the host, joined by
		// spaces as ssh joins them.
		if i := skipOpts(f, 1, "BbcDEeFIiJLlmOoPpQRSWw", ""); i+1 < len(f) {
			var parts []string
			for _, w := range f[i+1:] {
				if !w.Static {
					parts = nil
					break
				}
				parts = append(parts, w.Value)
			}
			if parts != nil {
				script(staticWord(strings.Join(parts, " ")))
			}
		}
	case "go":
		optVals(args, 0, "-exec")
		optVals(args, 0, "-toolexec")
		optVals(args, 0, "--exec")
		optVals(args, 0, "--toolexec")
	}
	return out
}
