package gate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate"
)

// BenchmarkGateOverhead measures what the gate adds to a decision: an Allow
// from a fake policy, no auditing, a no-op tool. The decision itself costs
// nothing here, so the figure is the gate's own overhead.
func BenchmarkGateOverhead(b *testing.B) {
	reg, err := NewRegistry(Tool{Name: "Read", Func: func(context.Context, json.RawMessage, *CallContext) (Result, error) {
		return Result{}, nil
	}})
	if err != nil {
		b.Fatal(err)
	}
	d := toolgate.Decision{Outcome: toolgate.Allow, Reasons: []toolgate.Reason{{Kind: toolgate.KindRule}}}
	h := New(policyFunc(func(toolgate.Call) toolgate.Decision { return d }), reg, nil).Handler()
	call := &ToolCall{Tool: "Read", Input: json.RawMessage(`{"file_path":"/w/a.go"}`), Context: CallContext{Cwd: "/w"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Call(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolDirect is the baseline: the registry running the tool with
// no gate.
func BenchmarkToolDirect(b *testing.B) {
	reg, _ := NewRegistry(Tool{Name: "Read", Func: func(context.Context, json.RawMessage, *CallContext) (Result, error) {
		return Result{}, nil
	}})
	call := &ToolCall{Tool: "Read", Input: json.RawMessage(`{"file_path":"/w/a.go"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = reg.Call(ctx, call)
	}
}
