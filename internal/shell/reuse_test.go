package shell

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// render prints everything an Analysis reports, following its pointers, so
// that two analyses can be compared by value.
func render(a *Analysis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "readOnly=%v unanalysable=%q unsafe=%q\n", a.ReadOnly, a.Unanalysable, a.UnsafeAssign)
	for _, c := range a.Commands {
		fmt.Fprintf(&b, "%+v\n", *c)
	}
	return b.String()
}

// reuseCorpus is a spread of command strings: simple and compound, with
// paths, wrappers, substitutions, here-documents, loops and parse errors,
// so that one analysis reused across them meets every kind of chunk.
var reuseCorpus = []string{
	"git status",
	"cargo build && npm run test | tee out.log",
	"ls -la src; cat README.md > /tmp/x 2>&1",
	"find . -name '*.go' -exec grep -l TODO {} +",
	"bash -c 'rm -rf build && mkdir build' && echo $(date)",
	"for f in a b c d e f g h; do cp \"$f\" dst/$f.bak; done",
	"cat <<'EOF' | bash\ngit push --force\nEOF",
	"shopt -s dotglob; for x in 1; do rm *; done",
	"sudo -u root env -i PATH=/bin sh -c 'id'",
	"echo 'unterminated",
	"a=1 b=2 c=$(whoami) printenv",
	"xargs -0 rm < list.txt; tar czf out.tgz dir1 dir2 dir3 dir4 dir5",
	"",
	strings.Repeat("echo x; ", 300),
	"git -C ../other log --oneline | head -20 > log.txt && wc -l log.txt",
}

// TestAnalyzeIntoReuse: one Analysis reused across many command strings, in
// random orders, reports exactly what a fresh Analyze does for each.
func TestAnalyzeIntoReuse(t *testing.T) {
	opts := Options{Cwd: "/work/app", Home: "/home/u"}
	want := make([]string, len(reuseCorpus))
	for i, s := range reuseCorpus {
		want[i] = render(Analyze(s, opts))
	}
	var res Analysis
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		for _, i := range rng.Perm(len(reuseCorpus)) {
			AnalyzeInto(&res, reuseCorpus[i], opts)
			if got := render(&res); got != want[i] {
				t.Fatalf("round %d, %q analysed into a reused Analysis:\n%s\nfresh:\n%s", round, reuseCorpus[i], got, want[i])
			}
		}
	}
}

// TestAnalyzeIntoDropsLargeChunks: after a huge command string, a reused
// Analysis lets the large chunks go instead of keeping them forever.
func TestAnalyzeIntoDropsLargeChunks(t *testing.T) {
	var res Analysis
	AnalyzeInto(&res, strings.Repeat("cat a b c d; ", 400), Options{Cwd: "/w"})
	AnalyzeInto(&res, "git status", Options{Cwd: "/w"})
	for name, c := range map[string]int{"cmds": cap(res.mem.cmds), "ptrs": cap(res.mem.ptrs), "refs": cap(res.mem.refs), "words": cap(res.mem.words), "forms": cap(res.mem.forms)} {
		if c > maxKept {
			t.Errorf("after a small command, the %s chunk kept capacity %d (> %d)", name, c, maxKept)
		}
	}
}

func BenchmarkAnalyzeInto(b *testing.B) {
	opts := Options{Cwd: "/work/app", Home: "/home/u"}
	for _, s := range []string{"git status", "cargo build && npm run test | tee out.log"} {
		b.Run(strings.Fields(s)[0], func(b *testing.B) {
			var res Analysis
			b.ReportAllocs()
			for b.Loop() {
				AnalyzeInto(&res, s, opts)
			}
		})
	}
}
