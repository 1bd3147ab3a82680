package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/hook"
)

// hook runs "toolgate hook": the command a coding agent runs before each
// tool call, and the installer of that command into the agent's settings.
func (c *cli) hook(args []string) int {
	return hook.Main(args, c.stdin, c.stdout, c.stderr, c.hookBuild)
}

// hookBuild loads the policy for a hook call made in cwd: the --config
// files, or the standard files discovered from cwd, above the built-in
// default. Every diagnostic of a configuration that fails to load is in the
// error, which blocks the call.
func (c *cli) hookBuild(cwd string, configs []string) (toolgate.Checker, error) {
	p := &policyFlags{configs: configs, cwd: cwd}
	e, err := c.resolveEnv(p)
	if err != nil {
		return nil, err
	}
	opts := loadOptions(p, e)
	set, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	cfg, err := toolgate.Compile(set.Layers, opts.Engine)
	if err != nil {
		var ds toolgate.Diagnostics
		if errors.As(err, &ds) {
			var b strings.Builder
			for _, d := range ds {
				fmt.Fprintln(&b, d)
			}
			return nil, errors.New(strings.TrimRight(b.String(), "\n"))
		}
		return nil, err
	}
	return cfg, nil
}
