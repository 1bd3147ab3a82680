package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/toolgate/toolgate"
)

// Options say where configuration comes from. The zero value reads nothing
// and yields an empty Set.
type Options struct {
	// FS is the file system, rooted at "/": the file /a/b is opened as
	// "a/b". Nil means no file access.
	FS fs.FS
	// Cwd is the absolute working directory: discovery starts there and
	// relative --config paths resolve against it.
	Cwd string
	// Home is the home directory ("~"), for ~/.claude and trusted_projects.
	Home string
	// UserConfigDir is toolgate's user configuration directory; empty means
	// ~/.config/toolgate (see [UserConfigDir]).
	UserConfigDir string
	// Explicit lists --config arguments, "[SOURCE=]FILE" with FILE absolute
	// or relative to Cwd. When it is non-empty, discovery is skipped, and
	// every file must exist.
	Explicit []string
	// Claude reads Claude Code settings files in discovery (--claude).
	Claude bool
	// Builtin puts the built-in default policy beneath the files. Only with
	// discovery is it in force with its default_read_only: allow; under
	// Explicit files, which are a complete policy, default_read_only
	// follows default ([toolgate.BuiltinLayer]).
	Builtin bool
	// Engine are the options passed to toolgate.Compile by [Build]; nil means the defaults.
	Engine *toolgate.Options
}

// Set is a loaded configuration: its files and their layers.
type Set struct {
	// Files are the files read, in the order they were read.
	Files []*File
	// Layers are every file's layers in priority order, highest first
	// (files of equal priority in the order read, so the later one wins a
	// setting), and the built-in default last when Options.Builtin is set.
	// Nil when loading failed.
	Layers []toolgate.Layer
	// Diags holds every warning, and the errors if loading failed.
	Diags toolgate.Diagnostics

	opts Options // what Load read the set with, for Compile's examples
}

// Builtin returns the built-in default policy as discovery puts it beneath
// the files: one SourceBuiltin layer with default ask, default_read_only
// allow, precedence deny-allow-ask and mode default
// ([toolgate.BuiltinLayer]). The safety checks are always on; they need no
// setting.
func Builtin() []toolgate.Layer {
	return []toolgate.Layer{toolgate.BuiltinLayer(true)}
}

var policyExts = []string{".yaml", ".yml", ".toml", ".json"}

// loader carries the state of one Load.
type loader struct {
	opts  Options
	ucd   string
	set   *Set
	diags toolgate.Diagnostics
}

// Load reads the configuration files that opts name or that discovery
// finds (SPEC §6.1) and returns their layers. When any file fails to load,
// the error is a toolgate.Diagnostics holding every problem (the Set is
// still returned, for its diagnostics); warnings are in Set.Diags either way.
func Load(options *Options) (*Set, error) {
	var opts Options
	if options != nil {
		opts = *options
	}
	ld := &loader{opts: opts, set: &Set{opts: opts}, ucd: opts.UserConfigDir}
	if ld.ucd == "" {
		ld.ucd = UserConfigDir(nil, opts.Home)
	}
	if len(opts.Explicit) > 0 {
		ld.explicit()
	} else {
		ld.discover()
	}
	var layers []toolgate.Layer
	for _, f := range ld.set.Files {
		layers = append(layers, f.Layers...)
	}
	sort.SliceStable(layers, func(i, j int) bool { return layers[i].Source < layers[j].Source })
	if opts.Builtin {
		layers = append(layers, toolgate.BuiltinLayer(len(opts.Explicit) == 0))
	}
	ld.set.Layers = layers
	if ld.diags.HasErrors() {
		// Report the rules' own problems too, all at once: compile what
		// did load only for its diagnostics, and keep nothing of it.
		if _, err := toolgate.Compile(layers, opts.Engine); err != nil {
			var ds toolgate.Diagnostics
			if errors.As(err, &ds) {
				ld.diags = append(ld.diags, ds...)
			}
		}
	}
	ld.diags.Sort()
	ld.set.Diags = ld.diags
	if ld.diags.HasErrors() {
		// Fail closed: no caller can build on a partial configuration.
		ld.set.Layers = nil
		return ld.set, ld.diags
	}
	return ld.set, nil
}

func (ld *loader) explicit() {
	for _, arg := range ld.opts.Explicit {
		src, p, explicit := ParseConfigArg(arg)
		if p == "" {
			ld.diags.Errorf(toolgate.Position{}, "io", "--config %q names no file", arg)
			continue
		}
		if !path.IsAbs(p) {
			if ld.opts.Cwd == "" {
				ld.diags.Errorf(toolgate.Position{File: p}, "io", "relative --config path %q needs a working directory", p)
				continue
			}
			p = path.Join(ld.opts.Cwd, p)
		}
		p = path.Clean(p)
		if !explicit {
			src = SourceFor(p, ld.opts.Home, ld.ucd)
		}
		data, err := ld.read(p)
		if err != nil {
			ld.diags.Errorf(toolgate.Position{File: p}, "io", "cannot read configuration file: %v", err)
			continue
		}
		ld.parse(p, data, parseOptions{src: src, trusted: true, home: ld.opts.Home})
	}
}

func (ld *loader) parse(p string, data []byte, o parseOptions) *File {
	f, d := parse(p, data, o)
	ld.diags = append(ld.diags, d...)
	ld.set.Files = append(ld.set.Files, f)
	return f
}

// maybe reads a discovered file if it exists.
func (ld *loader) maybe(p string, o parseOptions) *File {
	data, err := ld.read(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		ld.diags.Errorf(toolgate.Position{File: p}, "io", "cannot read configuration file: %v", err)
		return nil
	}
	return ld.parse(p, data, o)
}

func (ld *loader) discover() {
	home := ld.opts.Home
	for _, ext := range policyExts {
		ld.maybe(path.Join(ManagedDir, "policy"+ext), parseOptions{src: toolgate.SourceManaged, trusted: true, home: home})
	}
	if ld.ucd != "" {
		for _, ext := range policyExts {
			ld.maybe(path.Join(ld.ucd, "policy"+ext), parseOptions{src: toolgate.SourceUser, trusted: true, home: home})
		}
	}
	claude := ld.opts.Claude
	var trusted []string
	for _, f := range ld.set.Files {
		claude = claude || f.IncludeClaudeSettings
		trusted = append(trusted, f.TrustedProjects...)
	}
	if claude && home != "" {
		ld.maybe(path.Join(home, ".claude", "settings.json"), parseOptions{src: toolgate.SourceUser, trusted: true, home: home, claudeName: true})
	}
	root := ld.findRoot()
	if root == "" {
		return
	}
	ok := false
	for _, d := range trusted {
		if path.IsAbs(d) && within(root, d) {
			ok = true
			break
		}
	}
	type cand struct {
		p      string
		src    toolgate.Source
		claude bool
	}
	var cands []cand
	for _, ext := range policyExts {
		cands = append(cands, cand{path.Join(root, ".toolgate", "policy"+ext), toolgate.SourceProject, false})
	}
	if claude {
		cands = append(cands, cand{path.Join(root, ".claude", "settings.json"), toolgate.SourceProject, true})
	}
	for _, ext := range policyExts {
		cands = append(cands, cand{path.Join(root, ".toolgate", "policy.local"+ext), toolgate.SourceLocal, false})
	}
	if claude {
		cands = append(cands, cand{path.Join(root, ".claude", "settings.local.json"), toolgate.SourceLocal, true})
	}
	for _, c := range cands {
		ld.maybe(c.p, parseOptions{src: c.src, trusted: ok, home: home, claudeName: c.claude, beneath: ld.beneath(c.src)})
	}
}

// beneath returns the settings in force below source src: those of the
// files read so far with a lower priority, over the built-in default, read
// as the engine reads them (toolgate.ResolveSettings) — so that a file
// setting default: deny without default_read_only counts as
// default_read_only: deny beneath, as it is in force.
func (ld *loader) beneath(src toolgate.Source) scalars {
	var layers []toolgate.Layer
	if ld.opts.Builtin {
		layers = Builtin()
	}
	for _, f := range ld.set.Files {
		for _, l := range f.Layers {
			if l.Source > src {
				layers = append(layers, l)
			}
		}
	}
	st := toolgate.ResolveSettings(layers)
	return scalars{def: st.Default, defRO: st.DefaultReadOnly, prec: st.Precedence}
}

// findRoot returns the nearest ancestor of the working directory holding
// .toolgate or .git, or "".
func (ld *loader) findRoot() string {
	if ld.opts.FS == nil || !path.IsAbs(ld.opts.Cwd) {
		return ""
	}
	for d := path.Clean(ld.opts.Cwd); ; d = path.Dir(d) {
		for _, m := range []string{".toolgate", ".git"} {
			if _, err := fs.Stat(ld.opts.FS, fsName(path.Join(d, m))); err == nil {
				return d
			}
		}
		if d == "/" {
			return ""
		}
	}
}

// fsName turns an absolute path into a name for an fs.FS rooted at "/".
func fsName(p string) string {
	p = strings.TrimPrefix(path.Clean(p), "/")
	if p == "" {
		return "."
	}
	return p
}

// read reads a file through the FS, enforcing MaxFileSize.
func (ld *loader) read(p string) ([]byte, error) {
	if ld.opts.FS == nil {
		return nil, fmt.Errorf("no file system: %w", fs.ErrNotExist)
	}
	f, err := ld.opts.FS.Open(fsName(p))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", p)
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("file is %d bytes; the limit is %d", st.Size(), MaxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file is larger than the limit of %d bytes", MaxFileSize)
	}
	return data, nil
}

// Build loads the configuration, compiles it and checks every file's
// examples against the compiled configuration: Load, then [Set.Compile].
// It is the way from files to a Policy. On any error, the Policy is nil and
// the error is a toolgate.Diagnostics holding every problem; the Set
// carries the warnings.
func Build(opts *Options) (*toolgate.Policy, *Set, error) {
	set, err := Load(opts)
	if err != nil {
		return nil, set, err
	}
	cfg, err := set.Compile(set.opts.Engine)
	return cfg, set, err
}

// Compile compiles the set's layers, with extra layers of the caller's own
// (a host's protections, say), and checks every file's inline examples
// against the result. A failing example is an error at its position (a
// warning for an untrusted file, whose allow rules may have been ignored).
// On any error, the Policy is nil and the error is a toolgate.Diagnostics
// holding every problem; warnings are added to s.Diags either way.
func (s *Set) Compile(opts *toolgate.Options, extra ...toolgate.Layer) (*toolgate.Policy, error) {
	if s.Layers == nil {
		if s.Diags.HasErrors() {
			return nil, s.Diags
		}
		var ds toolgate.Diagnostics
		ds.Errorf(toolgate.Position{}, "compile", "the configuration did not load")
		return nil, ds
	}
	layers := s.Layers
	if len(extra) > 0 {
		layers = append(append([]toolgate.Layer(nil), s.Layers...), extra...)
	}
	cfg, err := toolgate.Compile(layers, opts)
	if err != nil {
		var ds toolgate.Diagnostics
		if errors.As(err, &ds) {
			s.Diags = append(s.Diags, ds...)
		} else {
			s.Diags.Errorf(toolgate.Position{}, "compile", "%v", err)
		}
		s.Diags.Sort()
		if !s.Diags.HasErrors() {
			s.Diags.Errorf(toolgate.Position{}, "compile", "compiling the configuration failed")
		}
		return nil, s.Diags
	}
	for _, f := range s.Files {
		for _, ex := range f.Examples {
			checkExample(cfg, f, ex, s.opts, &s.Diags)
		}
	}
	s.Diags.Sort()
	if s.Diags.HasErrors() {
		return nil, s.Diags
	}
	return cfg, nil
}

// Mismatch says how a decision fails an expectation: the outcome expect
// (or, with not, anything but expect) and, when rule is set, that rule
// deciding. It returns "" when the decision meets it. Examples in files and
// policy test cases are both judged with it.
func Mismatch(d toolgate.Decision, expect toolgate.Outcome, not bool, rule string) string {
	got := d.Outcome.Effective()
	if expect == toolgate.Allow && got == toolgate.Modify {
		// A modify runs the tool, with its input rewritten: "allow" asks
		// whether the call runs (SPEC §9's own example expects allow for a
		// call its rewrite changes); "modify" checks that the rewrite applies.
		got = toolgate.Allow
	}
	switch {
	case not && got == expect:
		return fmt.Sprintf("want anything but %s, got %s", expect, got)
	case !not && got != expect:
		return fmt.Sprintf("want %s, got %s", expect, got)
	case rule != "" && d.Reason().Rule != rule:
		if r := d.Reason().Rule; r != "" {
			return fmt.Sprintf("want rule %s to decide, got rule %s", rule, r)
		}
		return fmt.Sprintf("want rule %s to decide, got reason %s", rule, d.Reason().Kind)
	}
	return ""
}

func checkExample(cfg *toolgate.Policy, f *File, ex Example, opts Options, diags *toolgate.Diagnostics) {
	call := ex.Call
	if call.Home == "" {
		call.Home = opts.Home
	}
	d := cfg.Decide(call)
	problem := Mismatch(d, ex.Expect, ex.ExpectNot, ex.Rule)
	if problem == "" {
		return
	}
	msg := fmt.Sprintf("example %s %s: %s", call.Tool, compactInput(call.Input), problem)
	if r := d.Reason(); r.Kind != "" {
		msg += " (" + r.String() + ")"
	}
	if f.Trusted {
		diags.Errorf(ex.Pos, "example", "%s", msg)
	} else {
		diags.Warnf(ex.Pos, "example", "%s", msg)
	}
}

func compactInput(b []byte) string {
	s := string(b)
	if s == "" {
		s = "{}"
	}
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}
