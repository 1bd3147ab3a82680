package config

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/toolgate/toolgate"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestLoad runs the cases in testdata/load/*.txtar. An archive's comment
// holds directives, one a line:
//
//	cwd DIR | home DIR | ucd DIR | config [SOURCE=]FILE | claude | builtin | build
//	call [@mode=MODE] [@agent=NAME] TOOL INPUT   (builds, then decides the call)
//
// Its files, named by absolute path, form the file system; the "out" file is
// the golden rendering of the result (rewritten with -update).
func TestLoad(t *testing.T) {
	files, err := filepath.Glob("testdata/load/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ar := txtar.Parse(data)
			opts := Options{FS: fstest.MapFS{}}
			build := false
			type callLine struct {
				text string
				call toolgate.Call
			}
			var calls []callLine
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				f := strings.Fields(line)
				if len(f) == 0 || strings.HasPrefix(f[0], "#") {
					continue
				}
				arg := ""
				if len(f) > 1 {
					arg = f[1]
				}
				switch f[0] {
				case "cwd":
					opts.Cwd = arg
				case "home":
					opts.Home = arg
				case "ucd":
					opts.UserConfigDir = arg
				case "config":
					opts.Explicit = append(opts.Explicit, arg)
				case "claude":
					opts.Claude = true
				case "builtin":
					opts.Builtin = true
				case "build":
					build = true
				case "call":
					build = true
					rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "call"))
					cl := callLine{text: rest}
					for strings.HasPrefix(rest, "@") {
						opt, r, _ := strings.Cut(rest, " ")
						rest = strings.TrimSpace(r)
						k, v, _ := strings.Cut(opt[1:], "=")
						switch k {
						case "mode":
							var m toolgate.Mode
							err := m.UnmarshalText([]byte(v))
							if err != nil {
								t.Fatal(err)
							}
							cl.call.Mode = &m
						case "agent":
							cl.call.Agent = v
						default:
							t.Fatalf("unknown call option %q", opt)
						}
					}
					tool, input, _ := strings.Cut(rest, " ")
					cl.call.Tool, cl.call.Input = tool, []byte(input)
					calls = append(calls, cl)
				default:
					t.Fatalf("unknown directive %q", line)
				}
			}
			fsys := fstest.MapFS{}
			outIdx := -1
			for i, f := range ar.Files {
				if f.Name == "out" {
					outIdx = i
					continue
				}
				fsys[strings.TrimPrefix(f.Name, "/")] = &fstest.MapFile{Data: f.Data}
			}
			opts.FS = fsys
			var got string
			if build {
				cfg, set, err := Build(&opts)
				got = render(set, err)
				got += fmt.Sprintf("config: %v\n", cfg != nil)
				for _, cl := range calls {
					if cfg == nil {
						break
					}
					c := cl.call
					c.Cwd, c.Home = opts.Cwd, opts.Home
					d := cfg.Decide(c)
					got += fmt.Sprintf("call %s\n  => %s", cl.text, d.Outcome)
					for i, r := range d.Reasons {
						if i > 0 {
							got += "\n    "
						} else {
							got += " "
						}
						got += r.String()
					}
					if d.Input != nil {
						got += "\n    input: " + string(d.Input)
					}
					got += "\n"
				}
			} else {
				set, err := Load(&opts)
				got = render(set, err)
			}
			if *update {
				if outIdx < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "out"})
					outIdx = len(ar.Files) - 1
				}
				ar.Files[outIdx].Data = []byte(got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o666); err != nil {
					t.Fatal(err)
				}
				return
			}
			if outIdx < 0 {
				t.Fatalf("no out file; run with -update")
			}
			if want := string(ar.Files[outIdx].Data); got != want {
				t.Errorf("mismatch (run with -update to accept)\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// render is a readable rendering of a load's result.
func render(set *Set, err error) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "error: %v\n", err != nil)
	if set == nil {
		return b.String()
	}
	if len(set.Diags) > 0 {
		b.WriteString("diagnostics:\n")
		for _, d := range set.Diags {
			fmt.Fprintf(&b, "  [%s] %s\n", d.Code, d)
		}
	}
	for _, f := range set.Files {
		fmt.Fprintf(&b, "file %s: %s %s source=%s trusted=%v", f.Path, f.Format, f.Kind, f.Source, f.Trusted)
		if len(f.TrustedProjects) > 0 {
			fmt.Fprintf(&b, " trusted_projects=%v", f.TrustedProjects)
		}
		if f.IncludeClaudeSettings {
			b.WriteString(" include_claude_settings")
		}
		b.WriteString("\n")
		for _, ex := range f.Examples {
			fmt.Fprintf(&b, "  example @%d:%d %s %s cwd=%s", ex.Pos.Line, ex.Pos.Column, ex.Call.Tool, ex.Call.Input, ex.Call.Cwd)
			if ex.ExpectNot {
				b.WriteString(" expect-not")
			} else {
				b.WriteString(" expect")
			}
			fmt.Fprintf(&b, " %s", ex.Expect)
			if ex.Mode != nil {
				fmt.Fprintf(&b, " mode=%s", ex.Mode)
			}
			if ex.Call.Agent != "" {
				fmt.Fprintf(&b, " agent=%s", ex.Call.Agent)
			}
			if ex.Rule != "" {
				fmt.Fprintf(&b, " rule=%q", ex.Rule)
			}
			b.WriteString("\n")
		}
	}
	for i, l := range set.Layers {
		b.WriteString(renderLayer(i, l))
	}
	return b.String()
}

func renderLayer(i int, l toolgate.Layer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "layer %d: %s", i, l.Source)
	if l.File != "" {
		fmt.Fprintf(&b, " file=%s root=%s", l.File, l.Root)
	}
	if l.ClaudeSettings {
		b.WriteString(" claude")
	}
	b.WriteString("\n")
	rules := func(name string, rs []toolgate.RuleSpec) {
		for _, r := range rs {
			fmt.Fprintf(&b, "  %s %q @%d:%d\n", name, r.Text, r.Pos.Line, r.Pos.Column)
		}
	}
	rules("allow", l.Allow)
	rules("deny", l.Deny)
	rules("ask", l.Ask)
	if l.Default != nil {
		fmt.Fprintf(&b, "  default %s\n", *l.Default)
	}
	if l.DefaultReadOnly != nil {
		fmt.Fprintf(&b, "  default_read_only %s\n", *l.DefaultReadOnly)
	}
	if l.Precedence != nil {
		fmt.Fprintf(&b, "  precedence %s\n", *l.Precedence)
	}
	if l.Mode != nil {
		fmt.Fprintf(&b, "  mode %s\n", *l.Mode)
	}
	if l.Enabled != nil {
		fmt.Fprintf(&b, "  enabled %v\n", *l.Enabled)
	}
	for _, d := range l.AdditionalDirectories {
		fmt.Fprintf(&b, "  additional_directory %s\n", d)
	}
	rules("protected", l.ProtectedPaths)
	rules("unprotected", l.UnprotectedPaths)
	for _, ts := range l.Tools {
		fmt.Fprintf(&b, "  tool %q @%d:%d", ts.Pattern, ts.Pos.Line, ts.Pos.Column)
		if ts.Kind != nil {
			fmt.Fprintf(&b, " kind=%s", *ts.Kind)
		}
		if ts.Field != nil {
			fmt.Fprintf(&b, " field=%s", *ts.Field)
		}
		if ts.ReadOnly != nil {
			fmt.Fprintf(&b, " read_only=%v", *ts.ReadOnly)
		}
		if ts.ExcludesDenied != nil {
			fmt.Fprintf(&b, " excludes_denied=%v", *ts.ExcludesDenied)
		}
		b.WriteString("\n")
	}
	for _, rw := range l.Rewrites {
		fmt.Fprintf(&b, "  rewrite %q @%d:%d\n", rw.Match.Text, rw.Match.Pos.Line, rw.Match.Pos.Column)
		for _, s := range rw.Set {
			fmt.Fprintf(&b, "    set %q = %s @%d:%d\n", s.Pointer, s.Value, s.Pos.Line, s.Pos.Column)
		}
		for _, r := range rw.Remove {
			fmt.Fprintf(&b, "    remove %q @%d:%d\n", r.Pointer, r.Pos.Line, r.Pos.Column)
		}
	}
	for _, name := range sortedKeys(l.Agents) {
		a := l.Agents[name]
		fmt.Fprintf(&b, "  agent %s @%d:%d\n", name, a.Pos.Line, a.Pos.Column)
		for _, r := range a.Allow {
			fmt.Fprintf(&b, "    allow %q @%d:%d\n", r.Text, r.Pos.Line, r.Pos.Column)
		}
		for _, r := range a.Deny {
			fmt.Fprintf(&b, "    deny %q @%d:%d\n", r.Text, r.Pos.Line, r.Pos.Column)
		}
		for _, r := range a.Ask {
			fmt.Fprintf(&b, "    ask %q @%d:%d\n", r.Text, r.Pos.Line, r.Pos.Column)
		}
		if a.Default != nil {
			fmt.Fprintf(&b, "    default %s\n", *a.Default)
		}
		if a.DefaultReadOnly != nil {
			fmt.Fprintf(&b, "    default_read_only %s\n", *a.DefaultReadOnly)
		}
		if a.Mode != nil {
			fmt.Fprintf(&b, "    mode %s\n", *a.Mode)
		}
	}
	if l.AllowManagedRulesOnly {
		b.WriteString("  allow_managed_rules_only\n")
	}
	for _, m := range l.DisableModes {
		fmt.Fprintf(&b, "  disable_mode %s\n", m)
	}
	return b.String()
}
