package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// git reads git's global options by its model, then the subcommand by
// the subcommand's model. It reports whether the command only reads.
func (in *inspector) git(a *argv) bool {
	dir := in.dir
	for _, o := range a.opts {
		switch o.name {
		case "-C":
			if o.val.Static {
				dir = resolve(o.val.Value, dir, in.an.opts.Home)
			} else {
				dir = ""
			}
		case "--work-tree":
			if o.val.Static {
				dir = resolve(o.val.Value, in.dir, in.an.opts.Home)
			} else {
				dir = ""
			}
		case "-c":
			// A configuration value may be a command git runs (alias.X=!cmd,
			// core.pager, core.sshCommand, a textconv, a credential
			// helper): every value is read as a script, so deny rules see
			// what it would run, and allow needs it too.
			if !o.val.Static {
				in.unanalysable("git -c with a value that is not static")
			} else if _, v, ok := strings.Cut(o.val.Value, "="); ok {
				in.runScript(strings.TrimPrefix(v, "!"), false)
			}
		case "--config-env":
			in.unanalysable("git --config-env takes a configuration value, perhaps a command, from the environment")
		case "--git-dir", "--namespace", "--exec-path", "--super-prefix":
			// Another repository or program directory: nothing read here is
			// known to be read-only.
			in.mayWrite = true
			return false
		}
	}
	if len(a.ops) == 0 || !a.ops[0].Static {
		in.mayWrite = true
		return false
	}
	sub := a.ops[0].Value
	in.gitCommands(sub, a.ops[1:])
	m := gitSubs[sub]
	if m == nil {
		// A subcommand the model does not know (git archive, an alias):
		// never read-only, and it may write what it names.
		in.mayWrite = true
		return false
	}
	saved := in.dir
	in.dir = dir
	defer func() { in.dir = saved }()
	if dir == "" {
		in.mayWrite = in.mayWrite || !m.ro
	}
	return in.modelled(m, a.ops[1:])
}

// gitShow reads REV:path operands as files (git show, git cat-file).
func (in *inspector) gitShow(a *argv) bool {
	for _, w := range a.ops {
		if !w.Static {
			continue
		}
		if j := strings.IndexByte(w.Value, ':'); j >= 0 {
			in.read(staticWord(w.Value[j+1:]))
		}
	}
	return true
}

// gitContent reads the operands of git diff and git blame as files: both
// print the work-tree contents of the paths they name (git diff --no-index
// of any two files). Revisions and paths are not told apart, so every
// operand is read, and REV:path names its path as git show's do.
func (in *inspector) gitContent(a *argv) bool {
	in.read(a.ops...)
	return in.gitShow(a)
}

// gitGrep searches the work tree below its paths.
func (in *inspector) gitGrep(a *argv) bool {
	ops := a.ops
	if !a.has("-e", "-f") && len(ops) > 0 {
		ops = ops[1:]
	}
	// Revisions and paths are not told apart; every operand is searched.
	if len(ops) == 0 {
		if in.dir != "" {
			in.c.Searches = in.an.appendRef(in.c.Searches, PathRef{Text: ".", Path: in.dir})
		} else {
			in.c.Searches = in.an.appendRef(in.c.Searches, PathRef{Text: ".", Dynamic: true})
		}
	}
	in.search(ops...)
	return true
}

// gitBranch only lists when it names no branch to create, or lists with
// --list and patterns.
func (in *inspector) gitBranch(a *argv) bool {
	return len(a.ops) == 0 || a.has("-l", "--show-current", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at")
}

// gitRemote lists remotes (git remote, -v, show, get-url).
func (in *inspector) gitRemote(a *argv) bool {
	if len(a.ops) == 0 {
		return true
	}
	w := a.ops[0]
	return w.Static && (w.Value == "show" || w.Value == "get-url")
}

// gitTag lists tags unless it names one to create.
func (in *inspector) gitTag(a *argv) bool {
	return len(a.ops) == 0 || a.has("-l", "-v")
}

// gitConfig reads configuration only with a read action given before its
// operands (git config stops reading options at the first operand:
// `git config KEY VALUE --get` sets KEY), or with one operand and no
// action.
func (in *inspector) gitConfig(a *argv) bool {
	// Where it reads: without a scope, the user's and the system's files
	// as well as the repository's; they may hold credentials (a token in
	// http.extraheader or a url.*.insteadOf), so they are read as files,
	// outside the workspace. include.path may name any file.
	if a.has("--includes") {
		return false
	}
	scoped := a.has("--local", "--worktree", "-f", "--blob")
	if a.has("--global") || !scoped {
		in.read(staticWord("~/.gitconfig"), staticWord("~/.config/git/config"))
	}
	if a.has("--system") || !scoped {
		in.read(staticWord("/etc/gitconfig"))
	}
	switch {
	case a.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool"):
		return len(a.ops) <= 2
	case a.has("--list"):
		return len(a.ops) == 0
	}
	return len(a.ops) == 1
}

// gitStash: list and show read; everything else changes the work tree.
func (in *inspector) gitStash(a *argv) bool {
	if len(a.ops) > 0 && a.ops[0].Static && (a.ops[0].Value == "list" || a.ops[0].Value == "show") {
		return true
	}
	in.gitWorktree(a)
	return false
}

// gitWorktree: the subcommand writes the work tree; its path operands are
// written.
func (in *inspector) gitWorktree(pa *argv) bool {
	if in.dir != "" {
		in.writeDir(in.dir)
	} else {
		in.c.Writes = in.an.appendRef(in.c.Writes, PathRef{Text: ".", Dynamic: true})
	}
	sub := strings.TrimPrefix(pa.name, "git ")
	a := parseArgv(pa.args, "mbBCoSX", " --message --branch --depth --origin --template --separate-git-dir ")
	switch sub {
	case "rm", "mv", "checkout", "restore", "clean", "stash":
		in.write(a.ops...)
	case "apply", "am":
		in.read(a.ops...)
		if len(a.ops) == 0 || len(a.ops) == 1 && a.ops[0].Static && a.ops[0].Value == "-" {
			in.diffWrites()
		}
	case "clone":
		if len(a.ops) > 1 {
			in.write(a.ops[1])
		}
	}
	return false
}

// gitRepo: the subcommand changes the repository or a remote, not the
// files it names.
func (in *inspector) gitRepo(*argv) bool { return false }

// gitCmdOpts are the options of git subcommands whose value is a command
// git runs (through the shell, or as the program of a local transport),
// with their one-letter spellings.
var gitCmdOpts = map[string][]struct {
	long  string
	short byte
}{
	"rebase":        {{"--exec", 'x'}},
	"difftool":      {{"--extcmd", 'x'}},
	"clone":         {{"--upload-pack", 'u'}},
	"fetch":         {{"--upload-pack", 0}},
	"pull":          {{"--upload-pack", 0}},
	"ls-remote":     {{"--upload-pack", 0}},
	"push":          {{"--receive-pack", 0}, {"--exec", 0}},
	"archive":       {{"--exec", 0}},
	"send-email":    {{"--to-cmd", 0}, {"--cc-cmd", 0}, {"--header-cmd", 0}, {"--sendmail-cmd", 0}, {"--smtp-server", 0}},
	"filter-branch": {{"--env-filter", 0}, {"--tree-filter", 0}, {"--index-filter", 0}, {"--parent-filter", 0}, {"--msg-filter", 0}, {"--commit-filter", 0}, {"--tag-name-filter", 0}},
}

// gitCommands reads the commands a git subcommand runs: the values of
// gitCmdOpts (also abbreviated, as git accepts, and in a cluster of
// one-letter options), git bisect run's command and git submodule
// foreach's script. They are read as scripts, so deny rules see them, and
// no prefix rule covers the call.
func (in *inspector) gitCommands(sub string, args []wordInfo) {
	run := func(w wordInfo, ok bool) {
		in.c.ExactOnly = true
		switch {
		case !ok:
			in.unanalysable("git " + sub + " runs a command that is missing")
		case !w.Static:
			in.unanalysable("git " + sub + " runs a command that is not static")
		default:
			in.runScript(strings.TrimPrefix(w.Value, "!"), false)
		}
	}
	next := func(i int) (wordInfo, bool) {
		if i+1 < len(args) {
			return args[i+1], true
		}
		return wordInfo{}, false
	}
	for i, w := range args {
		if !w.Static || len(w.Value) < 2 || w.Value[0] != '-' {
			continue
		}
		if w.Value == "--" {
			break
		}
		for _, o := range gitCmdOpts[sub] {
			if strings.HasPrefix(w.Value, "--") {
				name, val, eq := strings.Cut(w.Value, "=")
				if len(name) < 3 || !strings.HasPrefix(o.long, name) {
					continue
				}
				if eq {
					run(staticWord(val), true)
				} else {
					run(next(i))
				}
				continue
			}
			if o.short == 0 {
				continue
			}
			if j := strings.IndexByte(w.Value[1:], o.short); j >= 0 {
				if rest := w.Value[j+2:]; rest != "" {
					run(staticWord(rest), true)
				} else {
					run(next(i))
				}
			}
		}
	}
	switch sub {
	case "bisect":
		// git bisect run CMD ARGS...: the program and its arguments.
		if len(args) > 0 && args[0].Static && args[0].Value == "run" {
			var b strings.Builder
			for _, w := range args[1:] {
				if !w.Static {
					run(w, true)
					return
				}
				q, err := syntax.Quote(w.Value, syntax.LangBash)
				if err != nil {
					run(wordInfo{}, false)
					return
				}
				b.WriteString(q + " ")
			}
			run(staticWord(b.String()), len(args) > 1)
		}
	case "submodule":
		// git submodule [--quiet] foreach [--recursive] SCRIPT...: the
		// words are joined and evaluated by the shell.
		for i, w := range args {
			if !w.Static || w.Value != "foreach" {
				continue
			}
			rest := args[i+1:]
			for len(rest) > 0 && rest[0].Static && strings.HasPrefix(rest[0].Value, "-") {
				rest = rest[1:]
			}
			var parts []string
			for _, x := range rest {
				if !x.Static {
					run(x, true)
					return
				}
				parts = append(parts, x.Value)
			}
			run(staticWord(strings.Join(parts, " ")), len(parts) > 0)
			return
		}
	}
}
