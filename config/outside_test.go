package config

import (
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
)

func warned(d toolgate.Diagnostics, sub string) bool {
	for _, x := range d {
		if x.Severity == toolgate.SeverityWarning && strings.Contains(x.Message, sub) {
			return true
		}
	}
	return false
}

// Mode alias deny: dontAsk in the toolgate format (SPEC §6.2), strict only
// in the legacy format, where it meant "deny what is not listed" (§6.1).
func TestModeAliasDeny(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      toolgate.ModeName
	}{
		{"toolgate yaml", "version: 1\nmode: deny\n", toolgate.ModeDontAsk},
		{"toolgate json", `{"version": 1, "mode": "deny"}`, toolgate.ModeDontAsk},
		{"toolgate interactive", "version: 1\nmode: interactive\n", toolgate.ModeDontAsk},
		{"toolgate strict", "version: 1\nmode: strict\n", toolgate.ModeStrict},
		{"legacy deny", `{"mode": "deny"}`, toolgate.ModeStrict},
		{"legacy permissions deny", `{"permissions": {"mode": "deny"}}`, toolgate.ModeStrict},
		{"legacy interactive", `{"mode": "interactive"}`, toolgate.ModeDontAsk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "/p/a.yaml"
			if strings.HasPrefix(tc.src, "{") {
				name = "/p/a.json"
			}
			f, d := Parse(name, []byte(tc.src), toolgate.SourceCLI, true)
			if d.Err() != nil {
				t.Fatal(d)
			}
			if len(f.Layers) != 1 || f.Layers[0].Mode == nil || f.Layers[0].Mode.Name != tc.want {
				t.Fatalf("mode: got %+v, want %s", f.Layers, tc.want)
			}
		})
	}
	if m, err := toolgate.ParseMode("deny"); err != nil || m.Name != toolgate.ModeDontAsk {
		t.Fatalf("ParseMode(deny) = %v, %v; want dontAsk", m, err)
	}
}

// The legacy format's plan list of tool names loads, with a warning, and
// is dropped (SPEC §6.1); the boolean and object forms still select plan.
func TestLegacyPlanList(t *testing.T) {
	for _, tc := range []struct {
		src      string
		mode     toolgate.ModeName // "" : no mode
		warning  string
		hasError bool
	}{
		{`{"mode": "default", "plan": ["Read", "Grep"], "deny": ["Bash"]}`, toolgate.ModeDefault, "plan list (2 tool name(s)) is dropped", false},
		{`{"plan": []}`, "", "plan list (0 tool name(s)) is dropped", false},
		{`{"permissions": {"plan": ["Edit"]}}`, "", "plan list", false},
		{`{"plan": true}`, toolgate.ModePlan, "", false},
		{`{"plan": {"bypass_available": true}}`, toolgate.ModePlan, "", false},
		{`{"plan": [1]}`, "", "", true},
		{`{"plan": "yes"}`, "", "", true},
	} {
		f, d := Parse("/p/old.json", []byte(tc.src), toolgate.SourceCLI, true)
		if tc.hasError {
			if d.Err() == nil {
				t.Errorf("%s: want an error", tc.src)
			}
			continue
		}
		if d.Err() != nil {
			t.Errorf("%s: %v", tc.src, d)
			continue
		}
		if f.Kind != Legacy || len(f.Layers) != 1 {
			t.Errorf("%s: not migrated: %+v", tc.src, f)
			continue
		}
		l := f.Layers[0]
		switch {
		case tc.mode == "" && l.Mode != nil:
			t.Errorf("%s: mode %v, want none", tc.src, *l.Mode)
		case tc.mode != "" && (l.Mode == nil || l.Mode.Name != tc.mode):
			t.Errorf("%s: mode %v, want %s", tc.src, l.Mode, tc.mode)
		}
		if tc.warning != "" && !warned(d, tc.warning) {
			t.Errorf("%s: no warning %q in %v", tc.src, tc.warning, d)
		}
		if len(l.Allow) != 0 {
			t.Errorf("%s: the plan list became allow rules: %v", tc.src, l.Allow)
		}
	}
}
