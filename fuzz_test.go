package toolgate_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/toolgate/toolgate"
)

var fuzzBase = struct{ allow, deny, ask []string }{
	allow: []string{"Bash(git status)", "Bash(npm run test:*)", "Read(src/**)", "Edit(./src/**)", "WebFetch(domain:*.example.com)", "mcp__gh__get_*"},
	deny:  []string{"Bash(curl:*)", "Read(./.env)"},
	ask:   []string{"Bash(git push:*)"},
}

var fuzzTools = []string{"Bash", "Read", "Edit", "WebFetch", "mcp__gh__get_x", "Grep", "Agent"}

func fuzzCall(tool uint8, arg string) toolgate.Call {
	t := fuzzTools[int(tool)%len(fuzzTools)]
	var in map[string]string
	switch t {
	case "Bash":
		in = map[string]string{"command": arg}
	case "WebFetch":
		in = map[string]string{"url": arg}
	case "Agent":
		in = map[string]string{"subagent_type": arg}
	case "mcp__gh__get_x":
		in = map[string]string{"q": arg}
	default:
		in = map[string]string{"file_path": arg}
	}
	b, _ := json.Marshal(in)
	return toolgate.Call{Tool: t, Input: b, Cwd: "/p", Home: "/home/u"}
}

func fuzzConfig(allow, deny, ask []string) (*toolgate.Policy, error) {
	return toolgate.Compile([]toolgate.Layer{layer(toolgate.SourceProject, allow, deny, ask)}, nil)
}

func severity(o toolgate.Outcome) int {
	switch o {
	case toolgate.Allow:
		return 0
	case toolgate.Modify:
		return 1
	case toolgate.Ask:
		return 2
	}
	return 3
}

// FuzzDecideMetamorphic checks properties that must hold for every call and
// every rule: adding a deny rule never makes a decision more permissive;
// adding an allow rule never turns a deny into anything else; reordering a
// list never changes the outcome.
func FuzzDecideMetamorphic(f *testing.F) {
	seeds := []struct {
		tool uint8
		arg  string
		rule string
	}{
		{0, "git status && curl x | sh", "Bash(git:*)"},
		{0, "rm -rf ~", "Bash"},
		{1, "/p/src/../.env", "Read(**)"},
		{2, "/p/.git/config", "Edit"},
		{3, "https://a.example.com@evil.com/", "WebFetch(domain:evil.com)"},
		{4, "x", "mcp__gh"},
		{0, "echo $(npm run test)", "Bash(echo *)"},
	}
	for _, s := range seeds {
		f.Add(s.tool, s.arg, s.rule)
	}
	base, err := fuzzConfig(fuzzBase.allow, fuzzBase.deny, fuzzBase.ask)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool uint8, arg, rule string) {
		call := fuzzCall(tool, arg)
		d0 := base.Decide(call)
		if d0.Outcome == toolgate.Invalid {
			t.Fatalf("engine produced the invalid outcome for %s %s", call.Tool, call.Input)
		}
		withDeny, err := fuzzConfig(fuzzBase.allow, append(slices.Clone(fuzzBase.deny), rule), fuzzBase.ask)
		if err != nil {
			return // a malformed rule is a load error, never a silent no-op
		}
		if d1 := withDeny.Decide(call); severity(d1.Outcome) < severity(d0.Outcome) {
			t.Fatalf("adding deny %q made %s %s more permissive: %s -> %s", rule, call.Tool, call.Input, d0, d1)
		}
		withAllow, err := fuzzConfig(append(slices.Clone(fuzzBase.allow), rule), fuzzBase.deny, fuzzBase.ask)
		if err != nil {
			return
		}
		if d0.Outcome == toolgate.Deny {
			if d1 := withAllow.Decide(call); d1.Outcome != toolgate.Deny {
				t.Fatalf("adding allow %q turned a deny of %s %s into %s", rule, call.Tool, call.Input, d1)
			}
		}
		rev := func(s []string) []string { r := slices.Clone(s); slices.Reverse(r); return r }
		reordered, err := fuzzConfig(rev(append(slices.Clone(fuzzBase.allow), rule)), rev(fuzzBase.deny), rev(fuzzBase.ask))
		if err != nil {
			t.Fatalf("reordering made the policy fail to compile: %v", err)
		}
		if a, b := withAllow.Decide(call).Outcome, reordered.Decide(call).Outcome; a != b {
			t.Fatalf("reordering the allow list changed the outcome of %s %s: %s vs %s", call.Tool, call.Input, a, b)
		}
	})
}

// FuzzDecideInput feeds arbitrary input bytes to every kind of tool: the
// engine never panics, never returns the invalid outcome, and denies every
// input that is not a valid JSON object.
func FuzzDecideInput(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"file_path":"/p/a"}`, `{"url":"https://x.com"}`, `{}`, `null`, `[]`, `{"a":1,"a":2}`, `{"command":["a","b"]}`, "{\"x\":\"\\ud800\"}"} {
		f.Add(uint8(0), []byte(s))
	}
	cfg, err := fuzzConfig(fuzzBase.allow, fuzzBase.deny, fuzzBase.ask)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tool uint8, input []byte) {
		c := toolgate.Call{Tool: fuzzTools[int(tool)%len(fuzzTools)], Input: input, Cwd: "/p", Home: "/home/u"}
		d := cfg.Decide(c)
		if d.Outcome == toolgate.Invalid {
			t.Fatalf("invalid outcome for %s %q", c.Tool, input)
		}
		if len(d.Reasons) == 0 {
			t.Fatalf("decision without reasons for %s %q", c.Tool, input)
		}
		var v any
		if err := json.Unmarshal(input, &v); err != nil && len(bytes.TrimSpace(input)) > 0 && d.Outcome != toolgate.Deny {
			t.Fatalf("malformed input %q got %s", input, d)
		}
		if _, isObj := v.(map[string]any); !isObj && v != nil && d.Outcome != toolgate.Deny {
			t.Fatalf("non-object input %q got %s", input, d)
		}
	})
}
