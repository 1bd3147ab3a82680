package config

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/toolgate/toolgate"
)

// ruleTexts returns the texts of rules.
func ruleTexts(rs []toolgate.RuleSpec) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Text)
	}
	return out
}

// TestRulePositions checks that a rule's position is that of its first
// character, in characters, in every format and quoting style.
func TestRulePositions(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line, col int
	}{
		{"a.yaml", "version: 1\ndeny: [Bash]", 2, 8},
		{"a.yaml", "version: 1\ndeny: [\"Bash\"]", 2, 9},
		{"a.yaml", "version: 1\ndeny: ['Bash']", 2, 9},
		{"a.yaml", "version: 1\ndeny:\n  - ééé: x\n", 0, 0}, // a map is a type error
		{"a.yaml", "version: 1 # é\ndeny: [\"ö\", \"Bash\"]", 2, 14},
		{"a.yaml", "version: 1\ndeny:\n  - >-\n\n      Bash(rm *)\n", 5, 7},
		{"a.json", "{\"version\":1,\n \"deny\": [\"ü\", \"Bash\"]}", 2, 17},
		{"a.json", "{\"version\":1,\"deny\":[\t\"Bash\"]}", 1, 24},
		{"a.toml", "version = 1\ndeny = ['ä', \"Bash\"]", 2, 15},
		{"a.toml", "version = 1\ndeny = [\n\"\"\"\nBash\"\"\"]", 4, 1},
		{"a.toml", "version = 1\n[[layers]]\nsource = \"user\"\ndeny = [ 'x', '''Bash''' ]", 4, 18},
	} {
		f, d := Parse("/p/"+tc.name, []byte(tc.src), toolgate.SourceCLI, true)
		if tc.line == 0 {
			if d.Err() == nil {
				t.Errorf("%s %q: want an error", tc.name, tc.src)
			}
			continue
		}
		if d.Err() != nil {
			t.Errorf("%s %q: %v", tc.name, tc.src, d)
			continue
		}
		var last toolgate.RuleSpec
		for _, l := range f.Layers {
			if n := len(l.Deny); n > 0 {
				last = l.Deny[n-1]
			}
		}
		if last.Pos.Line != tc.line || last.Pos.Column != tc.col || last.Pos.File != "/p/"+tc.name {
			t.Errorf("%s %q: rule %q at %v, want %d:%d", tc.name, tc.src, last.Text, last.Pos, tc.line, tc.col)
		}
	}
}

func TestSizeLimit(t *testing.T) {
	big := "version: 1\n#" + strings.Repeat("x", MaxFileSize) + "\n"
	_, d := Parse("/p/big.yaml", []byte(big), toolgate.SourceCLI, true)
	if d.Err() == nil || d[0].Code != "size" {
		t.Fatalf("want a size error, got %v", d)
	}
	set, err := Load(&Options{FS: fstest.MapFS{"p/big.yaml": {Data: []byte(big)}}, Explicit: []string{"/p/big.yaml"}})
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("Load: want a size error, got %v", err)
	}
	if len(set.Layers) != 0 {
		t.Fatal("a failed file contributed layers")
	}
}

func TestInvalidUTF8(t *testing.T) {
	_, d := Parse("/p/a.yaml", []byte("version: 1\ndeny: [\"a\xffb\"]"), toolgate.SourceCLI, true)
	if d.Err() == nil || !strings.HasPrefix(d[0].String(), "/p/a.yaml:2:10: invalid UTF-8") {
		t.Fatalf("got %v", d)
	}
}

// TestUntrustedParse: Parse with trusted=false keeps denies and drops what
// loosens, compared with the built-in default.
func TestUntrustedParse(t *testing.T) {
	src := "version: 1\nallow: [Bash]\ndeny: [Edit]\nask: [Read]\ndefault: deny\ndefault_read_only: ask\nmode: dontAsk\n"
	f, d := Parse("/w/.toolgate/policy.yaml", []byte(src), toolgate.SourceProject, false)
	if d.Err() != nil {
		t.Fatal(d)
	}
	l := f.Layers[0]
	if len(l.Allow) != 0 || len(l.Deny) != 1 || len(l.Ask) != 1 {
		t.Fatalf("rules: allow %v deny %v ask %v", l.Allow, l.Deny, l.Ask)
	}
	if *l.Default != toolgate.Deny || *l.DefaultReadOnly != toolgate.Ask || l.Mode.Name != toolgate.ModeDontAsk {
		t.Fatalf("settings: %v %v %v", *l.Default, *l.DefaultReadOnly, *l.Mode)
	}
	if l.Root != "/w" {
		t.Fatalf("root %q", l.Root)
	}
}

// Every legacy behaviour of seed 004 that the migration keeps or fixes.
func TestLegacyMigration(t *testing.T) {
	parse := func(t *testing.T, src string) (*File, toolgate.Diagnostics) {
		t.Helper()
		f, d := Parse("/p/old.json", []byte(src), toolgate.SourceCLI, true)
		if d.Err() != nil {
			t.Fatal(d)
		}
		if f.Kind != Legacy || len(f.Layers) != 1 || f.Layers[0].Source != toolgate.SourceUser {
			t.Fatalf("not migrated into one user layer: %+v", f)
		}
		return f, d
	}
	hasWarning := func(d toolgate.Diagnostics, sub string) bool {
		for _, x := range d {
			if x.Severity == toolgate.SeverityWarning && strings.Contains(x.Message, sub) {
				return true
			}
		}
		return false
	}
	t.Run("allow list denies the unlisted (kept)", func(t *testing.T) {
		f, d := parse(t, `{"mode": "default", "allow": ["Read"]}`)
		if l := f.Layers[0]; l.Default == nil || *l.Default != toolgate.Deny {
			t.Fatal("a non-empty allow list must migrate to default: deny")
		}
		if !hasWarning(d, "default: deny") {
			t.Fatal("no warning for the allow-list change")
		}
	})
	t.Run("explicit default kept beside the allow list", func(t *testing.T) {
		f, _ := parse(t, `{"mode": "default", "allow": ["Read"], "deny": ["Bash"]}`)
		if *f.Layers[0].Default != toolgate.Deny || ruleTexts(f.Layers[0].Deny)[0] != "Bash" {
			t.Fatal("deny list lost")
		}
	})
	t.Run("mode deny means strict (kept)", func(t *testing.T) {
		f, d := parse(t, `{"mode": "deny"}`)
		if f.Layers[0].Mode.Name != toolgate.ModeStrict || !hasWarning(d, "strict") {
			t.Fatal("mode deny must become strict with a warning")
		}
	})
	t.Run("interactive list and interactive mode", func(t *testing.T) {
		f, _ := parse(t, `{"mode": "interactive", "interactive": ["Bash"]}`)
		if f.Layers[0].Mode.Name != toolgate.ModeDontAsk || ruleTexts(f.Layers[0].Ask)[0] != "Bash" {
			t.Fatalf("interactive: %+v", f.Layers[0])
		}
	})
	t.Run("bypass no longer skips denies (fixed, warned)", func(t *testing.T) {
		f, d := parse(t, `{"mode": "bypass_permissions", "deny": ["Bash"]}`)
		if f.Layers[0].Mode.Name != toolgate.ModeBypassPermissions || len(f.Layers[0].Deny) != 1 || !hasWarning(d, "skipped deny rules") {
			t.Fatal("bypass migration")
		}
	})
	t.Run("acceptEdits no longer covers shell (fixed, warned)", func(t *testing.T) {
		_, d := parse(t, `{"mode": "accept_edits"}`)
		if !hasWarning(d, "shell included") {
			t.Fatal("no warning")
		}
	})
	t.Run("plan flag", func(t *testing.T) {
		f, _ := parse(t, `{"plan": {"bypass_available": true}}`)
		if m := f.Layers[0].Mode; m.Name != toolgate.ModePlan || !m.BypassAvailable {
			t.Fatalf("plan: %+v", m)
		}
	})
	t.Run("allow patterns keep their old meaning", func(t *testing.T) {
		f, d := parse(t, `{"mode": "default", "allow": ["Bash", "mcp__gh*", "a*b"]}`)
		// "a*b" never matched (the "*" was literal): dropped, never widened.
		if got := strings.Join(ruleTexts(f.Layers[0].Allow), ","); got != "Bash,mcp__gh*" {
			t.Fatalf("allow = %s", got)
		}
		if !hasWarning(d, "never matched") {
			t.Fatal("no warning for the dropped rule")
		}
	})
	t.Run("deny patterns widen, with a warning", func(t *testing.T) {
		_, d := parse(t, `{"mode": "default", "deny": ["Bash", "a*b"]}`)
		if !hasWarning(d, "every shell tool") || !hasWarning(d, "now a glob") {
			t.Fatal("no widening warnings")
		}
	})
	t.Run("empty allow list: unlisted tools are asked about (fixed, warned)", func(t *testing.T) {
		f, d := parse(t, `{"mode": "default", "deny": ["Bash"]}`)
		if f.Layers[0].Default != nil || !hasWarning(d, "without asking") {
			t.Fatal("empty allow list")
		}
	})
	t.Run("layers merge into one", func(t *testing.T) {
		f, _ := parse(t, `{"mode": "default", "layers": [{"deny": ["A"]}, {"deny": ["B"], "interactive": ["C"]}]}`)
		if got := strings.Join(ruleTexts(f.Layers[0].Deny), ","); got != "A,B" {
			t.Fatalf("deny = %s", got)
		}
	})
	t.Run("permissions wrapper", func(t *testing.T) {
		f, _ := parse(t, `{"permissions": {"mode": "default", "deny": ["A"]}}`)
		if len(f.Layers[0].Deny) != 1 {
			t.Fatal("permissions wrapper")
		}
	})
	t.Run("untrusted legacy file keeps only denies", func(t *testing.T) {
		f, d := Parse("/w/.toolgate/policy.json", []byte(`{"mode": "bypassPermissions", "allow": ["Bash"], "deny": ["Edit"]}`), toolgate.SourceProject, false)
		if d.Err() != nil {
			t.Fatal(d)
		}
		l := f.Layers[0]
		if len(l.Allow) != 0 || l.Mode != nil || len(l.Deny) != 1 {
			t.Fatalf("untrusted legacy: %+v", l)
		}
	})
}

// TestBuildExamples: examples run against the compiled configuration; a
// failing one is an error at its position and the configuration is not
// returned.
func TestBuildExamples(t *testing.T) {
	fsys := fstest.MapFS{"w/p.yaml": {Data: []byte(`version: 1
deny: ["Bash(rm *)"]
examples:
  - {tool: Bash, input: {command: "rm -rf x"}, expect: deny}
  - {tool: Bash, input: {command: "rm -rf x"}, expect: allow}
  - {tool: Bash, input: {command: "rm -rf x"}, expect: deny, rule: "Bash(rm *)x"}
`)}}
	cfg, set, err := Build(&Options{FS: fsys, Cwd: "/w", Explicit: []string{"/w/p.yaml"}, Builtin: true})
	if err == nil || cfg != nil {
		t.Fatal("a failing example must fail the build")
	}
	var lines []string
	for _, d := range set.Diags {
		if d.Code == "example" {
			lines = append(lines, d.Pos.String())
		}
	}
	if got := strings.Join(lines, " "); got != "/w/p.yaml:5:5 /w/p.yaml:6:5" {
		t.Fatalf("example diagnostics at %s; all: %v", got, set.Diags)
	}
	fsys["w/p.yaml"].Data = []byte("version: 1\ndeny: [\"Bash(rm *)\"]\nexamples:\n  not_match: [{tool: Bash, input: {command: \"rm -rf x\"}}]\n")
	if cfg, _, err := Build(&Options{FS: fsys, Cwd: "/w", Explicit: []string{"/w/p.yaml"}, Builtin: true}); err != nil || cfg == nil {
		t.Fatalf("passing examples: %v", err)
	}
}

func TestLoadNoFS(t *testing.T) {
	set, err := Load(&Options{Cwd: "/w", Home: "/h", Builtin: true})
	if err != nil || len(set.Layers) != 1 || set.Layers[0].Source != toolgate.SourceBuiltin {
		t.Fatalf("no FS: %v %+v", err, set)
	}
	if _, err := Load(&Options{Explicit: []string{"/w/p.yaml"}}); err == nil {
		t.Fatal("an explicit file without a file system must fail")
	}
}
