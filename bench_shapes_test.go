package toolgate_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/toolgate/toolgate"
)

// shapePolicy builds a policy of n rules in one of the shapes that defeat
// a first-word or literal-segment index: every shell rule under the same
// first word ("shared"), every path rule without a literal segment
// ("globs"), or both halves mixed ("mixed"). The calls below match none of
// the generated rules, so every rule an index fails to rule out is tried.
func shapePolicy(tb testing.TB, shape string, n int) *toolgate.Policy {
	tb.Helper()
	c, err := toolgate.Compile([]toolgate.Layer{shapeLayer(shape, n)}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// shapeLayer is the layer of shapePolicy's rules.
func shapeLayer(shape string, n int) toolgate.Layer {
	l := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.toolgate/policy.yaml", Root: "/p"}
	def, ro := toolgate.Ask, toolgate.Allow
	l.Default, l.DefaultReadOnly = &def, &ro
	add := func(list *[]toolgate.RuleSpec, text string) {
		*list = append(*list, toolgate.RuleSpec{Text: text, Pos: toolgate.Position{File: l.File, Line: len(*list) + 1, Column: 5}})
	}
	for i := range n {
		kind := shape
		if shape == "mixed" {
			kind = [2]string{"shared", "globs"}[i%2]
		}
		switch kind {
		case "shared":
			switch i % 4 {
			case 0:
				add(&l.Allow, fmt.Sprintf("Bash(git sub%05d:*)", i))
			case 1:
				add(&l.Deny, fmt.Sprintf("Bash(git sub%05d --force:*)", i))
			case 2:
				add(&l.Ask, fmt.Sprintf("Bash(npm run task%05d:*)", i))
			default:
				add(&l.Allow, fmt.Sprintf("Bash(npm run task%05d)", i))
			}
		case "urls":
			switch i % 4 {
			case 0:
				add(&l.Allow, fmt.Sprintf("WebFetch(https://h%05d.example.com/api/*)", i))
			case 1:
				add(&l.Deny, fmt.Sprintf("WebFetch(https://h%05d.example.com/admin/*)", i))
			case 2:
				add(&l.Ask, fmt.Sprintf("WebFetch(*://*.h%05d.example.org/*)", i))
			default:
				add(&l.Deny, fmt.Sprintf("WebFetch(https://h%05d.example.net:*/*)", i))
			}
		case "params":
			switch i % 4 {
			case 0:
				add(&l.Allow, fmt.Sprintf("mcp__db__query(sql:select * from t%05d*)", i))
			case 1:
				add(&l.Deny, fmt.Sprintf("mcp__db__query(sql:drop table t%05d*)", i))
			case 2:
				add(&l.Ask, fmt.Sprintf("mcp__db__query(sql:delete from t%05d)", i))
			default:
				add(&l.Deny, fmt.Sprintf("mcp__db__query(sql:update t%05d set*)", i))
			}
		case "globs":
			switch i % 4 {
			case 0:
				add(&l.Deny, fmt.Sprintf("Read(**/*.x%05d)", i))
			case 1:
				add(&l.Deny, fmt.Sprintf("Read(**/secret%05d*)", i))
			case 2:
				add(&l.Ask, fmt.Sprintf("Edit(**/*.y%05d)", i))
			default:
				add(&l.Allow, fmt.Sprintf("Read(**/gen%05d_*)", i))
			}
		}
	}
	add(&l.Allow, "Read(src/**)")
	add(&l.Allow, "Edit(./src/**)")
	add(&l.Allow, "Bash(git status)")
	add(&l.Allow, "Bash(git diff:*)")
	add(&l.Allow, "Bash(npm run test:*)")
	add(&l.Allow, "Bash(cargo build:*)")
	add(&l.Allow, "WebFetch(https://docs.example.com/*)")
	add(&l.Allow, "mcp__db__query(sql:select 1)")
	return l
}

// BenchmarkDecideShapes decides the same calls at 20, 10,000 and 100,000
// rules of each shape: the cost should not grow with the policy.
func BenchmarkDecideShapes(b *testing.B) {
	calls := []struct{ name, tool, input string }{
		{"BashSimple", "Bash", `{"command":"git status"}`},
		{"BashDiff", "Bash", `{"command":"git diff --stat HEAD~1"}`},
		{"BashCompound", "Bash", `{"command":"cargo build && npm run test | tee out.log"}`},
		{"Read", "Read", `{"file_path":"/p/src/main.go"}`},
		{"Edit", "Edit", `{"file_path":"/p/src/main.go","old_string":"a","new_string":"b"}`},
		{"WebFetch", "WebFetch", `{"url":"https://docs.example.com/guide"}`},
		{"MCPParam", "mcp__db__query", `{"sql":"select 1"}`},
	}
	for _, shape := range []string{"shared", "globs", "mixed", "urls", "params"} {
		for _, n := range []int{20, 10000, 100000} {
			cfg := shapePolicy(b, shape, n)
			for _, bc := range calls {
				call := toolgate.Call{Tool: bc.tool, Input: json.RawMessage(bc.input), Cwd: "/p", Home: "/home/u"}
				b.Run(fmt.Sprintf("%s/rules=%d/%s", shape, n, bc.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if d := cfg.Decide(call); d.Outcome == toolgate.Invalid {
							b.Fatal("invalid")
						}
					}
				})
			}
		}
	}
}

// TestShapePolicies checks that the benchmark policies decide what they
// should, so that the benchmark measures real decisions.
func TestShapePolicies(t *testing.T) {
	for _, n := range []int{20, 1000} {
		params := shapePolicy(t, "params", n)
		for _, tc := range []struct {
			input string
			want  toolgate.Outcome
		}{
			{`{"sql":"select 1"}`, toolgate.Allow},
			{`{"sql":"DROP TABLE t00001 cascade"}`, toolgate.Deny},
			{`{"sql":"update t00003 set x=1"}`, toolgate.Deny},
			{`{"sql":"delete from t00002"}`, toolgate.Ask},
			{`{"sql":"select * from t00000 where 1"}`, toolgate.Allow},
		} {
			d := params.Decide(toolgate.Call{Tool: "mcp__db__query", Input: json.RawMessage(tc.input), Cwd: "/p", Home: "/home/u"})
			if d.Outcome != tc.want {
				t.Errorf("params/%d: %s = %v (%v), want %v", n, tc.input, d.Outcome, d.Reasons, tc.want)
			}
		}
	}
	for _, shape := range []string{"shared", "globs", "mixed"} {
		cfg := shapePolicy(t, shape, 1000)
		for _, tc := range []struct {
			tool, input string
			want        toolgate.Outcome
		}{
			{"Bash", `{"command":"git status"}`, toolgate.Allow},
			{"Bash", `{"command":"git diff --stat HEAD~1"}`, toolgate.Allow},
			{"Read", `{"file_path":"/p/src/main.go"}`, toolgate.Allow},
		} {
			d := cfg.Decide(toolgate.Call{Tool: tc.tool, Input: json.RawMessage(tc.input), Cwd: "/p", Home: "/home/u"})
			if d.Outcome != tc.want {
				t.Errorf("%s: %s %s = %v, want %v", shape, tc.tool, tc.input, d.Outcome, tc.want)
			}
		}
	}
	shared := shapePolicy(t, "shared", 1000)
	for _, tc := range []struct {
		cmd  string
		want toolgate.Outcome
	}{
		{"git sub00001 --force", toolgate.Deny},
		{"git sub00001 --force x", toolgate.Deny},
		{"GIT SUB00001 --force", toolgate.Deny},
		{"git -C /p sub00001 --force", toolgate.Deny},
		{"/usr/bin/git sub00001 --force", toolgate.Deny},
		{"git $SUB --force", toolgate.Deny},
		{"git sub00000 x", toolgate.Allow},
		{"git Sub00000 x", toolgate.Ask},
		{"npm run task00002", toolgate.Ask},
		{"npm run task00003", toolgate.Allow},
		{"npm run task00003 x", toolgate.Ask},
	} {
		d := shared.Decide(toolgate.Call{Tool: "Bash", Input: json.RawMessage(`{"command":` + mustJSON(tc.cmd) + `}`), Cwd: "/p", Home: "/home/u"})
		if d.Outcome != tc.want {
			t.Errorf("shared: %q = %v (%v), want %v", tc.cmd, d.Outcome, d.Reasons, tc.want)
		}
	}
	urls := shapePolicy(t, "urls", 1000)
	for _, tc := range []struct {
		url  string
		want toolgate.Outcome
	}{
		{"https://docs.example.com/guide", toolgate.Allow},
		{"https://h00000.example.com/api/v1", toolgate.Allow},
		{"https://h00000.example.com/other", toolgate.Ask},
		{"https://h00001.example.com/admin/x", toolgate.Deny},
		{"HTTPS://H00001.EXAMPLE.COM./admin/x", toolgate.Deny},
		{"http://h00001.example.com/admin/x", toolgate.Deny},
		{"https://h00001.example.com:443/admin/x#f", toolgate.Deny},
		{"http://a.h00002.example.org/", toolgate.Ask},
		{"https://A.B.H00002.example.org./x", toolgate.Ask},
		{"https://h00003.example.net:8443/x", toolgate.Deny},
		{"https://h00005.example.com/admin/", toolgate.Deny},
	} {
		in, _ := json.Marshal(map[string]string{"url": tc.url})
		d := urls.Decide(toolgate.Call{Tool: "WebFetch", Input: in, Cwd: "/p", Home: "/home/u"})
		if d.Outcome != tc.want {
			t.Errorf("urls: %q = %v (%v), want %v", tc.url, d.Outcome, d.Reasons, tc.want)
		}
	}
	globs := shapePolicy(t, "globs", 1000)
	for _, tc := range []struct {
		tool, input string
		want        toolgate.Outcome
	}{
		{"Read", `{"file_path":"/p/a/b.x00000"}`, toolgate.Deny},
		{"Read", `{"file_path":"/p/a/B.X00000"}`, toolgate.Deny},
		{"Read", `{"file_path":"/p/SECRET00001.txt"}`, toolgate.Deny},
		{"Read", `{"file_path":"/p/a/gen00003_x"}`, toolgate.Allow},
		{"Read", `{"file_path":"/p/a/gen00003"}`, toolgate.Allow}, // read-only in the workspace
		{"Edit", `{"file_path":"/p/docs/c.y00002","old_string":"a","new_string":"b"}`, toolgate.Ask},
		{"Bash", `{"command":"cat docs/secret00005.md"}`, toolgate.Deny},
	} {
		d := globs.Decide(toolgate.Call{Tool: tc.tool, Input: json.RawMessage(tc.input), Cwd: "/p", Home: "/home/u"})
		if d.Outcome != tc.want {
			t.Errorf("globs: %s %s = %v (%v), want %v", tc.tool, tc.input, d.Outcome, d.Reasons, tc.want)
		}
	}
}

// BenchmarkCompileShapes compiles the benchmark policies at 10,000 and
// 100,000 rules and reports the live heap each rule costs.
func BenchmarkCompileShapes(b *testing.B) {
	for _, shape := range []string{"mixed"} {
		for _, n := range []int{10000, 100000} {
			b.Run(fmt.Sprintf("%s/rules=%d", shape, n), func(b *testing.B) {
				// Only the compile is timed, not building the layer.
				layers := []toolgate.Layer{shapeLayer(shape, n)}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := toolgate.Compile(layers, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				cfg := shapePolicy(b, shape, n)
				runtime.GC()
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(cfg)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "live-B/rule")
			})
		}
	}
}
