package bench

import (
	"fmt"
	"strings"
)

// Effect is the list a rule is in.
type Effect uint8

// The lists, in the order of precedence every engine applies (toolgate's
// default deny-allow-ask): a matching deny wins, then an allow, then ask.
const (
	Deny Effect = iota + 1
	Allow
	Ask
)

// String returns the list's name.
func (e Effect) String() string {
	switch e {
	case Deny:
		return "deny"
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	}
	return fmt.Sprintf("Effect(%d)", e)
}

// Kind says what a rule matches.
type Kind uint8

// The kinds of rule the workloads hold.
const (
	// Shell rules match a Bash command: Pattern is the command's words,
	// exactly or, with Prefix, as a prefix ending at a word boundary.
	Shell Kind = iota + 1
	// Path rules match the file path of a Read or Edit call: Pattern is a
	// glob relative to the working directory ("src/**", "**/*.x00042"),
	// where ** spans directories and * stays inside one segment.
	Path
	// ToolName rules match an MCP tool's name: Tool is the name or a glob
	// whose only metacharacter is a trailing *.
	ToolName
)

// Rule is one engine-neutral rule. Each engine translates it.
type Rule struct {
	Effect  Effect
	Kind    Kind
	Tool    string // "Bash", "Read", "Edit", or an MCP name or glob
	Pattern string // Shell and Path rules: see Kind
	Prefix  bool   // Shell rules: a trailing :* (prefix and word boundary)
}

// Text is the rule as toolgate writes it.
func (r Rule) Text() string {
	switch r.Kind {
	case Shell:
		if r.Prefix {
			return r.Tool + "(" + r.Pattern + ":*)"
		}
		return r.Tool + "(" + r.Pattern + ")"
	case Path:
		p := r.Pattern
		if !strings.HasPrefix(p, "**/") {
			p = "./" + p // anchored at the working directory in every list
		}
		return r.Tool + "(" + p + ")"
	}
	return r.Tool
}

// AbsGlob is a Path rule's pattern anchored at the working directory.
func (r Rule) AbsGlob(cwd string) string {
	return cwd + "/" + r.Pattern
}

// Applies reports whether a Path rule faces a call of the tool: a Read deny
// rule also blocks edits of the paths it names (toolgate's docs/rules.md),
// every other Path rule faces its own tool only.
func (r Rule) Applies(tool string) bool {
	if r.Tool == tool {
		return true
	}
	return r.Kind == Path && r.Effect == Deny && r.Tool == "Read" && tool == "Edit"
}

// Policy is a generated set of rules with the working directory the calls
// run in.
type Policy struct {
	Shape Shape
	Cwd   string
	Rules []Rule
}

// Shape names a mix of rule shapes.
type Shape string

// The shapes of generated policies.
const (
	// Mixed is most like a real large policy: Bash rules mostly with unique
	// first words, path rules mostly with a literal segment, many MCP rules
	// — and a few of the shapes that hurt indexes (shared first words, 2 %
	// path patterns without any literal segment).
	Mixed Shape = "mixed"
	// Adversarial is made of the shapes that defeat simple indexes: every
	// Bash rule shares its first word (git, npm), every generated path rule
	// has no literal segment (**/*.x00042, **/secret7*).
	Adversarial Shape = "adversarial"
)

// Cwd is the working directory of every call and the anchor of path rules.
const Cwd = "/p"

// baseRules are in every policy, so every call decides the same way at
// every size: the benchmark calls are all allowed by one of these, and the
// generated rules around them never match a benchmark call.
var baseRules = []Rule{
	{Allow, Shell, "Bash", "git diff", true},
	{Allow, Shell, "Bash", "git status", false},
	{Allow, Shell, "Bash", "npm run test", true},
	{Allow, Shell, "Bash", "cargo build", true},
	{Allow, Shell, "Bash", "cat", true},
	{Allow, Path, "Read", "src/**", false},
	{Allow, Path, "Edit", "src/**", false},
	{Allow, ToolName, "mcp__github__get_*", "", false},
	{Deny, Shell, "Bash", "curl", true},
	{Deny, Shell, "Bash", "git push --force", true},
	{Deny, Path, "Read", "secrets/**", false},
	{Ask, ToolName, "mcp__github__create_*", "", false},
}

// Generate returns a policy of n rules (at least the base rules) of the
// given shape. It is deterministic: the same shape and n give the same
// rules in the same order.
func Generate(shape Shape, n int) *Policy {
	p := &Policy{Shape: shape, Cwd: Cwd}
	p.Rules = append(p.Rules, baseRules...)
	for i := 0; len(p.Rules) < n; i++ {
		// 37 is prime to 100: consecutive rules walk through all 100 slots,
		// so a small policy already holds every shape.
		p.Rules = append(p.Rules, generated(shape, i, (i*37)%100))
	}
	return p
}

// generated is the i-th generated rule, of the shape slot s (0–99) picks.
func generated(shape Shape, i, s int) Rule {
	bash := func(e Effect, format string) Rule {
		return Rule{Effect: e, Kind: Shell, Tool: "Bash", Pattern: fmt.Sprintf(format, i), Prefix: true}
	}
	path := func(e Effect, tool, format string) Rule {
		return Rule{Effect: e, Kind: Path, Tool: tool, Pattern: fmt.Sprintf(format, i)}
	}
	mcp := func(e Effect, format string) Rule {
		return Rule{Effect: e, Kind: ToolName, Tool: fmt.Sprintf(format, i)}
	}
	if shape == Adversarial {
		switch {
		case s < 25:
			return bash(Allow, "git log --author=dev%d")
		case s < 35:
			return bash(Deny, "git push origin rel%d")
		case s < 40:
			return bash(Allow, "npm run job%d")
		case s < 60:
			return path(Deny, "Read", "**/*.x%05d")
		case s < 70:
			return path(Deny, "Read", "**/secret%d*")
		case s < 80:
			return path(Deny, "Edit", "**/*.lock%d")
		case s < 90:
			return mcp(Allow, "mcp__srv%d__get_*")
		case s < 96:
			return mcp(Deny, "mcp__srv%d__delete_*")
		default:
			return mcp(Ask, "mcp__srv%d__put")
		}
	}
	switch {
	case s < 24:
		return bash(Allow, "tool%d run")
	case s < 30:
		return bash(Deny, "danger%d")
	case s < 38:
		return bash(Allow, "git log --grep=fix%d")
	case s < 42:
		return bash(Deny, "git push origin rel%d")
	case s < 45:
		return bash(Allow, "npm run job%d")
	case s < 50:
		return path(Deny, "Read", "data%d/**")
	case s < 55:
		return path(Allow, "Edit", "out%d/**")
	case s < 56:
		return path(Deny, "Read", "**/*.x%05d")
	case s < 57:
		return path(Deny, "Read", "**/secret%d*")
	case s < 81:
		return mcp(Allow, "mcp__srv%d__get_*")
	case s < 93:
		return mcp(Deny, "mcp__srv%d__delete_*")
	default:
		return mcp(Ask, "mcp__srv%d__put")
	}
}

// Sizes are the policy sizes measured.
var Sizes = []int{20, 1000, 10000, 100000}

// Shapes are the policy shapes measured.
var Shapes = []Shape{Mixed, Adversarial}
