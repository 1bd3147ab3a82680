package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/toolgate/toolgate"
)

// TestClaudeSettingsFiles loads the real-looking Claude Code settings files
// in testdata/claude (each written for these tests, with the shapes real
// files hold: deny rules with a space before :*, padded rules, assignments,
// escaped parentheses, MCP globs, Skill, PowerShell and alias entries) as a
// project's .claude/settings.json, and checks that each loads without an
// error and decides its .cases file: lines "TOOL INPUT => OUTCOME [RULE]".
func TestClaudeSettingsFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/claude/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no settings files: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fsys := fstest.MapFS{
				"proj/.git/HEAD":             {Data: []byte("ref: refs/heads/main\n")},
				"proj/.claude/settings.json": {Data: data},
			}
			// Named explicitly, the file is trusted: its allow rules count.
			cfg, set, err := Build(&Options{FS: fsys, Cwd: "/proj", Home: "/home/u", Explicit: []string{"project=/proj/.claude/settings.json"}, Builtin: true})
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			for _, d := range set.Diags {
				if d.Severity == toolgate.SeverityError {
					t.Errorf("diagnostic: %v", d)
				}
			}
			if k := set.Files[0].Kind; k != Claude {
				t.Fatalf("read as %v, want claude", k)
			}
			// Found by discovery, the untrusted file still loads (its allow
			// rules ignored with a warning).
			if _, set2, err := Build(&Options{FS: fsys, Cwd: "/proj", Home: "/home/u", Claude: true, Builtin: true}); err != nil {
				t.Errorf("discovered: %v", err)
			} else if strings.Contains(string(data), `"allow"`) && !strings.Contains(set2.Diags.Error(), "allow rule") {
				t.Errorf("discovered: no warning about the ignored allow rules: %v", set2.Diags)
			}
			cases, err := os.ReadFile(strings.TrimSuffix(file, ".json") + ".cases")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for i, line := range strings.Split(string(cases), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.HasPrefix(line, "#") {
					continue
				}
				lhs, rhs, ok := strings.Cut(line, " => ")
				tool, input, ok2 := strings.Cut(lhs, " ")
				if !ok || !ok2 {
					t.Fatalf("%s.cases:%d: malformed", name, i+1)
				}
				want, ruleText, _ := strings.Cut(rhs, " ")
				var o toolgate.Outcome
				err := o.UnmarshalText([]byte(want))
				if err != nil {
					t.Fatalf("%s.cases:%d: %v", name, i+1, err)
				}
				d := cfg.Decide(toolgate.Call{Tool: tool, Input: []byte(input), Cwd: "/proj", Home: "/home/u"})
				if p := Mismatch(d, o, false, ruleText); p != "" {
					t.Errorf("%s.cases:%d: %s: %s (reason %v)", name, i+1, lhs, p, d.Reason())
				}
				n++
			}
			if n == 0 {
				t.Errorf("%s.cases: no cases", name)
			}
		})
	}
}

// A JSON file that starts with a UTF-8 byte-order mark is an error naming
// the mark, at 1:1: Claude Code rejects such a file too.
func TestClaudeBOM(t *testing.T) {
	data := []byte("\xef\xbb\xbf{\"permissions\": {\"deny\": [\"Bash(rm:*)\"]}}")
	_, diags := Parse("/p/.claude/settings.json", data, toolgate.SourceProject, true)
	err := diags.Err()
	if err == nil || !strings.Contains(err.Error(), "byte-order mark") || !strings.Contains(err.Error(), "settings.json:1:1") {
		t.Fatalf("BOM: got %v", err)
	}
}

// additionalDirectories in <root>/.claude/settings.json resolve against the
// project root, as Claude Code resolves them; in toolgate's own format,
// against the file's directory (SPEC §4.2).
func TestClaudeAdditionalDirectories(t *testing.T) {
	tests := []struct {
		file, data, want string
	}{
		{"/w/app/.claude/settings.json", `{"permissions": {"additionalDirectories": ["../seer"]}}`, "/w/seer"},
		{"/w/app/.claude/settings.json", `{"permissions": {"additionalDirectories": ["lib"]}}`, "/w/app/lib"},
		{"/w/app/.claude/settings.local.json", `{"permissions": {"additionalDirectories": ["../seer"]}}`, "/w/seer"},
		{"/w/app/.claude/settings.json", `{"permissions": {"additionalDirectories": ["/abs/dir"]}}`, "/abs/dir"},
		{"/w/app/.toolgate/policy.yaml", "version: 1\nadditional_directories: [\"../seer\"]\n", "/w/app/seer"},
	}
	for _, tt := range tests {
		f, diags := Parse(tt.file, []byte(tt.data), toolgate.SourceProject, true)
		if err := diags.Err(); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if len(f.Layers) == 0 || len(f.Layers[0].AdditionalDirectories) != 1 || f.Layers[0].AdditionalDirectories[0] != tt.want {
			t.Errorf("%s %s: layers %+v, want %s", tt.file, tt.data, f.Layers, tt.want)
		}
	}
}
