package toolgate_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

// benchPolicy builds a policy of n rules spread over tools the way large
// policies are: mostly shell commands and MCP tools, some paths and domains.
func benchPolicy(tb testing.TB, n int) *toolgate.Policy {
	tb.Helper()
	c, err := toolgate.Compile([]toolgate.Layer{benchLayer(n)}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// benchLayer is the layer of benchPolicy's rules.
func benchLayer(n int) toolgate.Layer {
	l := toolgate.Layer{Source: toolgate.SourceProject, File: "/p/.toolgate/policy.yaml", Root: "/p"}
	def, ro := toolgate.Ask, toolgate.Allow
	l.Default, l.DefaultReadOnly = &def, &ro
	add := func(list *[]toolgate.RuleSpec, text string) {
		*list = append(*list, toolgate.RuleSpec{Text: text, Pos: toolgate.Position{File: l.File, Line: len(*list) + 1, Column: 5}})
	}
	for i := 0; i < n; i++ {
		switch i % 10 {
		case 0, 1, 2, 3:
			add(&l.Allow, fmt.Sprintf("Bash(tool%d run:*)", i))
		case 4:
			add(&l.Deny, fmt.Sprintf("Bash(danger%d:*)", i))
		case 5, 6, 7:
			add(&l.Allow, fmt.Sprintf("mcp__srv%d__get_*", i))
		case 8:
			add(&l.Deny, fmt.Sprintf("mcp__srv%d__delete_*", i))
		case 9:
			if i%100 == 9 {
				add(&l.Deny, fmt.Sprintf("Read(./secret%d/**)", i))
			} else {
				add(&l.Ask, fmt.Sprintf("mcp__srv%d__put", i))
			}
		}
	}
	add(&l.Allow, "Read(src/**)")
	add(&l.Allow, "Edit(./src/**)")
	add(&l.Allow, "Bash(git status)")
	add(&l.Allow, "Bash(npm run test:*)")
	add(&l.Allow, "Bash(cargo build:*)")
	add(&l.Allow, "WebFetch(domain:*.example.com)")
	add(&l.Deny, "Read(./.env)")
	add(&l.Deny, "Bash(curl:*)")
	add(&l.Allow, "mcp__github__get_*")
	return l
}

var benchCalls = []struct {
	name  string
	tool  string
	input string
}{
	{"Read", "Read", `{"file_path":"/p/src/main.go"}`},
	{"Edit", "Edit", `{"file_path":"/p/src/main.go","old_string":"a","new_string":"b"}`},
	{"EditAsk", "Edit", `{"file_path":"/p/docs/guide.md","old_string":"a","new_string":"b"}`},
	{"WebFetch", "WebFetch", `{"url":"https://api.example.com/v1/items?x=1"}`},
	{"MCP", "mcp__github__get_issue", `{"owner":"o","repo":"r","number":12}`},
	{"BashSimple", "Bash", `{"command":"git status"}`},
	{"BashCompound", "Bash", `{"command":"cargo build && npm run test | tee out.log"}`},
}

func BenchmarkDecide(b *testing.B) {
	write4k := `{"file_path":"/p/src/big.go","content":` + mustJSON(strings.Repeat("line of code with \"quotes\" and \\ slashes\n", 100)) + `}`
	calls := append(benchCalls[:len(benchCalls):len(benchCalls)], struct{ name, tool, input string }{"Write4KB", "Write", write4k})
	for _, n := range []int{20, 1000, 10000} {
		cfg := benchPolicy(b, n)
		for _, bc := range calls {
			call := toolgate.Call{Tool: bc.tool, Input: json.RawMessage(bc.input), Cwd: "/p", Home: "/home/u"}
			b.Run(fmt.Sprintf("rules=%d/%s", n, bc.name), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(bc.input)))
				for b.Loop() {
					d := cfg.Decide(call)
					if d.Outcome == toolgate.Invalid {
						b.Fatal("invalid")
					}
				}
			})
		}
	}
}

// BenchmarkDecideLarge decides benchCalls at 100,000 rules of
// benchPolicy's spread, the size at which the non-shell goals (under 1 µs,
// at most 2 allocations) are set too.
func BenchmarkDecideLarge(b *testing.B) {
	cfg := benchPolicy(b, 100000)
	for _, bc := range benchCalls {
		call := toolgate.Call{Tool: bc.tool, Input: json.RawMessage(bc.input), Cwd: "/p", Home: "/home/u"}
		b.Run(fmt.Sprintf("rules=100000/%s", bc.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := cfg.Decide(call); d.Outcome == toolgate.Invalid {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// BenchmarkDecideParser decides BashSimple and BashCompound with a
// comment added, so that mvdan's parser reads them (a plain command list,
// with quoted words and redirections, is read without it): the cost of a
// shell call the fast path does not take.
func BenchmarkDecideParser(b *testing.B) {
	calls := []struct{ name, input string }{
		{"BashSimple", `{"command":"git status # for the log"}`},
		{"BashCompound", `{"command":"cargo build && npm run test | tee out.log # for the log"}`},
	}
	for _, n := range []int{20, 10000} {
		cfg := benchPolicy(b, n)
		for _, bc := range calls {
			call := toolgate.Call{Tool: "Bash", Input: json.RawMessage(bc.input), Cwd: "/p", Home: "/home/u"}
			b.Run(fmt.Sprintf("rules=%d/%s", n, bc.name), func(b *testing.B) {
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

func BenchmarkCompile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			// Only the compile is timed, not building the layer.
			layers := []toolgate.Layer{benchLayer(n)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := toolgate.Compile(layers, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// BenchmarkLayers compares a check through one layer with the same rules
// spread over six layers (session, managed, cli, local, project, user).
func BenchmarkLayers(b *testing.B) {
	rules := struct{ allow, deny, ask []string }{
		allow: []string{"Read(src/**)", "Bash(git status)", "Bash(npm run test:*)", "WebFetch(domain:*.example.com)", "mcp__github__get_*", "Edit(./src/**)"},
		deny:  []string{"Read(./.env)", "Bash(curl:*)", "Bash(rm -rf:*)", "mcp__github__delete_*", "WebFetch(domain:evil.com)", "Edit(//etc/**)"},
		ask:   []string{"Bash(git push:*)", "mcp__github__create_*", "Edit(docs/**)", "Bash(docker:*)", "Read(~/.aws/**)", "WebFetch(domain:x.com)"},
	}
	sources := []toolgate.Source{toolgate.SourceSession, toolgate.SourceManaged, toolgate.SourceCLI, toolgate.SourceLocal, toolgate.SourceProject, toolgate.SourceUser}
	one := layer(toolgate.SourceProject, rules.allow, rules.deny, rules.ask)
	var six []toolgate.Layer
	for i, src := range sources {
		six = append(six, layer(src, rules.allow[i:i+1], rules.deny[i:i+1], rules.ask[i:i+1]))
	}
	for _, tc := range []struct {
		name   string
		layers []toolgate.Layer
	}{{"one", []toolgate.Layer{one}}, {"six", six}} {
		cfg := mustCompile(b, tc.layers...)
		for _, bc := range benchCalls {
			call := toolgate.Call{Tool: bc.tool, Input: json.RawMessage(bc.input), Cwd: "/p", Home: "/home/u"}
			b.Run(tc.name+"/"+bc.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					cfg.Decide(call)
				}
			})
		}
	}
}
