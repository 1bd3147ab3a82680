package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/host"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// policyFlags are the flags that say which policy to load and the defaults
// of a call. Check, explain, lint and test share them.
type policyFlags struct {
	configs stringList
	claude  bool
	mode    string
	cwd     string
	home    string
}

func (p *policyFlags) register(fs *flag.FlagSet) {
	fs.Var(&p.configs, "config", "read the policy from `[SOURCE=]FILE` (repeatable); without it the standard files are discovered")
	fs.BoolVar(&p.claude, "claude", false, "also read Claude Code settings files in discovery")
	fs.StringVar(&p.mode, "mode", "", "session `MODE` (default, acceptEdits, plan, dontAsk, bypassPermissions, strict, auto, or a plan object as JSON)")
	fs.StringVar(&p.cwd, "cwd", "", "working `DIR` of the calls (default: the current directory)")
	fs.StringVar(&p.home, "home", "", "home `DIR` for ~ (default: $HOME)")
}

// env is the resolved environment of the calls: where they run and which
// mode the command line selected.
type env struct {
	cwd, home, ucd string
	procCwd        string         // the process's own working directory
	mode           *toolgate.Mode // --mode, or nil
}

// resolveEnv turns the flags and the process environment into an env.
func (c *cli) resolveEnv(p *policyFlags) (env, error) {
	var e env
	wd, err := c.getwd()
	if err != nil {
		return e, fmt.Errorf("cannot find the working directory: %v", err)
	}
	e.procCwd = wd
	cwd := p.cwd
	if cwd == "" {
		cwd = wd
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(wd, cwd)
	}
	e.cwd = filepath.Clean(cwd)
	home := p.home
	if home == "" {
		home = c.getenv("HOME")
	}
	if home != "" {
		if !filepath.IsAbs(home) {
			home = filepath.Join(wd, home)
		}
		e.home = filepath.Clean(home)
	}
	e.ucd = config.UserConfigDir(c.getenv, e.home)
	if p.mode != "" {
		var m toolgate.Mode
		err := m.UnmarshalText([]byte(p.mode))
		if err != nil {
			return e, fmt.Errorf("--mode: %v", err)
		}
		e.mode = &m
	}
	return e, nil
}

// loadOptions are the config loader's options for the flags and env.
func loadOptions(p *policyFlags, e env) config.Options {
	// --config paths are relative to the process's directory, not --cwd.
	explicit := make([]string, len(p.configs))
	for i, arg := range p.configs {
		src, file, named := config.ParseConfigArg(arg)
		if file != "" && !filepath.IsAbs(file) {
			file = filepath.Join(e.procCwd, file)
		}
		if named {
			file = src.String() + "=" + file
		}
		explicit[i] = file
	}
	return config.Options{
		FS:            host.FS(),
		Cwd:           e.cwd,
		Home:          e.home,
		UserConfigDir: e.ucd,
		Explicit:      explicit,
		Claude:        p.claude,
		Builtin:       true,
		Engine:        host.EngineOptions(e.ucd),
	}
}

// loaded is a compiled policy and what it was built from.
type loaded struct {
	cfg *toolgate.Policy
	set *config.Set
	env env
}

// load resolves the environment and builds the policy, printing every
// diagnostic to standard error. On failure it returns the exit status.
// With examples false, the files' inline examples are not checked (the
// test command runs them itself).
func (c *cli) load(p *policyFlags, examples bool) (*loaded, int) {
	e, err := c.resolveEnv(p)
	if err != nil {
		c.errorf("%v", err)
		return nil, exitUsage
	}
	opts := loadOptions(p, e)
	var (
		cfg *toolgate.Policy
		set *config.Set
	)
	if examples {
		cfg, set, err = config.Build(&opts)
	} else {
		set, err = config.Load(&opts)
		if err == nil {
			cfg, err = toolgate.Compile(set.Layers, opts.Engine)
			var ds toolgate.Diagnostics
			if errors.As(err, &ds) {
				set.Diags = append(set.Diags, ds...)
				set.Diags.Sort()
			}
		}
	}
	if set != nil {
		printDiags(c.stderr, set.Diags)
	}
	if err != nil {
		var ds toolgate.Diagnostics
		if set == nil || !errors.As(err, &ds) {
			c.errorf("%v", err)
		}
		c.errorf("the configuration did not load")
		return nil, exitUsage
	}
	if e.mode != nil {
		if err := cfg.CheckMode(e.mode.Name); err != nil {
			c.errorf("--mode: %v", err)
			return nil, exitUsage
		}
	}
	return &loaded{cfg: cfg, set: set, env: e}, exitOK
}

// printDiags prints every diagnostic, one per line.
func printDiags(w io.Writer, ds toolgate.Diagnostics) {
	for _, d := range ds {
		fmt.Fprintln(w, d.String())
	}
}
