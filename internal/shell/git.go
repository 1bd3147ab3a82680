package shell

import "strings"

// gitWritesWorktree lists git subcommands that write the work tree.
var gitWritesWorktree = map[string]bool{
	"checkout": true, "switch": true, "reset": true, "clean": true, "rm": true, "mv": true,
	"apply": true, "restore": true, "stash": true, "pull": true, "merge": true, "rebase": true,
	"cherry-pick": true, "revert": true, "am": true, "checkout-index": true, "read-tree": true,
	"submodule": true, "worktree": true, "clone": true, "init": true, "sparse-checkout": true,
	"bisect": true, "filter-branch": true, "lfs": true,
}

// gitBranchReadFlags are options of git branch that only list.
var gitBranchReadFlags = map[string]bool{
	"--list": true, "-l": true, "-a": true, "--all": true, "-r": true, "--remotes": true,
	"-v": true, "-vv": true, "--verbose": true, "--show-current": true, "--contains": true,
	"--no-contains": true, "--merged": true, "--no-merged": true, "--color": true, "--no-color": true,
	"--column": true, "--no-column": true, "-i": true, "--ignore-case": true, "--points-at": true,
}

// git handles git; it reports whether the command only reads.
func (in *inspector) git(f []wordInfo) bool {
	dir := in.dir
	i := 1
	for i < len(f) {
		w := f[i]
		if !w.Static || len(w.Value) < 2 || w.Value[0] != '-' {
			break
		}
		v := w.Value
		switch {
		case v == "-C":
			if i+1 < len(f) {
				d := f[i+1]
				if d.Static {
					dir = resolve(d.Value, dir, in.an.opts.Home)
				} else {
					dir = ""
				}
			}
			i += 2
			continue
		case v == "-c" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" || v == "--config-env" || v == "--exec-path":
			if v == "-c" || v == "--config-env" || v == "--exec-path" {
				// Configuration can make git run any program.
				in.c.ExactOnly = true
			}
			i += 2
			continue
		case strings.HasPrefix(v, "--exec-path=") || strings.HasPrefix(v, "--config-env="):
			in.c.ExactOnly = true
		case strings.HasPrefix(v, "--work-tree="):
			dir = resolve(v[len("--work-tree="):], dir, in.an.opts.Home)
		}
		i++
	}
	if i >= len(f) || !f[i].Static {
		return false
	}
	sub := f[i].Value
	args := f[i+1:]
	saved := in.dir
	in.dir = dir
	defer func() { in.dir = saved }()
	for _, w := range args {
		if w.Static && (strings.HasPrefix(w.Value, "--output") || w.Value == "--ext-diff" || strings.HasPrefix(w.Value, "--exec")) {
			return false
		}
	}
	if gitWritesWorktree[sub] {
		if dir != "" {
			in.writeDir(dir)
		} else {
			in.c.Writes = appendRef(in.c.Writes, PathRef{Text: ".", Dynamic: true})
		}
		a := parseArgv(args, "mbBCoSX", " --message --branch --depth --origin --template --separate-git-dir ")
		switch sub {
		case "rm", "mv", "checkout", "restore", "clean":
			in.write(a.ops...)
		case "apply", "am":
			in.read(a.ops...)
		case "clone":
			if len(a.ops) > 1 {
				in.write(a.ops[1])
			}
		}
		return false
	}
	switch sub {
	case "status", "log", "diff", "show", "blame", "rev-parse", "ls-files", "ls-tree", "cat-file",
		"describe", "shortlog", "rev-list", "merge-base", "name-rev", "show-ref", "for-each-ref",
		"whatchanged", "check-ignore", "version", "reflog", "grep", "count-objects":
		if sub == "show" || sub == "cat-file" {
			for _, w := range args {
				if !w.Static {
					continue
				}
				if j := strings.IndexByte(w.Value, ':'); j >= 0 && !strings.HasPrefix(w.Value, "-") {
					in.read(staticWord(w.Value[j+1:]))
				}
			}
		}
		if sub == "grep" {
			a := parseArgv(args, "efABCmO", " --max-depth --open-files-in-pager ")
			if a.has("-O", "--open-files-in-pager") {
				return false
			}
			ops := a.ops
			if !a.has("-e", "-f") && len(ops) > 0 {
				ops = ops[1:]
			}
			if len(ops) == 0 {
				if dir != "" {
					in.c.Searches = appendRef(in.c.Searches, PathRef{Text: ".", Path: dir})
				} else {
					in.c.Searches = appendRef(in.c.Searches, PathRef{Text: ".", Dynamic: true})
				}
			}
			in.search(ops...)
		}
		if sub == "reflog" && len(args) > 0 && args[0].Static && (args[0].Value == "expire" || args[0].Value == "delete") {
			return false
		}
		return true
	case "branch":
		listing := false
		for _, w := range args {
			if !w.Static {
				return false
			}
			v := w.Value
			if eq := strings.IndexByte(v, '='); eq > 0 && strings.HasPrefix(v, "--") {
				v = v[:eq]
			}
			switch {
			case v == "--list" || v == "-l":
				listing = true
			case strings.HasPrefix(v, "-"):
				if !gitBranchReadFlags[v] && v != "--format" && v != "--sort" {
					return false
				}
			default:
				if !listing {
					return false
				}
			}
		}
		return true
	case "remote":
		return len(args) == 0 || (len(args) == 1 && args[0].Value == "-v") ||
			(len(args) >= 1 && args[0].Static && (args[0].Value == "show" || args[0].Value == "get-url"))
	case "tag":
		return len(args) == 0 || (args[0].Static && (args[0].Value == "-l" || args[0].Value == "--list"))
	case "config":
		for _, w := range args {
			if w.Static && (w.Value == "--get" || w.Value == "--list" || w.Value == "-l" || w.Value == "--get-all" || w.Value == "--get-regexp") {
				return true
			}
		}
		return false
	}
	return false
}
