package config

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/toolgate/toolgate"
	"gopkg.in/yaml.v3"
)

var fuzzSeeds = map[Format][]string{
	YAML: {
		"version: 1\nallow: [Read]\ndeny: [\"Bash(rm *)\", 'x']\nask: [a]\ninteractive: [b]\n",
		"version: 1\ndeny:\n  - |\n    Bash(x)\nlayers:\n  - {source: managed, deny: [y]}\n  - source: user\n    allow: [z]\n",
		"version: 1\nc: &c [a, b]\ndeny: *c\n",
		"mode: deny\nallow: [Bash]\n",
	},
	TOML: {
		"version = 1\nallow = [\"Read\"]\ndeny = ['Bash(rm *)', \"\"\"x\ny\"\"\"]\n",
		"version = 1\n[[layers]]\nsource = \"managed\"\ndeny = [\"a\"]\n[[layers]]\nsource = \"user\"\nask = ['''b''']\n",
		"version = 1\ndeny = [\"\\u00e9\\t\", 'a\\b']\n[tools.x]\nkind = \"shell\"\n",
	},
	JSON: {
		`{"version": 1, "allow": ["Read"], "deny": ["Bash(rm *)", "\u00e9"], "ask": ["a"]}`,
		`{"version": 1, "layers": [{"source": "managed", "deny": ["x"]}, {"source": "cli", "interactive": ["y"]}]}`,
		`{"permissions": {"allow": ["Bash"], "deny": ["Read(./.env)"]}}`,
	},
}

func FuzzYAML(f *testing.F) { fuzzFormat(f, YAML) }
func FuzzTOML(f *testing.F) { fuzzFormat(f, TOML) }
func FuzzJSON(f *testing.F) { fuzzFormat(f, JSON) }

func fuzzFormat(f *testing.F, format Format) {
	for _, s := range fuzzSeeds[format] {
		f.Add([]byte(s))
	}
	name := "/p/fuzz." + format.String()
	f.Fuzz(func(t *testing.T, data []byte) {
		file, diags := Parse(name, data, toolgate.SourceCLI, true)
		if file == nil {
			t.Fatal("nil File")
		}
		if diags.HasErrors() {
			// A failed file must be treated as failed by every caller.
			if diags.Err() == nil {
				t.Fatal("errors but Err() == nil")
			}
			return
		}
		for _, d := range diags {
			if d.Severity != toolgate.SeverityWarning {
				t.Fatalf("unexpected severity: %v", d)
			}
		}
		if file.Kind != Toolgate {
			return
		}
		// Every rule string of the file, read by the format's reference
		// decoder, is in the layers, and nothing else is.
		want, ok := referenceRules(format, data)
		if !ok {
			t.Fatalf("Parse accepted a file the reference decoder rejects: %q", data)
		}
		var got [3][]string
		for _, l := range file.Layers {
			got[0] = append(got[0], ruleTexts(l.Allow)...)
			got[1] = append(got[1], ruleTexts(l.Deny)...)
			got[2] = append(got[2], ruleTexts(l.Ask)...)
			for _, r := range slices.Concat(l.Allow, l.Deny, l.Ask) {
				if r.Pos.Line < 1 || r.Pos.Column < 1 || r.Pos.File != name {
					t.Fatalf("rule %q has no position: %v", r.Text, r.Pos)
				}
			}
		}
		for i, list := range []string{"allow", "deny", "ask"} {
			slices.Sort(got[i])
			slices.Sort(want[i])
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("%s rules: got %q, want %q (file %q)", list, got[i], want[i], data)
			}
		}
	})
}

// referenceRules decodes data with the format's reference decoder and
// collects the allow, deny and ask (+interactive) strings of the top level
// and of the layers entries.
func referenceRules(format Format, data []byte) (out [3][]string, ok bool) {
	var v any
	switch format {
	case YAML:
		ok = yaml.Unmarshal(data, &v) == nil
	case TOML:
		var m map[string]any
		_, err := toml.Decode(string(data), &m)
		v, ok = m, err == nil
	case JSON:
		ok = json.Unmarshal(data, &v) == nil
	}
	if !ok {
		return out, false
	}
	collect := func(m map[string]any) {
		for i, keys := range [][]string{{"allow"}, {"deny"}, {"ask", "interactive"}} {
			for _, k := range keys {
				list, _ := m[k].([]any)
				for _, s := range list {
					if s, isStr := s.(string); isStr {
						out[i] = append(out[i], s)
					}
				}
			}
		}
	}
	top := asMap(v)
	if top == nil {
		return out, true
	}
	collect(top)
	switch ls := top["layers"].(type) {
	case []any:
		for _, l := range ls {
			if m := asMap(l); m != nil {
				collect(m)
			}
		}
	case []map[string]any:
		for _, m := range ls {
			collect(m)
		}
	}
	return out, true
}

func asMap(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case map[any]any:
		out := map[string]any{}
		for k, v := range m {
			if s, ok := k.(string); ok {
				out[s] = v
			}
		}
		return out
	}
	return nil
}
