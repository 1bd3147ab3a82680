//go:build linux

package bashdiff

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/shell"
)

var (
	flagSeed     = flag.Uint64("bashdiff.seed", 1, "seed of the command generator")
	flagCount    = flag.Int("bashdiff.count", 5000, "number of generated commands")
	flagOnly     = flag.String("bashdiff.only", "all", "which inputs to run: all, corpus, findings or gen")
	flagCmd      = flag.String("bashdiff.cmd", "", "run only this command string")
	flagShow     = flag.Int("bashdiff.show", 25, "failing commands described in full")
	flagFailures = flag.String("bashdiff.failures", "", "write every failing command (JSON-quoted, one a line, with its classes) to this file")
	flagFuzzAll  = flag.Bool("bashdiff.fuzzall", false, "FuzzBashDiff also fails on strings the analysis cannot parse")
	flagVerbose  = flag.Bool("bashdiff.v", false, "describe every command, passing or not")
	flagUpdate   = flag.Bool("bashdiff.update", false, "rewrite testdata/known.txt with the generated commands that fail now")
	flagMinimize = flag.Bool("bashdiff.minimize", false, "shrink each failing command to a smallest failing piece before reporting it")
)

func TestMain(m *testing.M) {
	RunHelperIfRequested()
	code := m.Run()
	closeSandbox()
	os.Exit(code)
}

var (
	sbOnce sync.Once
	sb     *Sandbox
	sbErr  error
	sbDir  string
)

// sandbox returns the shared sandbox, failing the test in CI (CI set) and
// skipping it elsewhere when bash, strace or namespaces are unavailable.
func sandbox(t testing.TB) *Sandbox {
	t.Helper()
	sbOnce.Do(func() {
		sbDir, sbErr = os.MkdirTemp("", "bashdiff")
		if sbErr != nil {
			return
		}
		if sbErr = os.Chmod(sbDir, 0o755); sbErr != nil {
			return
		}
		sb, sbErr = New(Config{Dir: sbDir, Workers: 2})
	})
	if sbErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("differential test against real bash cannot run (CI is set, so this fails): %v", sbErr)
		}
		t.Skipf("differential test against real bash skipped (needs /usr/bin/bash, /usr/bin/strace and user namespaces; set CI=1 to make this a failure): %v", sbErr)
	}
	return sb
}

func closeSandbox() {
	if sb != nil {
		sb.Close()
	}
	if sbDir != "" {
		os.RemoveAll(sbDir)
	}
}

// result is one command's outcome.
type result struct {
	tr    *Trace
	an    *shell.Analysis
	fails []Failure
}

func check(s *Sandbox, cmd string) result {
	tr := s.Run(cmd)
	an := shell.Analyze(cmd, s.Options())
	_, home := s.Paths()
	return result{tr, an, Compare(tr, an, home)}
}

// runAll checks every command on the sandbox's workers and reports counts
// and failures.
//
// known holds the command strings that are open findings: their misses are
// reported (and counted) but fail the test only when known is nil. A
// command that misses something and is not known fails the test: the
// known list only shrinks. A command that timed out is reported but does
// not fail the test, since its trace is incomplete. runAll returns the
// commands that failed.
func runAll(t *testing.T, s *Sandbox, label string, cmds []string, known map[string]bool) []string {
	start := time.Now()
	results := make([]result, len(cmds))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = check(s, cmds[i])
			}
		}()
	}
	for i := range cmds {
		next <- i
	}
	close(next)
	wg.Wait()
	byClass := map[string]int{}
	failed, timedOut, events, runs, newFails, knownFails := 0, 0, 0, 0, 0, 0
	var failing []string
	var report strings.Builder
	var lines []string
	flaky := 0
	for i, r := range results {
		cmd := cmds[i]
		if len(r.fails) > 0 && !known[cmd] && !r.tr.TimedOut && known != nil {
			// A miss that a second and third run do not repeat depends on
			// timing (background jobs, pipes closing early): reported, not
			// failed.
			again := check(s, cmd)
			if len(again.fails) == 0 || len(check(s, cmd).fails) == 0 {
				flaky++
				t.Logf("not repeated on a second run (timing-dependent): %q", cmd)
				continue
			}
		}
		events += len(r.tr.Events)
		runs += r.tr.Runs
		if r.tr.TimedOut {
			timedOut++
			if timedOut <= 5 {
				t.Logf("timed out: %q", r.tr.Cmd)
			}
		}
		if *flagVerbose {
			t.Logf("%s", Describe(r.tr, r.an, r.fails))
		}
		if len(r.fails) == 0 {
			continue
		}
		failed++
		failing = append(failing, cmd)
		if known[cmd] || r.tr.TimedOut {
			knownFails++
		} else {
			newFails++
		}
		classes := map[string]bool{}
		for _, f := range r.fails {
			classes[f.Class] = true
		}
		for c := range classes {
			byClass[c]++
		}
		if *flagMinimize {
			for c := range classes {
				small := minimize(s, r.tr.Cmd, c)
				mr := check(s, small)
				lines = append(lines, fmt.Sprintf("%q\t%s\t%s", small, c, firstOf(mr.fails, c)))
			}
		} else {
			lines = append(lines, fmt.Sprintf("%q\t%s", r.tr.Cmd, strings.Join(sortedKeys(classes), ",")))
		}
		if (known == nil || !known[cmd] && !r.tr.TimedOut) && newFails <= *flagShow {
			report.WriteString(Describe(r.tr, r.an, r.fails))
		}
	}
	summary := fmt.Sprintf("%s: %d commands (%d bash runs, %d events, %d timed out) in %v: %d failed (%d known open findings or timed out, %d new), %d not repeated on a rerun; failing commands by class: %v",
		label, len(cmds), runs, events, timedOut, time.Since(start).Round(time.Millisecond), failed, knownFails, newFails, flaky, byClass)
	t.Log(summary)
	if known != nil {
		now := map[string]bool{}
		for _, c := range failing {
			now[c] = true
		}
		for _, c := range cmds {
			if known[c] && !now[c] {
				t.Logf("known finding no longer fails (remove it from the list): %q", c)
			}
		}
	}
	if *flagFailures != "" && len(lines) > 0 {
		f, err := os.OpenFile(*flagFailures, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s\n", strings.Join(lines, "\n"))
			f.Close()
		}
	}
	if known == nil && failed > 0 || newFails > 0 {
		t.Errorf("%s\nbash did what the analysis did not report (first %d shown):\n%s", summary, *flagShow, report.String())
	}
	return failing
}

// TestBashDiff runs the corpus and the generated commands under real bash
// and compares what bash did with the analysis.
func TestBashDiff(t *testing.T) {
	s := sandbox(t)
	if *flagCmd != "" {
		runAll(t, s, "command", []string{*flagCmd}, nil)
		return
	}
	if *flagOnly == "all" || *flagOnly == "corpus" {
		t.Run("corpus", func(t *testing.T) {
			cc, err := CorpusCommands(filepath.Join("..", "..", ".."))
			if err != nil {
				t.Fatal(err)
			}
			if len(cc) < 50 {
				t.Fatalf("only %d corpus commands found", len(cc))
			}
			cmds := make([]string, len(cc))
			for i, c := range cc {
				cmds[i] = c.Cmd
			}
			runAll(t, s, "corpus", cmds, nil)
		})
	}
	if *flagOnly == "all" || *flagOnly == "findings" {
		// The open findings, and the fixed ones kept as regression inputs.
		for _, name := range []string{"findings", "fixed"} {
			t.Run(name, func(t *testing.T) {
				fs, err := readFindings(filepath.Join("testdata", name+".txt"))
				if err != nil {
					t.Fatal(err)
				}
				// findings.txt lists the open findings: they are run and
				// reported; fixed.txt must stay fixed.
				var known map[string]bool
				if name == "findings" {
					known = map[string]bool{}
					for _, c := range fs {
						known[c] = true
					}
				}
				runAll(t, s, name, fs, known)
			})
		}
	}
	if *flagOnly == "all" || *flagOnly == "gen" {
		t.Run("generated", func(t *testing.T) {
			n := *flagCount
			if testing.Short() && n > 500 {
				n = 500 // -short: a quick sample
			}
			knownPath := filepath.Join("testdata", "known.txt")
			kl, err := readFindings(knownPath)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			known := map[string]bool{}
			for _, c := range kl {
				known[c] = true
			}
			failing := runAll(t, s, fmt.Sprintf("generated (seed %d)", *flagSeed), Generate(*flagSeed, n), known)
			if *flagUpdate {
				var b strings.Builder
				b.WriteString("# Generated commands (seed 1) where bash did something the analysis did not\n")
				b.WriteString("# report, open findings of the causes listed in findings.txt. The generated\n")
				b.WriteString("# subtest fails on any other failing command; rewrite with -bashdiff.update.\n")
				for _, c := range failing {
					fmt.Fprintf(&b, "%q\n", c)
				}
				if err := os.WriteFile(knownPath, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// FuzzBashDiff feeds arbitrary command strings through the same check.
func FuzzBashDiff(f *testing.F) {
	// Seeds the analysis gets right, so that the fuzzer explores from them.
	for _, c := range []string{
		"echo hi > out.txt; cat < .env",
		"git status | grep x > out.txt && echo $(ls src)",
		"timeout 5 rm -f build.log",
		"bash -c 'ls -la src' 2>/dev/null",
		"for f in src/*.go; do cat \"$f\"; done",
		"x=$(<build.log); echo \"$x\" >> out.txt",
		"cd sub && echo x > new.txt",
		"env -i git log --oneline | head -n 3",
		"printf '%s\\n' a b | xargs rm",
		"cat <<'EOF' > out.txt\nhello\nEOF\n",
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 2048 || strings.IndexByte(cmd, 0) >= 0 {
			return
		}
		s := sandbox(t)
		r := check(s, cmd)
		fails := r.fails
		if !*flagFuzzAll {
			// By default the fuzzer hunts misses in strings the analysis
			// reads; parser differences (the whole string unanalysable, so
			// never allowed) are found at once and would stop it there.
			fails = nil
			for _, f := range r.fails {
				if !strings.HasSuffix(f.Class, SuffixUnparsed) {
					fails = append(fails, f)
				}
			}
		}
		if len(fails) > 0 {
			t.Errorf("%s", Describe(r.tr, r.an, fails))
		}
	})
}

// firstOf describes the first failure of class c.
func firstOf(fs []Failure, c string) string {
	for _, f := range fs {
		if f.Class == c {
			return f.String()
		}
	}
	return ""
}

// readFindings reads testdata/findings.txt: one Go-quoted command string a
// line, then an optional comment after '#'; lines starting with '#' are
// comments.
func readFindings(name string) ([]string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, err := strconv.QuotedPrefix(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
		}
		cmd, _ := strconv.Unquote(q)
		out = append(out, cmd)
	}
	return out, nil
}
