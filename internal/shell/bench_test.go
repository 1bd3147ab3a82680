package shell

import "testing"

func BenchmarkAnalyzeSimple(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze("git status", testOpts)
	}
}

func BenchmarkAnalyzeCompound(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Analyze("npm run build && npm test | tee out.log", testOpts)
	}
}

func BenchmarkPatternMatch(b *testing.B) {
	p, err := CompilePattern("npm run test:*")
	if err != nil {
		b.Fatal(err)
	}
	ws := []Word{{"npm", true}, {"run", true}, {"test", true}, {"--watch", true}}
	b.ReportAllocs()
	for b.Loop() {
		p.Match(ws, false)
		p.Match(ws, true)
	}
}

func BenchmarkCompilePattern(b *testing.B) {
	specs := []string{"npm run test:*", "tool123 run:*", "git push --force:*", "rm -rf:*", "cargo build", "'quoted arg' x*"}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range specs {
			if _, err := CompilePattern(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}
