package toolgate_test

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
	"golang.org/x/tools/txtar"
)

// The case corpus lives in testdata/corpus/*.txtar. Each archive holds:
//
//	-- policy.json --   layers (JSON, see corpusPolicy) and fake symlinks
//	-- cases --         one case per line:
//	                    [@mode=M] [@agent=A] [@cwd=D] [@server=S] [@nonint] TOOL INPUT => OUTCOME [KIND [RULE]]
//
// Lines starting with # are comments. OUTCOME is allow, ask, deny or
// modify; KIND is the deciding reason's kind; RULE is the deciding rule's
// text (the rest of the line).
type corpusPolicy struct {
	Layers   []corpusLayer     `json:"layers"`
	Symlinks map[string]string `json:"symlinks"`
}

type corpusLayer struct {
	Source          string            `json:"source"`
	File            string            `json:"file"`
	Root            string            `json:"root"`
	Allow           []string          `json:"allow"`
	Deny            []string          `json:"deny"`
	Ask             []string          `json:"ask"`
	Default         string            `json:"default"`
	DefaultReadOnly string            `json:"default_read_only"`
	Precedence      string            `json:"precedence"`
	Mode            json.RawMessage   `json:"mode"`
	Enabled         *bool             `json:"enabled"`
	Additional      []string          `json:"additional_directories"`
	Protected       []string          `json:"protected_paths"`
	Tools           map[string]string `json:"tools"` // name → kind[:field][:ro]
	Claude          bool              `json:"claude"`
}

func (cl corpusLayer) layer(t *testing.T) toolgate.Layer {
	t.Helper()
	src, err := toolgate.ParseSource(cl.Source)
	if err != nil {
		t.Fatal(err)
	}
	l := toolgate.Layer{Source: src, File: cl.File, Root: cl.Root, AdditionalDirectories: cl.Additional, ClaudeSettings: cl.Claude}
	specs := func(rs []string) []toolgate.RuleSpec {
		var out []toolgate.RuleSpec
		for i, r := range rs {
			out = append(out, toolgate.RuleSpec{Text: r, Pos: toolgate.Position{File: cl.File, Line: i + 1, Column: 1}})
		}
		return out
	}
	l.Allow, l.Deny, l.Ask = specs(cl.Allow), specs(cl.Deny), specs(cl.Ask)
	for _, p := range cl.Protected {
		l.ProtectedPaths = append(l.ProtectedPaths, toolgate.RuleSpec{Text: p})
	}
	if cl.Default != "" {
		o, err := toolgate.ParseOutcome(cl.Default)
		if err != nil {
			t.Fatal(err)
		}
		l.Default = &o
	}
	if cl.DefaultReadOnly != "" {
		o, err := toolgate.ParseOutcome(cl.DefaultReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		l.DefaultReadOnly = &o
	}
	if cl.Precedence != "" {
		p, err := toolgate.ParsePrecedence(cl.Precedence)
		if err != nil {
			t.Fatal(err)
		}
		l.Precedence = &p
	}
	if len(cl.Mode) > 0 {
		var s string
		text := string(cl.Mode)
		if json.Unmarshal(cl.Mode, &s) == nil {
			text = s
		}
		m, err := toolgate.ParseMode(text)
		if err != nil {
			t.Fatal(err)
		}
		l.Mode = &m
	}
	l.Enabled = cl.Enabled
	for name, spec := range cl.Tools {
		parts := strings.Split(spec, ":")
		k, err := toolgate.ParseKind(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		ts := toolgate.ToolSpec{Pattern: name, Kind: &k}
		if len(parts) > 1 && parts[1] != "" {
			f := parts[1]
			ts.Field = &f
		}
		if len(parts) > 2 && parts[2] == "ro" {
			ro := true
			ts.ReadOnly = &ro
		}
		l.Tools = append(l.Tools, ts)
	}
	return l
}

// corpusResolver resolves fake symlinks: a path below a link resolves
// below its target.
func corpusResolver(links map[string]string) func(string) (string, error) {
	return func(p string) (string, error) {
		for i := 0; i < 8; i++ {
			changed := false
			for link, target := range links {
				if p == link || strings.HasPrefix(p, link+"/") {
					p = path.Join(target, strings.TrimPrefix(p, link))
					changed = true
				}
			}
			if !changed {
				break
			}
		}
		return p, nil
	}
}

type corpusCase struct {
	line    int
	call    toolgate.Call
	outcome string
	kind    string
	rule    string
}

func parseCases(t *testing.T, name string, data []byte) []corpusCase {
	var cases []corpusCase
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		arrow := strings.LastIndex(line, " => ")
		if arrow < 0 {
			t.Fatalf("%s:%d: no \" => \"", name, i+1)
		}
		lhs, rhs := line[:arrow], strings.TrimSpace(line[arrow+4:])
		c := corpusCase{line: i + 1, call: toolgate.Call{Cwd: "/p", Home: "/home/u"}}
		for strings.HasPrefix(lhs, "@") {
			sp := strings.IndexByte(lhs, ' ')
			opt := lhs[1:sp]
			lhs = strings.TrimSpace(lhs[sp:])
			k, v, _ := strings.Cut(opt, "=")
			switch k {
			case "mode":
				m, err := toolgate.ParseMode(v)
				if err != nil {
					t.Fatalf("%s:%d: %v", name, i+1, err)
				}
				c.call.Mode = &m
			case "agent":
				c.call.Agent = v
			case "cwd":
				c.call.Cwd = v
			case "server":
				c.call.Server = v
			case "nonint":
				c.call.NonInteractive = true
			default:
				t.Fatalf("%s:%d: unknown option %q", name, i+1, k)
			}
		}
		tool, input, _ := strings.Cut(lhs, " ")
		c.call.Tool = tool
		c.call.Input = json.RawMessage(strings.TrimSpace(input))
		fs := strings.SplitN(rhs, " ", 3)
		c.outcome = fs[0]
		if len(fs) > 1 {
			c.kind = fs[1]
		}
		if len(fs) > 2 {
			c.rule = fs[2]
		}
		cases = append(cases, c)
	}
	return cases
}

func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	total := 0
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var pol corpusPolicy
		var cases []corpusCase
		for _, af := range ar.Files {
			switch af.Name {
			case "policy.json":
				if err := json.Unmarshal(af.Data, &pol); err != nil {
					t.Fatalf("%s: policy.json: %v", f, err)
				}
			case "cases":
				cases = parseCases(t, f, af.Data)
			}
		}
		var layers []toolgate.Layer
		for _, cl := range pol.Layers {
			layers = append(layers, cl.layer(t))
		}
		opts := toolgate.Options{UserConfigDir: "/home/u/.config/toolgate"}
		if pol.Symlinks != nil {
			opts.ResolveSymlinks = corpusResolver(pol.Symlinks)
		}
		cfg, err := toolgate.Compile(layers, &opts)
		if err != nil {
			t.Fatalf("%s: compile: %v", f, err)
		}
		for _, c := range cases {
			total++
			name := fmt.Sprintf("%s:%d", filepath.Base(f), c.line)
			d := cfg.Decide(c.call)
			got := d.Outcome.String()
			r := d.Reason()
			if got != c.outcome || (c.kind != "" && string(r.Kind) != c.kind) || (c.rule != "" && r.Rule != c.rule) {
				t.Errorf("%s: %s %s\n\tgot  %s %s %s\n\twant %s %s %s\n\treasons: %+v", name, c.call.Tool, c.call.Input, got, r.Kind, r.Rule, c.outcome, c.kind, c.rule, d.Reasons)
			}
		}
	}
	t.Logf("%d corpus cases", total)
}
