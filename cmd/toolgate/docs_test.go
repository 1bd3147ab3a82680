package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocs runs the examples of README.md and docs/*.md, so they cannot drift
// from what toolgate does. The format of a Markdown file's fenced blocks:
//
//   - A YAML, TOML or JSON block that is a whole configuration file (YAML or
//     TOML with a top-level "version", JSON with a top-level "version" or
//     "permissions") must load with its inline examples passing and lint
//     without an error: toolgate lint --config FILE.
//   - When the prose line just before such a block names a file in
//     backquotes (".toolgate/policy.yaml in a project:"), or a marker
//     comment <!-- docs-test: file PATH --> precedes it, the block is also
//     written at PATH in the example project, /work/app (with a .git), where
//     the console blocks that follow in the same Markdown file run.
//   - A console block holds commands after "$ " and their expected output up
//     to the next command. "echo 'LINE' | toolgate …" feeds LINE on standard
//     input. In the expected output, "..." stands for any text, and a line
//     that is only "..." for any number of lines.
//   - A sh block's lines that run toolgate ("toolgate …" or
//     "go run ./cmd/toolgate …") must exit 0.
//   - <!-- docs-test: skip --> before a block skips it; other blocks (go,
//     plain text, grammar, usage, partial files) are not run.
//
// Paths in the output are shown as if the example project were /work/app
// and the home directory /home/you.
func TestDocs(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append([]string{"../../README.md"}, files...)
	// The behaviour specification's examples, where the shared tree is
	// beside the repository (SPEC §9's full example must load).
	if _, err := os.Stat(specFile); err == nil {
		files = append(files, specFile)
	}
	ran := 0
	for _, file := range files {
		blocks, err := readBlocks(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(strings.TrimPrefix(file, "../../../"), "../../")
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			proj := filepath.Join(root, "work", "app")
			home := filepath.Join(root, "home", "you")
			for _, d := range []string{filepath.Join(proj, ".git"), home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			env := docEnv{t: t, root: root, proj: proj, home: home}
			before := ran
			defer func() { t.Logf("%d examples run", ran-before) }()
			for _, b := range blocks {
				if b.skip {
					continue
				}
				where := fmt.Sprintf("%s:%d", name, b.line)
				switch {
				case b.isConfig():
					env.config(where, b)
					ran++
				case b.lang == "console":
					ran += env.console(where, b)
				case b.lang == "sh" || b.lang == "bash":
					ran += env.sh(where, b)
				}
			}
		})
	}
	if ran == 0 {
		t.Fatal("no examples found")
	}
}

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	lang, text string
	line       int    // of the opening fence
	file       string // the path the block is written at, if any
	skip       bool
}

// specFile is SPEC.md in the shared tree beside the repository.
const specFile = "../../../shared/SPEC.md"

var (
	markerRE   = regexp.MustCompile(`^<!--\s*docs-test:\s*(skip|file\s+(\S+))\s*-->$`)
	namedRE    = regexp.MustCompile("`([^`\\s]+\\.(?:ya?ml|toml|json))`[^`]*:$")
	topVersion = regexp.MustCompile(`(?m)^version\s*[:=]`)
)

func readBlocks(file string) ([]docBlock, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []docBlock
	var cur *docBlock
	var body []string
	prev := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if cur != nil {
			if strings.HasPrefix(line, "```") {
				cur.text = strings.Join(body, "\n") + "\n"
				out = append(out, *cur)
				cur, body = nil, nil
			} else {
				body = append(body, line)
			}
			continue
		}
		if strings.HasPrefix(line, "```") {
			cur = &docBlock{lang: strings.TrimSpace(line[3:]), line: n}
			if m := markerRE.FindStringSubmatch(strings.TrimSpace(prev)); m != nil {
				cur.skip = m[1] == "skip"
				cur.file = m[2]
			} else if m := namedRE.FindStringSubmatch(strings.TrimSpace(prev)); m != nil {
				cur.file = m[1]
			}
			continue
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	return out, sc.Err()
}

func (b docBlock) isConfig() bool {
	switch b.lang {
	case "yaml", "yml", "toml":
		return topVersion.MatchString(b.text)
	case "json":
		t := strings.TrimSpace(b.text)
		return strings.HasPrefix(t, "{") && (strings.Contains(t, `"version"`) || strings.Contains(t, `"permissions"`)) && !strings.Contains(t, `"decision"`)
	}
	return false
}

func (b docBlock) ext() string {
	switch b.lang {
	case "yml":
		return "yaml"
	}
	return b.lang
}

// docEnv is the example project of one Markdown file.
type docEnv struct {
	t                *testing.T
	root, proj, home string
	n                int
}

// run runs toolgate in the example project.
func (e *docEnv) run(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	vars := map[string]string{"HOME": e.home, "XDG_CONFIG_HOME": filepath.Join(e.home, ".config")}
	c := &cli{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
		getenv:      func(k string) string { return vars[k] },
		getwd:       func() (string, error) { return e.proj, nil },
		interactive: func() bool { return false }}
	code := c.main(args)
	return code, e.display(out.String()), e.display(errb.String())
}

// display shows the temporary paths as the documentation writes them.
func (e *docEnv) display(s string) string {
	s = strings.ReplaceAll(s, e.home, "/home/you")
	return strings.ReplaceAll(s, e.root, "")
}

func (e *docEnv) config(where string, b docBlock) {
	e.n++
	p := filepath.Join(e.root, "docs", fmt.Sprintf("example%d.%s", e.n, b.ext()))
	if b.file != "" {
		p = filepath.Join(e.proj, b.file)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(b.text), 0o644); err != nil {
		e.t.Fatal(err)
	}
	code, out, errs := e.run("", "lint", "--config", p)
	if code != 0 {
		e.t.Errorf("%s: the example file does not load or lints with errors (exit %d):\n%s%s", where, code, out, errs)
	}
}

func (e *docEnv) console(where string, b docBlock) int {
	type step struct {
		cmd  string
		want []string
		line int
	}
	var steps []step
	for i, l := range strings.Split(strings.TrimRight(b.text, "\n"), "\n") {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			steps = append(steps, step{cmd: c, line: b.line + 1 + i})
			continue
		}
		if len(steps) > 0 {
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
		}
	}
	n := 0
	for _, s := range steps {
		stdin, args, ok := toolgateCommand(s.cmd)
		if !ok {
			continue
		}
		n++
		_, out, errs := e.run(stdin, args...)
		for len(s.want) > 0 && strings.TrimSpace(s.want[len(s.want)-1]) == "" {
			s.want = s.want[:len(s.want)-1]
		}
		if !matchLines(s.want, strings.Split(strings.TrimRight(out, "\n"), "\n")) {
			e.t.Errorf("%s (line %d): $ %s\nwant:\n%s\ngot:\n%s%s", where, s.line, s.cmd, strings.Join(s.want, "\n"), out, errs)
		}
	}
	return n
}

func (e *docEnv) sh(where string, b docBlock) int {
	n := 0
	for i, l := range strings.Split(b.text, "\n") {
		l = strings.TrimSpace(l)
		if j := strings.Index(l, " #"); j >= 0 && !strings.Contains(l[:j], "'") {
			l = strings.TrimSpace(l[:j])
		}
		stdin, args, ok := toolgateCommand(l)
		if !ok {
			continue
		}
		n++
		if code, out, errs := e.run(stdin, args...); code != 0 {
			e.t.Errorf("%s (line %d): %s: exit %d\n%s%s", where, b.line+1+i, l, code, out, errs)
		}
	}
	return n
}

// toolgateCommand reads a documented command line that runs toolgate:
// "toolgate ARGS", "go run ./cmd/toolgate ARGS", optionally after
// "echo 'LINE' |".
func toolgateCommand(line string) (stdin string, args []string, ok bool) {
	words, ok := shellWords(line)
	if !ok || len(words) == 0 {
		return "", nil, false
	}
	if len(words) > 3 && words[0] == "echo" && words[2] == "|" {
		stdin, words = words[1]+"\n", words[3:]
	}
	switch {
	case len(words) > 0 && words[0] == "toolgate":
		words = words[1:]
	case len(words) > 2 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/toolgate":
		words = words[3:]
	default:
		return "", nil, false
	}
	for _, w := range words {
		if w == "|" || w == ">" || w == "&&" || w == ";" {
			return "", nil, false // not a plain toolgate command
		}
	}
	return stdin, words, true
}

// shellWords splits a command line as a POSIX shell would, for the quoting
// documentation uses: single and double quotes and backslashes.
func shellWords(s string) ([]string, bool) {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, false
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out, true
}

// matchLines matches output lines against expected ones, where "..." is any
// text and a line of only "..." any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || len(got) == 1 && got[0] == ""
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 || !matchLine(want[0], got[0]) {
		return false
	}
	return matchLines(want[1:], got[1:])
}

func matchLine(want, got string) bool {
	parts := strings.Split(want, "...")
	re := "^"
	for i, p := range parts {
		if i > 0 {
			re += ".*"
		}
		re += regexp.QuoteMeta(p)
	}
	ok, _ := regexp.MatchString(re+"$", got)
	return ok
}

func TestDocsHelpers(t *testing.T) {
	if w, ok := shellWords(`toolgate check --input '{"a": 1}' "x y" a\ b`); !ok || strings.Join(w, "|") != `toolgate|check|--input|{"a": 1}|x y|a b` {
		t.Errorf("shellWords = %q", w)
	}
	if !matchLines([]string{"deny", "  rule: ... (deny, ...)", "..."}, []string{"deny", "  rule: X (deny, p:1:2)", "  part: y", "z"}) {
		t.Error("matchLines with ... lines")
	}
	if matchLines([]string{"deny"}, []string{"deny", "more"}) {
		t.Error("matchLines accepts extra output")
	}
	in, args, ok := toolgateCommand(`echo '{"tool":"Bash"}' | toolgate check --json`)
	if !ok || in != "{\"tool\":\"Bash\"}\n" || strings.Join(args, " ") != "check --json" {
		t.Errorf("toolgateCommand = %q %q %v", in, args, ok)
	}
}
