package shell

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
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

// parsedByParser is what the parser makes of src.
func parsedByParser(src string) ([]*syntax.Stmt, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if f == nil {
		return nil, err
	}
	return f.Stmts, err
}

// checkPlainParse fails when plainParse takes src but builds anything other
// than the parser's tree for it. It reports whether plainParse took src.
func checkPlainParse(t *testing.T, an *analyzer, src string) bool {
	t.Helper()
	got, ok := an.plainParse(src)
	if !ok {
		return false
	}
	want, err := parsedByParser(src)
	if err != nil {
		t.Fatalf("plainParse took %q, which the parser rejects: %v", src, err)
	}
	if !reflect.DeepEqual(got, want) {
		var g, w strings.Builder
		for _, s := range got {
			syntax.DebugPrint(&g, s)
		}
		for _, s := range want {
			syntax.DebugPrint(&w, s)
		}
		t.Fatalf("plainParse(%q) built\n%s\nthe parser\n%s", src, g.String(), w.String())
	}
	return true
}

// TestPlainParse: the strings plainParse reads itself get the parser's own
// tree; the ones it must leave to the parser, it leaves.
func TestPlainParse(t *testing.T) {
	an := new(analyzer)
	for _, s := range []string{
		"git status", "cargo build && npm run test | tee out.log", "a", "a;", "a ;", "a; b", "a;b;",
		"a|b|c", "a && b && c", "a || b && c | d | e; f g h || i", "  ls\t-la  src/ ;  ", "x a=b --c=d e+=f",
		"git log --format=%H@%an:x,y", "./run.sh -v", "/bin/ls", "1 2 3", "if1 done2 x", "a-b_c.d",
		strings.Repeat("echo x; ", 20), "grep -rn 'x y' src", `git commit -m "fix: the (a|b) case; it's *done*"`,
		"echo ''", `echo ""`, `x a'b'c "d"e a''b`, "'git' status", `"" x`, `"if" x`, `x 'a"b' "c'd"`,
		`x 'a!b#c~d{e}f[g]h*?(i)j<k>l&m|n;o^p\q$r` + "`s'", `x "a!b#c~d{e}f[g]h*?(i)j<k>l&m|n;o^p'q"`,
		"a > b", "a < b", "go test ./... 2>&1 | tail -20", "a >f b >>g 2>/dev/null 1>&2 0<&3 &>h &>>i <j",
		"a 'x'>f", "a 2&>f", "a >'f' 2>\"g h\"; b", "a 12>f", "x >&-", "a b>c",
		"ls *.go", "cat ~/.bashrc ~ a~b", "rm -rf build/* ?x a*b", "echo {a,b} { } {} x{y}z", "{a x", "}a x", "*x", "~/bin/x",
	} {
		if !checkPlainParse(t, an, s) {
			t.Errorf("plainParse left %q to the parser", s)
		}
		an.tmp.reset()
	}
	for _, s := range []string{
		"", " ", ";", "a;;", "a; ;", "a &", "a & b", "a &&", "&& a", "a |", "| a", "a |& b", "a ||| b", "a &&& b",
		"a;&b", "a;|b", "a=b", "a=b c", "=x", "if x", "time ls", "coproc x", "function f", "export A", "local a",
		"declare", "let x", "for", "in x", "then", "else x", "@test x", "a\nb", "a\rb", "a #c", "a 'b", "a \"b",
		"a \"$b\"", "a \"\\b\"", "a \"`b`\"", "a 'é'", "a '\tb'", "a 'b\nc'", "a='b' c", "'a=b' c", "\"a\"=b c",
		"time'x' y", "a $b", "a `b`", "> f a", "2>f a", "a >", "a > | b", "a >>", "a << x", "a <<< x", "a <> f",
		"a >| f", "a >(b)", "a <(b)", "a 2>", "a > > f", "a >&", "a && > f", "a &>| f", "{ a; }", "{", "}", "{} x",
		"a; } x", "a ?(b)", "a *(b)", "a [b]", "a b[c", "[ -f x ]", "a (b)", "a !", "a \\b", "a\x00",
		"é", "a\v", strings.Repeat("a ", maxPlainTokens+1), "x " + strings.Repeat("y", maxPlainLen),
	} {
		if checkPlainParse(t, an, s) {
			t.Errorf("plainParse took %q, which it should leave to the parser", s)
		}
	}
}

// TestPlainParseExhaustive compares plainParse with the parser on every
// string of up to four characters over an alphabet holding each class of
// character plainParse treats apart, every operator character and the
// quotes (the other plain characters are in TestPlainParseRandom).
func TestPlainParseExhaustive(t *testing.T) {
	const alphabet = "a=+@-0*?~{} \t&|;#!'\"$<>"
	an := new(analyzer)
	took := 0
	var rec func(prefix []byte)
	rec = func(prefix []byte) {
		if checkPlainParse(t, an, string(prefix)) {
			took++
		}
		an.tmp.reset()
		if len(prefix) == 4 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			rec(append(prefix, alphabet[i]))
		}
	}
	rec(nil)
	if took < 1000 {
		t.Errorf("plainParse took only %d strings", took)
	}
}

// TestPlainParseRandom compares plainParse with the parser on longer
// strings: random sequences of words (reserved ones, assignments and words
// of every plain character among them), operators and blanks.
func TestPlainParseRandom(t *testing.T) {
	pieces := []string{"git", "status", "-la", "a=b", "--x=y", "if", "in", "time", "then", "%s", "a,b", "u@h:/p", "+x", "./r",
		"0", " ", "  ", "\t", ";", "&&", "||", "|", "&", "|&", ";;", "!", "#", "'q'", "$x", ">", "x",
		"'a b'", "''", `""`, `"x y"`, `"$x"`, `"a'b"`, `'a"b'`, "'", `"`, "'if'", `"a=b"`,
		">", ">>", "<", "2>&1", "2>", ">&", "&>", "<<", "<&", "1", "*", "?", "~", "{", "}", "{a,b}", "~/x", "*.go", "a*"}
	an := new(analyzer)
	rng := rand.New(rand.NewPCG(3, 4))
	took := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
		if checkPlainParse(t, an, b.String()) {
			took++
		}
		an.tmp.reset()
	}
	if took < 1000 {
		t.Errorf("plainParse took only %d strings", took)
	}
}

// FuzzPlainParse: whatever plainParse takes, the parser reads the same way.
func FuzzPlainParse(f *testing.F) {
	for _, s := range reuseCorpus {
		f.Add(s)
	}
	for _, s := range []string{"a b;c", "a||b&&c|d", "x=1 y", "a=b", "if x", "a;&b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPlainParse(t, new(analyzer), s)
	})
}
