package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
)

// hook runs "toolgate hook": the command a coding agent runs before each
// tool call, and the installer of that command into the agent's settings.
func (c *cli) hook(args []string) int {
	return hookMain(args, c.stdin, c.stdout, c.stderr, c.hookBuild)
}

// hookBuild loads the policy for a hook call made in cwd: the --config
// files, or the standard files discovered from cwd, above the built-in
// default. Every diagnostic of a configuration that fails to load is in the
// error, which blocks the call.
//
// The hook also protects what it runs on (SPEC §7, "an agent must never
// switch its own gate off"): besides the built-in protected paths (which
// cover .claude, .gemini, .codex, .cursor, .toolgate and toolgate's user and
// managed config directories), writes to the toolgate binary this hook is
// running from, to every configuration file it loaded, to the agents'
// relocated homes ($CODEX_HOME, $CLAUDE_CONFIG_DIR, $GEMINI_CLI_HOME) and to
// their system-wide settings directories are protected paths too; and the
// agent may not run toolgate's own commands that change the gate
// ("toolgate hook install", "toolgate hook uninstall", "toolgate trust"),
// which write those files from inside a process the engine cannot see into
// (deny rules, by the name toolgate and by this binary's own name).
func (c *cli) hookBuild(cwd string, configs []string) (toolgate.Checker, error) {
	p := &policyFlags{configs: configs, cwd: cwd}
	e, err := c.resolveEnv(p)
	if err != nil {
		return nil, err
	}
	opts := loadOptions(p, e)
	set, err := config.Load(&opts)
	if err != nil {
		return nil, err
	}
	// The files' inline examples are checked as check and lint check them;
	// the error is the structured toolgate.Diagnostics.
	cfg, err := set.Compile(opts.Engine, toolgate.Layer{Source: toolgate.SourceCLI,
		ProtectedPaths: c.hookProtected(set), Deny: hookSelfDeny()})
	if err != nil {
		return nil, err // never a nil *Policy inside a non-nil Checker
	}
	return cfg, nil
}

// selfCommands are toolgate's subcommands that change what the gate does:
// installing or removing the hook, trusting a project, taking MCP servers
// out from behind the gateway (or pointing them at another program),
// re-approving changed MCP tool definitions and answering approvals.
var selfCommands = []string{"hook install", "hook uninstall", "trust", "mcp wrap", "mcp unwrap", "mcp lock", "approvals"}

// hookSelfDeny returns the deny rules for toolgate's gate-changing
// subcommands run through the agent's shell.
func hookSelfDeny() []toolgate.RuleSpec {
	names := []string{"toolgate"}
	if exe, err := os.Executable(); err == nil {
		if b := filepath.Base(exe); b != "toolgate" && !strings.ContainsAny(b, "()*?[]{}\\ \t:") {
			names = append(names, b)
		}
	}
	var rules []toolgate.RuleSpec
	for _, n := range names {
		for _, sub := range selfCommands {
			rules = append(rules, toolgate.RuleSpec{Text: "Bash(" + n + " " + sub + ":*)"})
		}
	}
	return rules
}

// agentSystemDirs are the agents' system-wide settings directories.
var agentSystemDirs = []string{"/etc/claude-code", "/etc/gemini-cli", "/etc/codex"}

// hookProtected lists the paths, as absolute path patterns, that the hook
// protects beyond the built-in list.
func (c *cli) hookProtected(set *config.Set) []toolgate.RuleSpec {
	var paths []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		paths = append(paths, p)
		if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
			paths = append(paths, r)
		}
	}
	if exe, err := os.Executable(); err == nil {
		add(exe)
	}
	if len(os.Args) > 0 {
		add(os.Args[0])
	}
	for _, f := range set.Files {
		add(f.Path)
	}
	for _, v := range []string{"CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME"} {
		add(c.getenv(v))
	}
	for _, d := range agentSystemDirs {
		add(d)
	}
	seen := make(map[string]bool, len(paths))
	var specs []toolgate.RuleSpec
	for _, p := range paths {
		if seen[p] || p == "/" {
			continue
		}
		seen[p] = true
		specs = append(specs, toolgate.RuleSpec{Text: "/" + escapeGlob(p)})
	}
	return specs
}

// escapeGlob escapes the characters a path pattern reads as glob syntax.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\!^`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
