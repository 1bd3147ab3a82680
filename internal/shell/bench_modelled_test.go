package shell

import (
	"strings"
	"testing"
)

// BenchmarkAnalyzeIntoModelled analyses, into one reused Analysis,
// commands whose options the model reads (git's global options and then
// its subcommand's, grep's) and whose operands are paths.
func BenchmarkAnalyzeIntoModelled(b *testing.B) {
	opts := Options{Cwd: "/work/app", Home: "/home/u"}
	for _, s := range []string{"git diff --stat HEAD~1", "grep -rn --include=*.go TODO src | head -5"} {
		b.Run(strings.Fields(s)[0], func(b *testing.B) {
			var res Analysis
			b.ReportAllocs()
			for b.Loop() {
				AnalyzeInto(&res, s, opts)
			}
		})
	}
}
