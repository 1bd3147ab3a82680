package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/open-policy-agent/opa/v1/rego"
)

// opaEngine is a Rego module prepared once; each call is one Eval.
type opaEngine struct {
	pq rego.PreparedEvalQuery
}

// opaPrelude decides by the deny-allow-ask order: data.toolgate.decision
// is "deny" when any deny rule body holds, else "allow" when any allow rule
// body holds, else "ask" (an ask rule's outcome is the default's, so the
// ask rules are compiled but need no evaluation).
const opaPrelude = `package toolgate

default decision := "ask"

default deny := false

default allow := false

decision := "deny" if deny
else := "allow" if allow

read_or_edit if input.tool_name == "Read"

read_or_edit if input.tool_name == "Edit"
`

// NewOPA translates the policy into one Rego rule body a rule (two for a
// :* prefix: the exact command, and startswith the prefix and a space) and
// prepares the query. The input is the whole hook payload.
func NewOPA(p *Policy) (Engine, error) {
	var b strings.Builder
	b.WriteString(opaPrelude)
	for _, r := range p.Rules {
		if err := writeRego(&b, p, r); err != nil {
			return nil, err
		}
	}
	pq, err := rego.New(
		rego.Query("data.toolgate.decision"),
		rego.Module("policy.rego", b.String()),
	).PrepareForEval(context.Background())
	if err != nil {
		return nil, fmt.Errorf("opa: %w", err)
	}
	return &opaEngine{pq: pq}, nil
}

// writeRego writes one rule as Rego rule bodies.
func writeRego(b *strings.Builder, p *Policy, r Rule) error {
	head := r.Effect.String()
	switch r.Kind {
	case Shell:
		fmt.Fprintf(b, "\n%s if {\n\tinput.tool_name == %q\n\tinput.tool_input.command == %q\n}\n", head, r.Tool, r.Pattern)
		if r.Prefix {
			fmt.Fprintf(b, "\n%s if {\n\tinput.tool_name == %q\n\tstartswith(input.tool_input.command, %q)\n}\n", head, r.Tool, r.Pattern+" ")
		}
	case Path:
		tool := fmt.Sprintf("input.tool_name == %q", r.Tool)
		if r.Applies("Edit") && r.Tool != "Edit" {
			tool = "read_or_edit"
		}
		fmt.Fprintf(b, "\n%s if {\n\t%s\n\tglob.match(%q, [\"/\"], input.tool_input.file_path)\n}\n", head, tool, r.AbsGlob(p.Cwd))
	case ToolName:
		if name, ok := strings.CutSuffix(r.Tool, "*"); ok {
			fmt.Fprintf(b, "\n%s if startswith(input.tool_name, %q)\n", head, name)
		} else {
			fmt.Fprintf(b, "\n%s if input.tool_name == %q\n", head, r.Tool)
		}
	default:
		return fmt.Errorf("opa: rule %s: unknown kind", r.Text())
	}
	return nil
}

// Decide decodes the payload and evaluates the prepared query on it.
func (o *opaEngine) Decide(payload []byte) Effect {
	var input any
	if err := json.Unmarshal(payload, &input); err != nil {
		return Deny
	}
	rs, err := o.pq.Eval(context.Background(), rego.EvalInput(input))
	if err != nil || len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return Deny
	}
	switch rs[0].Expressions[0].Value {
	case "allow":
		return Allow
	case "ask":
		return Ask
	}
	return Deny
}
