package toolgate

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// paramPolicy compiles many parameter rules on two tools: a generic tool
// and an MCP server's literal tool, of every shape the index handles and
// some it leaves to the linear pass.
func paramPolicy(tb testing.TB, extra ...string) *Policy {
	tb.Helper()
	var deny, ask, allow []string
	for i := range 60 {
		deny = append(deny, fmt.Sprintf("mcp__db__query(sql:drop table t%d*)", i))
		ask = append(ask, fmt.Sprintf("mcp__db__query(sql:delete from t%d)", i))
		allow = append(allow, fmt.Sprintf("mcp__db__query(sql:select * from t%d*)", i), fmt.Sprintf("Notify(channel:team-%d)", i))
		deny = append(deny, fmt.Sprintf("Notify(channel:*secret%d*)", i), fmt.Sprintf("Notify(to.addr:root%d@*)", i))
	}
	deny = append(deny, "mcp__db__query(sql:*;*)", "Notify(channel:x)", "Notify(*hush*)", "mcp__db__query(*truncate*)")
	allow = append(allow, "Notify(channel:ops)", "mcp__db__query(sql:SELECT 1)")
	allow = append(allow, extra...)
	l := Layer{Source: SourceProject, File: "p.yaml", Deny: specs(deny...), Ask: specs(ask...), Allow: specs(allow...)}
	c, err := Compile([]Layer{l}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// withoutParamIndex returns a copy of the decisions' index without the parameter
// indexes: every rule of a tool name is tried, as below paramIndexMin.
func withoutParamIndex(c *Policy) *Policy {
	cp := *c
	strip := func(ix *index) *index {
		n := *ix
		n.byName = map[string]*toolRules{}
		for k, tr := range ix.byName {
			n.byName[k] = &toolRules{all: tr.all}
		}
		n.byServerTool = map[serverTool]*toolRules{}
		for k, tr := range ix.byServerTool {
			n.byServerTool[k] = &toolRules{all: tr.all}
		}
		return &n
	}
	rs := *c.static
	rs.allow, rs.deny, rs.ask = strip(rs.allow), strip(rs.deny), strip(rs.ask)
	cp.static = &rs
	return &cp
}

// TestParamIndex checks, through the engine, that indexed parameter rules
// decide exactly as the linear pass does, for every form a value takes.
func TestParamIndex(t *testing.T) {
	c := paramPolicy(t)
	if tr := c.static.deny.byName["notify"]; tr == nil || tr.params == nil {
		t.Fatal("the Notify deny rules are not indexed")
	}
	if tr := c.static.allow.byServerTool[serverTool{"db", "query"}]; tr == nil || tr.params == nil {
		t.Fatal("the mcp__db__query allow rules are not indexed by server and tool")
	}
	lin := withoutParamIndex(c)
	for _, tc := range []struct {
		tool, input string
		want        Outcome
	}{
		{"mcp__db__query", `{"sql":"select * from t7 where x"}`, Allow},
		{"mcp__db__query", `{"sql":"SELECT * FROM T7"}`, Ask},
		{"mcp__db__query", `{"sql":"DROP TABLE T12 cascade"}`, Deny},
		{"mcp__db__query", `{"sql":["select * from t1","drop table t3"]}`, Deny},
		{"mcp__db__query", `{"sql":["select * from t1","select * from t1 limit 2"]}`, Allow},
		{"mcp__db__query", `{"sql":["select * from t1","select * from t2"]}`, Ask}, // allow needs one rule for every element
		{"mcp__db__query", `{"sql":{"q":"drop table t5"}}`, Deny},
		{"mcp__db__query", `{"sql":"delete from t4"}`, Ask},
		{"mcp__db__query", `{"sql":"Delete From T4"}`, Ask},
		{"mcp__db__query", `{"sql":"select * from t1; drop"}`, Deny},
		{"mcp__db__query", `{"sql":"SELECT 1"}`, Allow},
		{"mcp__db__query", `{"sql":"select 1"}`, Ask},
		{"mcp__db__query", `{"sql":"x","note":"truncate"}`, Deny}, // any string, for deny
		{"mcp__DB__Query", `{"sql":"drop table t1"}`, Deny},
		{"Notify", `{"channel":"team-3","message":"hush now"}`, Deny},
		{"Notify", `{"channel":"team-3"}`, Allow},
		{"Notify", `{"channel":"TEAM-3"}`, Ask},
		{"Notify", `{"channel":"a-SECRET9-b"}`, Deny},
		{"Notify", `{"channel":"ops","to":{"addr":"ROOT5@example.com"}}`, Deny},
		{"Notify", `{"channel":"ops","to":{"addr":"me@example.com"}}`, Allow},
		{"Notify", `{"channel":"X"}`, Deny},
		{"Notify", `{"channel":7}`, Ask},
		{"NOTIFY", `{"channel":"x"}`, Deny},
	} {
		call := Call{Tool: tc.tool, Input: json.RawMessage(tc.input), Cwd: "/p", Home: "/h"}
		d, want := c.Decide(call), lin.Decide(call)
		if d.Outcome != tc.want {
			t.Errorf("%s %s = %v (%v), want %v", tc.tool, tc.input, d.Outcome, d.Reasons, tc.want)
		}
		if d.Outcome != want.Outcome || !slices.Equal(d.Reasons, want.Reasons) {
			t.Errorf("%s %s: indexed %v, linear %v", tc.tool, tc.input, d, want)
		}
	}
}

// FuzzParamIndex checks that the parameter index never changes a decision:
// any input, against the same policy with and without the index.
func FuzzParamIndex(f *testing.F) {
	for _, s := range []string{
		`{"sql":"drop table t1"}`, `{"sql":["select * from t1",7,null]}`, `{"channel":"team-1","message":"m"}`,
		`{"to":{"addr":"root3@x"}}`, `{"sql":{"a":["drop table t9"]}}`, `{"sql":"SELECT 1"}`,
	} {
		f.Add("mcp__db__query", s)
		f.Add("Notify", s)
	}
	c := paramPolicy(f)
	lin := withoutParamIndex(c)
	f.Fuzz(func(t *testing.T, tool, input string) {
		call := Call{Tool: tool, Input: json.RawMessage(input), Cwd: "/p", Home: "/h"}
		d, want := c.Decide(call), lin.Decide(call)
		if d.Outcome != want.Outcome || !slices.Equal(d.Reasons, want.Reasons) {
			t.Errorf("%s %s: indexed %v, linear %v", tool, input, d, want)
		}
	})
}
