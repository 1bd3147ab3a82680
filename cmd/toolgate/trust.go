package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/host"
)

const trustUsage = `Usage:

	toolgate trust [--yes] [--claude] [DIR]
	toolgate trust --list
	toolgate trust --revoke [DIR]

A project's own policy files (.toolgate/policy.*, .toolgate/policy.local.*,
and with --claude its .claude settings) may only tighten the policy until
you trust the project: the agent, or whoever wrote the repository, may have
written them. Trust lists the project in trusted_projects of your user
configuration ($XDG_CONFIG_HOME/toolgate/policy.yaml, else
~/.config/toolgate/policy.yaml; created if missing), after showing what its
files would then allow. DIR defaults to the current directory; the project
is the nearest ancestor holding .toolgate or .git.

Trust asks for confirmation on a terminal; elsewhere it needs --yes.
--list prints the trusted projects of the user and managed files.
--revoke removes a project from the user file's trusted_projects.

Exit status: 0 on success; 1 when the user file cannot be read or written,
or the project was not trusted (--revoke); 2 on a usage error or when
confirmation is refused.

Flags:
`

func (c *cli) trust(args []string) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var (
		list   = fs.Bool("list", false, "list the trusted projects")
		revoke = fs.Bool("revoke", false, "stop trusting the project")
		yes    = fs.Bool("yes", false, "do not ask for confirmation")
		claude = fs.Bool("claude", false, "also show the project's Claude Code settings files")
		home   = fs.String("home", "", "home `DIR` (default: $HOME)")
	)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), trustUsage)
		fs.PrintDefaults()
	}
	pos, code, done := parseInterspersed(fs, args)
	if done {
		return code
	}
	if len(pos) > 1 || *list && (len(pos) > 0 || *revoke) {
		c.errorf("trust: too many arguments")
		return exitUsage
	}
	e, err := c.resolveEnv(&policyFlags{home: *home})
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	if e.ucd == "" {
		c.errorf("trust: no home directory, so no user configuration directory")
		return exitUsage
	}
	if *list {
		return c.trustList(e)
	}
	dir := e.cwd
	if len(pos) == 1 {
		if dir, err = filepath.Abs(pos[0]); err != nil {
			c.errorf("trust: %v", err)
			return exitUsage
		}
	}
	root := projectRoot(dir)
	if root == "" {
		c.errorf("trust: %s is not in a project (no .toolgate or .git in it or above it)", dir)
		return exitUsage
	}
	if *revoke {
		return c.trustRevoke(e, root)
	}

	user, err := userPolicyFile(e.ucd)
	if err != nil {
		c.errorf("trust: %v", err)
		return exitFailure
	}
	if trusted, by := isTrusted(e, root); trusted {
		fmt.Fprintf(c.stdout, "%s is already trusted (by %s)\n", root, by)
		return exitOK
	}
	c.showLoosening(root, e.home, *claude)
	if !*yes {
		if !c.interactive() {
			c.errorf("trust: standard input is not a terminal; run again with --yes to trust %s", root)
			return exitUsage
		}
		fmt.Fprintf(c.stdout, "Trust %s? [y/N] ", root)
		ans, _ := bufio.NewReader(c.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(ans)); a != "y" && a != "yes" {
			fmt.Fprintln(c.stdout, "not trusted")
			return exitUsage
		}
	}
	if err := editTrusted(user, root, e.home, true); err != nil {
		c.errorf("trust: %v", err)
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "trusted %s (recorded in %s)\n", root, user)
	return exitOK
}

// projectRoot returns the nearest ancestor of dir holding .toolgate or
// .git, or "".
func projectRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		for _, m := range []string{".toolgate", ".git"} {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// userPolicyFile returns the user's policy file: the existing
// policy.{yaml,yml,toml,json} of the user config directory, else
// policy.yaml there.
func userPolicyFile(ucd string) (string, error) {
	for _, ext := range []string{".yaml", ".yml", ".toml", ".json"} {
		p := filepath.Join(ucd, "policy"+ext)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return filepath.Join(ucd, "policy.yaml"), nil
}

// trustingFiles loads the user and managed files (no project) and returns
// them.
func trustingFiles(e env) ([]*config.File, error) {
	set, err := config.Load(&config.Options{FS: host.FS(), Cwd: "/", Home: e.home, UserConfigDir: e.ucd})
	if set == nil {
		return nil, err
	}
	var out []*config.File
	for _, f := range set.Files {
		if f.Source == toolgate.SourceUser || f.Source == toolgate.SourceManaged {
			out = append(out, f)
		}
	}
	return out, err
}

// isTrusted reports whether root is trusted, and by which file.
func isTrusted(e env, root string) (bool, string) {
	files, _ := trustingFiles(e)
	for _, f := range files {
		for _, d := range f.TrustedProjects {
			if d == root || strings.HasPrefix(root, strings.TrimSuffix(d, "/")+"/") {
				return true, f.Path
			}
		}
	}
	return false, ""
}

func (c *cli) trustList(e env) int {
	files, err := trustingFiles(e)
	if err != nil {
		var ds toolgate.Diagnostics
		if errors.As(err, &ds) {
			printDiags(c.stderr, ds)
		} else {
			c.errorf("trust: %v", err)
		}
		return exitUsage
	}
	n := 0
	for _, f := range files {
		for _, d := range f.TrustedProjects {
			fmt.Fprintf(c.stdout, "%s\t(%s %s)\n", d, f.Source, f.Path)
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(c.stdout, "no trusted projects")
	}
	return exitOK
}

func (c *cli) trustRevoke(e env, root string) int {
	user, err := userPolicyFile(e.ucd)
	if err != nil {
		c.errorf("trust: %v", err)
		return exitFailure
	}
	if err := editTrusted(user, root, e.home, false); err != nil {
		c.errorf("trust: %v", err)
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "no longer trusted: %s (removed from %s)\n", root, user)
	if trusted, by := isTrusted(e, root); trusted {
		fmt.Fprintf(c.stdout, "note: %s is still trusted by %s\n", root, by)
	}
	return exitOK
}

// showLoosening prints what the project's files would add once trusted:
// their allow rules and every setting an untrusted file may not make.
func (c *cli) showLoosening(root, home string, claude bool) {
	w := c.stdout
	fmt.Fprintf(w, "Trusting %s lets its policy files loosen your policy.\n", root)
	var names []string
	for _, ext := range []string{".yaml", ".yml", ".toml", ".json"} {
		names = append(names, filepath.Join(root, ".toolgate", "policy"+ext), filepath.Join(root, ".toolgate", "policy.local"+ext))
	}
	if claude {
		names = append(names, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
	}
	found := false
	for _, p := range names {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		found = true
		src := config.SourceFor(p, home, "")
		f, diags := config.Parse(p, data, src, true)
		fmt.Fprintf(w, "\n%s (%s):\n", p, src)
		if diags.HasErrors() {
			fmt.Fprintf(w, "  it does not load:\n")
			for _, d := range diags {
				fmt.Fprintf(w, "    %s\n", d)
			}
			continue
		}
		n := 0
		line := func(format string, args ...any) {
			n++
			fmt.Fprintf(w, "  "+format+"\n", args...)
		}
		for _, l := range f.Layers {
			for _, r := range l.Allow {
				line("allow %s  (%s)", r.Text, r.Pos)
			}
			if l.Default != nil {
				line("default: %s", *l.Default)
			}
			if l.DefaultReadOnly != nil {
				line("default_read_only: %s", *l.DefaultReadOnly)
			}
			if l.Mode != nil {
				line("mode: %s", l.Mode)
			}
			if l.Enabled != nil && !*l.Enabled {
				line("enabled: false (rules and modes off)")
			}
			for _, d := range l.AdditionalDirectories {
				line("additional directory: %s", d)
			}
			for _, rw := range l.Rewrites {
				line("rewrite of %s  (%s)", rw.Match.Text, rw.Match.Pos)
			}
			if l.Source != src {
				line("a layer claiming source %s", l.Source)
			}
		}
		if n == 0 {
			fmt.Fprintf(w, "  nothing that loosens the policy\n")
		}
	}
	if !found {
		fmt.Fprintf(w, "It has no policy files yet; any it gets later will be honoured in full.\n")
	}
	fmt.Fprintln(w)
}

// editTrusted adds root to (add) or removes it from the trusted_projects
// list of the user's YAML policy file, creating the file when adding.
func editTrusted(file, root, home string, add bool) error {
	switch filepath.Ext(file) {
	case ".yaml", ".yml":
	default:
		verb := "add"
		if !add {
			verb = "remove"
		}
		return fmt.Errorf("%s is not YAML; %s %q in its trusted_projects by hand", file, verb, root)
	}
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err != nil && !add {
		return fmt.Errorf("%s is not trusted: %s does not exist", root, file)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %v", file, err)
		}
	}
	if len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "version"}, {Kind: yaml.ScalarNode, Value: "1", Tag: "!!int"},
		}}}}
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: the configuration is not a mapping", file)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "trusted_projects" {
			list = m.Content[i+1]
		}
	}
	expand := func(s string) string {
		if home != "" && (s == "~" || strings.HasPrefix(s, "~/")) {
			s = filepath.Join(home, s[1:])
		}
		return filepath.Clean(s)
	}
	if list != nil && list.Kind != yaml.SequenceNode {
		if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
			list.Kind, list.Tag, list.Value = yaml.SequenceNode, "", ""
		} else {
			return fmt.Errorf("%s:%d:%d: trusted_projects is not a list", file, list.Line, list.Column)
		}
	}
	if add {
		if list == nil {
			list = &yaml.Node{Kind: yaml.SequenceNode}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "trusted_projects"}, list)
		}
		for _, it := range list.Content {
			if expand(it.Value) == root {
				return nil
			}
		}
		list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: root})
	} else {
		removed := false
		if list != nil {
			kept := list.Content[:0]
			for _, it := range list.Content {
				if expand(it.Value) == root {
					removed = true
					continue
				}
				kept = append(kept, it)
			}
			list.Content = kept
		}
		if !removed {
			return fmt.Errorf("%s is not listed in trusted_projects of %s", root, file)
		}
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return writeFileAtomic(file, b.Bytes())
}

// writeFileAtomic writes data to a temporary file beside p and renames it
// over p, keeping p's permissions (0644 for a new file).
func writeFileAtomic(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(p); err == nil {
		perm = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".policy-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
