package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
)

// ruleFile returns a configuration file with n rules spread over the three
// lists, in format f.
func ruleFile(f Format, n int) []byte {
	lists := [3][]string{}
	for i := range n {
		lists[i%3] = append(lists[i%3], fmt.Sprintf("Bash(npm run task-%d:*)", i))
	}
	var b strings.Builder
	switch f {
	case YAML:
		b.WriteString("version: 1\n")
		for i, name := range []string{"allow", "deny", "ask"} {
			b.WriteString(name + ":\n")
			for _, r := range lists[i] {
				fmt.Fprintf(&b, "  - %q\n", r)
			}
		}
	case TOML:
		b.WriteString("version = 1\n")
		for i, name := range []string{"allow", "deny", "ask"} {
			b.WriteString(name + " = [\n")
			for _, r := range lists[i] {
				fmt.Fprintf(&b, "  %q,\n", r)
			}
			b.WriteString("]\n")
		}
	case JSON:
		b.WriteString("{\"version\": 1")
		for i, name := range []string{"allow", "deny", "ask"} {
			fmt.Fprintf(&b, ",\n  %q: [", name)
			for j, r := range lists[i] {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "\n    %q", r)
			}
			b.WriteString("]")
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

func BenchmarkParse1000(b *testing.B) {
	for _, f := range []Format{YAML, TOML, JSON} {
		data := ruleFile(f, 1000)
		name := "/p/policy." + f.String()
		b.Run(f.String(), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				file, d := Parse(name, data, toolgate.SourceCLI, true)
				if d.Err() != nil || len(file.Layers[0].Deny) != 333 {
					b.Fatal(d)
				}
			}
		})
	}
}

// TestLargeInputs checks that hostile inputs near the size limit load (or
// fail) quickly rather than hanging.
func TestLargeInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for name, data := range map[string]string{
		"nested.json": strings.Repeat("[", 1<<20),
		"nested.yaml": strings.Repeat("[", 1<<20),
		"nested.toml": "a = " + strings.Repeat("[", 1<<20),
		"line.json":   `{"version": 1, "deny": [` + strings.Repeat(`"ééééé", `, 200000) + `"x"]}`,
		"line.toml":   `version = 1` + "\ndeny = [" + strings.Repeat(`"ééééé", `, 200000) + `"x"]`,
		"keys.json":   `{"version": 1` + strings.Repeat(`, "unknownkeyé": 1`, 1) + strings.Repeat(" ", 10) + `}`,
		"alias.yaml":  "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n",
	} {
		start := time.Now()
		_, d := Parse("/p/"+name, []byte(data), toolgate.SourceCLI, true)
		t.Logf("%s: %v, %d diagnostics, first %.100s", name, time.Since(start), len(d), first(d))
	}
}

func first(d toolgate.Diagnostics) string {
	if len(d) == 0 {
		return ""
	}
	return d[0].String()
}
