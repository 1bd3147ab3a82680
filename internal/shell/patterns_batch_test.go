package shell

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// batchCorpus holds patterns of every shape CompilePattern meets: plain,
// wild, quoted, with options and assignments, and ones that fail — alone,
// or in ways that would run into the next line of a batch (an open quote,
// substitution or parameter, a trailing backslash, a comment).
var batchCorpus = []string{
	"npm run test:*", "git status", "git push --force:*", "rm -rf:*", "rm -r -f x", "cargo build",
	"'quoted arg' x*", `"double $HOME" y`, "$'ansi\\tc' z", "A=1 B=2 make:*", "A=1", "ls *", "*",
	"docker compose up -d:*", "kubectl -n prod get pods:*", "find . -name '*.go'", "echo \"$(date)\"",
	"echo ${x:-y}", "echo `id`", "tool123 run:*", "git -C ../x log:*", "a\\ b c", "git commit -m 'a b':*",
	"ünïcödé cmd", "x #comment", "#only", "a | b", "a;b", "a && b", "cat <<EOF", "a > f", "(a)",
	"'open quote", "\"open dbl", "$(open", "${open", "`open", "trailing\\", "two\nlines", "cr\rhere",
	"", "   ", "nul\x00here", "a=(1 2)", "if then fi", "{a,b}", "a{,b}c:*", "[[ x ]]", "$((1+2))",
	"-rf:*", "--force", "git push -f origin:*", "sed -n 1p:*", "python -c 'print(1)'", "sudo -u root ls:*",
}

func compileEach(specs []string) ([]*Pattern, []error) {
	pats, errs := make([]*Pattern, len(specs)), make([]error, len(specs))
	for i, s := range specs {
		pats[i], errs[i] = CompilePattern(s)
	}
	return pats, errs
}

func sameCompiled(t *testing.T, specs []string) {
	t.Helper()
	got, gotErr := CompilePatterns(specs)
	want, wantErr := compileEach(specs)
	for i := range specs {
		if fmt.Sprint(gotErr[i]) != fmt.Sprint(wantErr[i]) {
			t.Errorf("%q: batch error %v, alone %v", specs[i], gotErr[i], wantErr[i])
			continue
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%q: batch compiled %+v, alone %+v", specs[i], got[i], want[i])
		}
	}
}

// TestCompilePatternsMatchesSingle: compiling patterns in batches gives
// exactly what compiling each alone gives, in any order and mix, across
// batch boundaries.
func TestCompilePatternsMatchesSingle(t *testing.T) {
	sameCompiled(t, batchCorpus)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 30 {
		specs := make([]string, rng.IntN(3*batchSize))
		for i := range specs {
			specs[i] = batchCorpus[rng.IntN(len(batchCorpus))]
		}
		sameCompiled(t, specs)
	}
}

// FuzzCompilePatterns: three patterns compiled in one batch compile as
// each does alone.
func FuzzCompilePatterns(f *testing.F) {
	f.Add("npm run test:*", "'open", "git push --force:*")
	f.Add("a\\", "b", "c #d")
	f.Add("$(x", ")", "y")
	f.Add("\"a", "b\"", "c")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		sameCompiled(t, []string{a, b, c})
	})
}

func BenchmarkCompilePatterns(b *testing.B) {
	specs := make([]string, 1000)
	for i := range specs {
		specs[i] = fmt.Sprintf("git sub%05d --force:*", i)
	}
	b.Run("one-by-one", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			compileEach(specs)
		}
	})
	b.Run("batched", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			CompilePatterns(specs)
		}
	})
}
