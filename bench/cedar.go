package bench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cedar-policy/cedar-go"
)

// cedarEngine is a cedar-go policy set. Each rule is one policy whose id
// starts with its list ("deny12", "allow3", "ask40"), so the reasons of a
// decision tell which lists matched.
type cedarEngine struct {
	ps *cedar.PolicySet
}

var (
	cedarPrincipal = cedar.NewEntityUID("Agent", "agent")
	cedarAction    = cedar.NewEntityUID("Action", "call")
)

// NewCedar translates the policy into Cedar text, one policy a rule, and
// parses it into a policy set. The request is principal Agent::"agent",
// action Action::"call", resource Tool::"<tool name>", and a context with
// the tool name, the command and the file path ("" when absent).
func NewCedar(p *Policy) (Engine, error) {
	var b strings.Builder
	ids := make([]cedar.PolicyID, 0, len(p.Rules))
	for i, r := range p.Rules {
		if err := writeCedar(&b, p, r); err != nil {
			return nil, err
		}
		ids = append(ids, cedar.PolicyID(fmt.Sprintf("%s%d", r.Effect, i)))
	}
	list, err := cedar.NewPolicyListFromBytes("policy.cedar", []byte(b.String()))
	if err != nil {
		return nil, err
	}
	if len(list) != len(ids) {
		return nil, fmt.Errorf("cedar: %d policies parsed from %d rules", len(list), len(ids))
	}
	ps := cedar.NewPolicySet()
	for i, pol := range list {
		ps.Add(ids[i], pol)
	}
	return &cedarEngine{ps: ps}, nil
}

// writeCedar writes one rule as a Cedar policy.
func writeCedar(b *strings.Builder, p *Policy, r Rule) error {
	effect := "permit"
	if r.Effect == Deny {
		effect = "forbid"
	}
	q := func(s string) (string, error) {
		if strings.ContainsAny(s, "\"\\*") {
			return "", fmt.Errorf("cedar: rule %s: pattern %q needs escapes", r.Text(), s)
		}
		return `"` + s + `"`, nil
	}
	switch r.Kind {
	case Shell:
		lit, err := q(r.Pattern)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "%s (principal, action, resource == Tool::%q) when { context.command == %s", effect, r.Tool, lit)
		if r.Prefix {
			// :* is the prefix and a word boundary.
			fmt.Fprintf(b, ` || context.command like "%s *"`, r.Pattern)
		}
		b.WriteString(" };\n")
	case Path:
		// like's * spans slashes, so ** and * both become *.
		glob := strings.ReplaceAll(r.AbsGlob(p.Cwd), "**", "*")
		if strings.ContainsAny(glob, "\"\\?[") {
			return fmt.Errorf("cedar: rule %s: glob %q cannot be written with like", r.Text(), glob)
		}
		if r.Applies("Edit") && r.Tool != "Edit" {
			fmt.Fprintf(b, "%s (principal, action, resource) when { (resource == Tool::%q || resource == Tool::\"Edit\") && context.path like %q };\n", effect, r.Tool, glob)
		} else {
			fmt.Fprintf(b, "%s (principal, action, resource == Tool::%q) when { context.path like %q };\n", effect, r.Tool, glob)
		}
	case ToolName:
		if name, ok := strings.CutSuffix(r.Tool, "*"); ok {
			lit, err := q(name)
			if err != nil {
				return err
			}
			fmt.Fprintf(b, "%s (principal, action, resource) when { context.tool like %s };\n", effect, lit[:len(lit)-1]+`*"`)
		} else {
			fmt.Fprintf(b, "%s (principal, action, resource == Tool::%q);\n", effect, r.Tool)
		}
	default:
		return fmt.Errorf("cedar: rule %s: unknown kind", r.Text())
	}
	return nil
}

// Decide decodes the payload into a request and authorizes it.
func (c *cedarEngine) Decide(payload []byte) Effect {
	var hc hostCall
	if err := json.Unmarshal(payload, &hc); err != nil {
		return Deny
	}
	req := cedar.Request{
		Principal: cedarPrincipal,
		Action:    cedarAction,
		Resource:  cedar.NewEntityUID("Tool", cedar.String(hc.ToolName)),
		Context: cedar.NewRecord(cedar.RecordMap{
			"tool":    cedar.String(hc.ToolName),
			"command": cedar.String(hc.ToolInput.Command),
			"path":    cedar.String(hc.ToolInput.FilePath),
		}),
	}
	dec, diag := cedar.Authorize(c.ps, nil, req)
	if len(diag.Errors) > 0 {
		return Deny
	}
	if dec == cedar.Deny {
		if len(diag.Reasons) > 0 {
			return Deny // a forbid matched
		}
		return Ask // nothing matched: the default
	}
	for _, r := range diag.Reasons {
		if strings.HasPrefix(string(r.PolicyID), "allow") {
			return Allow
		}
	}
	return Ask // only ask rules matched
}
