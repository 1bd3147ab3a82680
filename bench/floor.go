package bench

import (
	"encoding/json"
	"path"
	"strings"
)

// floorEngine is the naive matcher: the deny rules, then the allow rules,
// each a plain loop of string comparisons. No shell parsing (a command is
// one string), no path cleaning, no index. It is the floor: what any engine
// must at least pay to read the JSON and look at every rule.
type floorEngine struct {
	deny, allow []floorRule
}

type floorRule struct {
	Rule
	glob []string // Path rules: the absolute glob's segments
}

// NewFloor keeps the deny and allow rules in two slices; ask rules decide
// like the default and are dropped.
func NewFloor(p *Policy) (Engine, error) {
	f := &floorEngine{}
	for _, r := range p.Rules {
		fr := floorRule{Rule: r}
		if r.Kind == Path {
			fr.glob = strings.Split(r.AbsGlob(p.Cwd), "/")
		}
		switch r.Effect {
		case Deny:
			f.deny = append(f.deny, fr)
		case Allow:
			f.allow = append(f.allow, fr)
		}
	}
	return f, nil
}

// Decide decodes the payload and loops over the rules.
func (f *floorEngine) Decide(payload []byte) Effect {
	var c hostCall
	if err := json.Unmarshal(payload, &c); err != nil {
		return Deny
	}
	for i := range f.deny {
		if f.deny[i].matches(&c) {
			return Deny
		}
	}
	for i := range f.allow {
		if f.allow[i].matches(&c) {
			return Allow
		}
	}
	return Ask
}

func (r *floorRule) matches(c *hostCall) bool {
	switch r.Kind {
	case Shell:
		if c.ToolName != r.Tool {
			return false
		}
		cmd := c.ToolInput.Command
		if cmd == r.Pattern {
			return true
		}
		return r.Prefix && len(cmd) > len(r.Pattern) && cmd[len(r.Pattern)] == ' ' && strings.HasPrefix(cmd, r.Pattern)
	case Path:
		return r.Applies(c.ToolName) && globSegments(r.glob, c.ToolInput.FilePath)
	case ToolName:
		if name, ok := strings.CutSuffix(r.Tool, "*"); ok {
			return strings.HasPrefix(c.ToolName, name)
		}
		return c.ToolName == r.Tool
	}
	return false
}

// globSegments matches a slash-separated path against a glob's segments:
// ** matches any number of segments, other segments match one segment as
// path.Match does.
func globSegments(glob []string, p string) bool {
	if len(glob) == 0 {
		return p == ""
	}
	if glob[0] == "**" {
		if len(glob) == 1 {
			return true
		}
		for {
			if globSegments(glob[1:], p) {
				return true
			}
			i := strings.IndexByte(p, '/')
			if i < 0 {
				return false
			}
			p = p[i+1:]
		}
	}
	seg, rest, more := strings.Cut(p, "/")
	if ok, err := path.Match(glob[0], seg); err != nil || !ok {
		return false
	}
	if !more {
		return len(glob) == 1
	}
	return globSegments(glob[1:], rest)
}
