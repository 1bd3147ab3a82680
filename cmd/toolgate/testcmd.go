package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
)

const testUsage = `Usage:

	toolgate test [--config [SOURCE=]FILE]... [--claude] [--mode MODE] [--cwd DIR] [--home DIR]
	              [-v] [--run REGEXP] [PATH...]

Test runs policy test files, like "go test" for a policy, and checks the
inline examples of every configuration file loaded.

A PATH is a test file or a directory; a directory is searched for files
named *_test.yaml, *_test.yml or *_test.json, and DIR/... searches below it
too. Without PATHs, the current directory and its .toolgate folder are
searched. A test file holds cases, each a call and the outcome it must get:

	config: [policy.yaml]        # optional: [SOURCE=]FILE..., relative to the test file;
	                             # without it the policy of the flags (or discovery) is used
	cwd: .                       # optional: the calls' working directory (default: the
	                             # test file's directory); also home and mode
	cases:
	  - name: rm is denied       # optional
	    tool: Bash
	    input: {command: "rm -rf build"}
	    expect: deny             # allow, ask, deny or modify
	    rule: "Bash(rm:*)"       # optional: the rule that must decide
	    # optional: cwd, home, mode, agent, server, read_only

A failing case is reported with its position, what was wanted and the
explanation of the actual decision.

Exit status: 0 when every case passes; 1 when a case fails; 2 on a usage or
configuration error.

Flags:
`

func (c *cli) test(args []string) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var pf policyFlags
	pf.register(fs)
	verbose := fs.Bool("v", false, "print every case, not only failures")
	runPat := fs.String("run", "", "run only the cases whose name matches `REGEXP`")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), testUsage)
		fs.PrintDefaults()
	}
	paths, code, done := parseInterspersed(fs, args)
	if done {
		return code
	}
	var filter *regexp.Regexp
	if *runPat != "" {
		re, err := regexp.Compile(*runPat)
		if err != nil {
			c.errorf("test: --run: %v", err)
			return exitUsage
		}
		filter = re
	}
	e, err := c.resolveEnv(&pf)
	if err != nil {
		c.errorf("%v", err)
		return exitUsage
	}
	if len(paths) == 0 {
		paths = []string{e.cwd}
		if st, err := os.Stat(filepath.Join(e.cwd, ".toolgate")); err == nil && st.IsDir() {
			paths = append(paths, filepath.Join(e.cwd, ".toolgate"))
		}
	}
	files, err := findTestFiles(e.cwd, paths)
	if err != nil {
		c.errorf("test: %v", err)
		return exitUsage
	}

	r := &testRunner{c: c, verbose: *verbose, filter: filter}
	// The policy of the flags: loaded when an example or a test file needs it.
	var base *loaded
	loadBase := func() (*loaded, bool) {
		if base == nil {
			ld, _ := c.load(&pf, false)
			if ld == nil {
				return nil, false
			}
			base = ld
			r.examples(ld)
		}
		return base, true
	}
	if len(pf.configs) > 0 || len(files) == 0 {
		if _, ok := loadBase(); !ok {
			return exitUsage
		}
	}
	for _, f := range files {
		tf, err := readTestFile(f)
		if err != nil {
			fmt.Fprintf(c.stdout, "FAIL\t%s\t%v\n", c.rel(e.cwd, f), err)
			r.broken++
			continue
		}
		var cfg *toolgate.Policy
		tdef := defaults{cwd: tf.cwd, home: e.home, mode: e.mode}
		if tf.home != "" {
			tdef.home = tf.home
		}
		if tf.mode != nil {
			tdef.mode = tf.mode
		}
		if len(tf.configs) > 0 {
			ld := pf
			ld.configs = nil
			for _, arg := range tf.configs { // relative to the test file
				src, file, named := config.ParseConfigArg(arg)
				if !filepath.IsAbs(file) {
					file = filepath.Join(filepath.Dir(f), file)
				}
				if named {
					file = src.String() + "=" + file
				}
				ld.configs = append(ld.configs, file)
			}
			l, _ := c.load(&ld, false)
			if l == nil {
				fmt.Fprintf(c.stdout, "FAIL\t%s\tits configuration did not load\n", c.rel(e.cwd, f))
				r.broken++
				continue
			}
			r.examples(l)
			cfg = l.cfg
		} else {
			l, ok := loadBase()
			if !ok {
				return exitUsage
			}
			cfg = l.cfg
		}
		r.file(c.rel(e.cwd, f), cfg, tdef, tf.cases)
	}
	if r.total == 0 && r.broken == 0 {
		fmt.Fprintln(c.stdout, "?\tno test files and no examples")
		return exitOK
	}
	if r.failed > 0 || r.broken > 0 {
		fmt.Fprintf(c.stdout, "FAIL\t%d of %d cases failed\n", r.failed, r.total)
		if r.broken > 0 && r.failed == 0 {
			return exitUsage
		}
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "PASS\t%d cases\n", r.total)
	return exitOK
}

// rel shortens p relative to dir for display.
func (c *cli) rel(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// testCase is one call and the outcome it must get.
type testCase struct {
	name      string
	pos       toolgate.Position
	call      toolgate.Call
	modeSet   bool
	expect    toolgate.Outcome
	expectNot bool
	rule      string
}

type testRunner struct {
	c                     *cli
	verbose               bool
	filter                *regexp.Regexp
	total, failed, broken int
	seenExamples          map[string]bool
}

// examples runs the inline examples of every file of ld.
func (r *testRunner) examples(ld *loaded) {
	if r.seenExamples == nil {
		r.seenExamples = map[string]bool{}
	}
	for _, f := range ld.set.Files {
		if r.seenExamples[f.Path] || len(f.Examples) == 0 {
			continue
		}
		r.seenExamples[f.Path] = true
		var cases []testCase
		for _, ex := range f.Examples {
			call := ex.Call
			if call.Home == "" {
				call.Home = ld.env.home
			}
			cases = append(cases, testCase{
				name:   fmt.Sprintf("example %s %s", call.Tool, compact(call.Input)),
				pos:    ex.Pos,
				call:   call,
				expect: ex.Expect, expectNot: ex.ExpectNot, rule: ex.Rule,
				modeSet: ex.Mode != nil,
			})
		}
		r.file(f.Path+" (examples)", ld.cfg, defaults{cwd: ld.env.cwd, home: ld.env.home, mode: ld.env.mode}, cases)
	}
}

// file runs the cases of one file and prints its result.
func (r *testRunner) file(name string, cfg *toolgate.Policy, def defaults, cases []testCase) {
	w := r.c.stdout
	n, failed := 0, 0
	for _, tc := range cases {
		if r.filter != nil && !r.filter.MatchString(tc.name) {
			continue
		}
		n++
		call := tc.call
		if call.Cwd == "" {
			call.Cwd = def.cwd
		}
		if call.Home == "" {
			call.Home = def.home
		}
		if call.Mode == nil && !tc.modeSet {
			call.Mode = def.mode
		}
		d := cfg.Decide(call)
		problem := config.Mismatch(d, tc.expect, tc.expectNot, tc.rule)
		if problem == "" {
			if r.verbose {
				fmt.Fprintf(w, "--- PASS: %s (%s)\n", tc.name, tc.pos)
			}
			continue
		}
		failed++
		fmt.Fprintf(w, "--- FAIL: %s (%s)\n", tc.name, tc.pos)
		fmt.Fprintf(w, "    call: %s %s (cwd %s)\n", call.Tool, compact(call.Input), call.Cwd)
		fmt.Fprintf(w, "    %s\n", problem)
		var b strings.Builder
		writeHuman(&b, d)
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	r.total += n
	r.failed += failed
	if failed > 0 {
		fmt.Fprintf(w, "FAIL\t%s\t%d cases, %d failed\n", name, n, failed)
	} else {
		fmt.Fprintf(w, "ok\t%s\t%d cases\n", name, n)
	}
}

// describeDecider names what decided: the rule, or the reason's kind.
func compact(b []byte) string {
	if len(b) == 0 {
		return "{}"
	}
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// findTestFiles expands the PATH arguments into test files, sorted.
func findTestFiles(cwd string, paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		recursive := false
		if p == "..." || strings.HasSuffix(p, "/...") {
			recursive = true
			p = strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
			if p == "" {
				p = "."
			}
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		if !recursive {
			ents, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			for _, e := range ents {
				if !e.IsDir() && isTestFile(e.Name()) {
					add(filepath.Join(p, e.Name()))
				}
			}
			continue
		}
		err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && q != p && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if !d.IsDir() && isTestFile(d.Name()) {
				add(q)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

func isTestFile(name string) bool {
	for _, ext := range []string{"_test.yaml", "_test.yml", "_test.json"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// testFile is a decoded test file.
type testFile struct {
	configs []string
	cwd     string
	home    string
	mode    *toolgate.Mode
	cases   []testCase
}

// readTestFile reads a YAML or JSON test file; every problem is reported
// with its file:line:col.
func readTestFile(p string) (*testFile, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	dir := filepath.Dir(p)
	tf := &testFile{cwd: dir}
	if len(doc.Content) == 0 {
		return tf, nil
	}
	root := doc.Content[0]
	pos := func(n *yaml.Node) toolgate.Position {
		return toolgate.Position{File: p, Line: n.Line, Column: n.Column}
	}
	var errs []string
	fail := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, pos(n).String()+": "+fmt.Sprintf(format, args...))
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: a test file must be a mapping with a cases list", pos(root))
	}
	dirOf := func(n *yaml.Node, what string) string {
		if n.Kind != yaml.ScalarNode {
			fail(n, "%s must be a string", what)
			return ""
		}
		d := n.Value
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		return filepath.Clean(d)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "config":
			switch v.Kind {
			case yaml.ScalarNode:
				tf.configs = append(tf.configs, v.Value)
			case yaml.SequenceNode:
				for _, it := range v.Content {
					if it.Kind != yaml.ScalarNode {
						fail(it, "config entries must be strings")
						continue
					}
					tf.configs = append(tf.configs, it.Value)
				}
			default:
				fail(v, "config must be a file name or a list of them")
			}
		case "cwd":
			tf.cwd = dirOf(v, "cwd")
		case "home":
			tf.home = dirOf(v, "home")
		case "mode":
			m, err := yamlMode(v)
			if err != nil {
				fail(v, "mode: %v", err)
			}
			tf.mode = m
		case "cases":
			if v.Kind != yaml.SequenceNode {
				fail(v, "cases must be a list")
				continue
			}
			for i, cn := range v.Content {
				tc, err := readCase(cn, i, dir, pos)
				if err != nil {
					errs = append(errs, err.Error())
					continue
				}
				tf.cases = append(tf.cases, tc)
			}
		default:
			fail(k, "unknown key %q (want config, cwd, home, mode or cases)", k.Value)
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "\n\t"))
	}
	return tf, nil
}

func readCase(n *yaml.Node, i int, dir string, pos func(*yaml.Node) toolgate.Position) (testCase, error) {
	tc := testCase{pos: pos(n), name: fmt.Sprintf("case %d", i+1)}
	if n.Kind != yaml.MappingNode {
		return tc, fmt.Errorf("%s: a case must be a mapping", pos(n))
	}
	var errs []string
	fail := func(m *yaml.Node, format string, args ...any) {
		errs = append(errs, pos(m).String()+": "+fmt.Sprintf(format, args...))
	}
	str := func(v *yaml.Node, key string) string {
		if v.Kind != yaml.ScalarNode {
			fail(v, "%s must be a string", key)
		}
		return v.Value
	}
	hasTool, hasExpect := false, false
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		switch k.Value {
		case "name":
			tc.name = str(v, "name")
		case "tool":
			hasTool = true
			tc.call.Tool = str(v, "tool")
		case "input":
			if v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
				tc.call.Input = json.RawMessage(v.Value) // JSON text
				continue
			}
			var x any
			if err := v.Decode(&x); err != nil {
				fail(v, "input: %v", err)
				continue
			}
			b, err := json.Marshal(x)
			if err != nil {
				fail(v, "input: %v", err)
				continue
			}
			tc.call.Input = b
		case "expect":
			hasExpect = true
			s := str(v, "expect")
			if strings.HasPrefix(s, "!") || strings.HasPrefix(s, "not ") {
				tc.expectNot = true
				s = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(s, "!"), "not "))
			}
			var o toolgate.Outcome
			err := o.UnmarshalText([]byte(s))
			if err != nil {
				fail(v, "expect: %v", err)
			}
			tc.expect = o
		case "rule":
			tc.rule = str(v, "rule")
		case "cwd", "home":
			d := str(v, k.Value)
			if !filepath.IsAbs(d) {
				d = filepath.Join(dir, d)
			}
			if k.Value == "cwd" {
				tc.call.Cwd = filepath.Clean(d)
			} else {
				tc.call.Home = filepath.Clean(d)
			}
		case "mode":
			m, err := yamlMode(v)
			if err != nil {
				fail(v, "mode: %v", err)
			}
			tc.call.Mode, tc.modeSet = m, true
		case "agent":
			tc.call.Agent = str(v, "agent")
		case "server":
			tc.call.Server = str(v, "server")
		case "session":
			tc.call.Session = str(v, "session")
		case "read_only":
			var b bool
			if err := v.Decode(&b); err != nil {
				fail(v, "read_only must be a boolean")
			}
			tc.call.NotReadOnly = !b
		default:
			fail(k, "unknown key %q (want name, tool, input, expect, rule, cwd, home, mode, agent, server, session or read_only)", k.Value)
		}
	}
	if !hasTool {
		fail(n, "case has no tool")
	}
	if !hasExpect {
		fail(n, "case has no expect (allow, ask, deny or modify)")
	}
	if len(errs) > 0 {
		return tc, errors.New(strings.Join(errs, "\n\t"))
	}
	return tc, nil
}

// yamlMode reads a mode name or a plan object.
func yamlMode(v *yaml.Node) (*toolgate.Mode, error) {
	var text string
	switch v.Kind {
	case yaml.ScalarNode:
		text = v.Value
	case yaml.MappingNode:
		var x map[string]any
		if err := v.Decode(&x); err != nil {
			return nil, err
		}
		b, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		text = string(b)
	default:
		return nil, errors.New("want a mode name or a plan object")
	}
	var m toolgate.Mode
	err := m.UnmarshalText([]byte(text))
	if err != nil {
		return nil, err
	}
	return &m, nil
}
