package config

import (
	"strings"
	"testing"
	"testing/fstest"

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
	var m toolgate.Mode
	if err := m.UnmarshalText([]byte("deny")); err != nil || m.Name != toolgate.ModeDontAsk {
		t.Fatalf("reading mode deny = %v, %v; want dontAsk", m, err)
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

func buildOutside(t *testing.T, files map[string]string, explicit ...string) (*toolgate.Policy, *Set) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[strings.TrimPrefix(name, "/")] = &fstest.MapFile{Data: []byte(data)}
	}
	cfg, set, err := Build(&Options{FS: fsys, Cwd: "/w", Home: "/home/u", Explicit: explicit, Builtin: true})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, set
}

func readIn(cfg *toolgate.Policy, p string) toolgate.Decision {
	return cfg.Decide(toolgate.Call{Tool: "Read", Input: []byte(`{"file_path":"` + p + `"}`), Cwd: "/w", Home: "/home/u"})
}

// The built-in default_read_only: allow is in force only when discovery
// runs; a file named with --config is a complete policy (SPEC §6.1).
func TestBuiltinReadOnlyOnlyWithDiscovery(t *testing.T) {
	plain := "version: 1\ndeny: [\"Bash(rm:*)\"]\n"
	for _, tc := range []struct {
		name     string
		files    map[string]string
		explicit []string
		want     toolgate.Outcome
	}{
		{"discovery, no files", nil, nil, toolgate.Allow},
		{"discovery, a user file without defaults", map[string]string{"/home/u/.config/toolgate/policy.yaml": plain}, nil, toolgate.Allow},
		{"discovery, a user file with default deny", map[string]string{"/home/u/.config/toolgate/policy.yaml": "version: 1\ndefault: deny\n"}, nil, toolgate.Deny},
		{"--config without defaults", map[string]string{"/c/policy.yaml": plain}, []string{"/c/policy.yaml"}, toolgate.Ask},
		{"--config SOURCE=FILE without defaults", map[string]string{"/c/policy.yaml": plain}, []string{"user=/c/policy.yaml"}, toolgate.Ask},
		{"--config with default_read_only", map[string]string{"/c/policy.yaml": plain + "default_read_only: allow\n"}, []string{"/c/policy.yaml"}, toolgate.Allow},
		{"--config with default allow", map[string]string{"/c/policy.yaml": plain + "default: allow\n"}, []string{"/c/policy.yaml"}, toolgate.Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, _ := buildOutside(t, tc.files, tc.explicit...)
			d := readIn(cfg, "/w/src/a.go")
			if d.Outcome != tc.want {
				t.Fatalf("got %s, want %s", d, tc.want)
			}
			st := cfg.Settings()
			if st.DefaultReadOnly != tc.want {
				t.Fatalf("Settings().DefaultReadOnly = %s, want %s", st.DefaultReadOnly, tc.want)
			}
		})
	}
}

// An untrusted project or local file may not set default_read_only looser
// than the settings in force beneath it, read as the engine reads them: a
// user file's default: deny without default_read_only makes it deny
// (SPEC §6.1 Trust).
func TestUntrustedDefaultReadOnly(t *testing.T) {
	const userDeny = "version: 1\ndefault: deny\n"
	for _, tc := range []struct {
		name    string
		user    string
		project string
		local   string
		want    toolgate.Outcome
		warning string
	}{
		{"looser than a user default deny", userDeny, "version: 1\ndefault_read_only: allow\n", "", toolgate.Deny, "default_read_only: allow (looser than deny beneath)"},
		{"looser, in the local file", userDeny, "", "version: 1\ndefault_read_only: ask\n", toolgate.Deny, "default_read_only: ask (looser than deny beneath)"},
		{"looser than a user default_read_only", "version: 1\ndefault_read_only: ask\n", "version: 1\ndefault_read_only: allow\n", "", toolgate.Ask, "looser than ask beneath"},
		{"looser than the project file beneath the local one", "", "version: 1\ndefault: deny\n", "version: 1\ndefault_read_only: allow\n", toolgate.Deny, "looser than deny beneath"},
		// Look-alikes: not looser.
		{"equal to the built-in", "", "version: 1\ndefault_read_only: allow\n", "", toolgate.Allow, ""},
		{"stricter", "", "version: 1\ndefault_read_only: deny\n", "", toolgate.Deny, ""},
		{"stricter than a user allow", "version: 1\ndefault: allow\n", "version: 1\ndefault_read_only: ask\n", "", toolgate.Ask, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"/w/.toolgate/.keep": ""}
			if tc.user != "" {
				files["/home/u/.config/toolgate/policy.yaml"] = tc.user
			}
			if tc.project != "" {
				files["/w/.toolgate/policy.yaml"] = tc.project
			}
			if tc.local != "" {
				files["/w/.toolgate/policy.local.yaml"] = tc.local
			}
			cfg, set := buildOutside(t, files)
			if d := readIn(cfg, "/w/src/a.go"); d.Outcome != tc.want {
				t.Fatalf("got %s, want %s", d, tc.want)
			}
			if tc.warning != "" && !warned(set.Diags, tc.warning) {
				t.Fatalf("no warning %q: %v", tc.warning, set.Diags)
			}
			if tc.warning == "" && warned(set.Diags, "looser") {
				t.Fatalf("unexpected warning: %v", set.Diags)
			}
		})
	}
}

// The engine and the loader read the scalar settings the same way.
func TestResolveSettings(t *testing.T) {
	allow, deny := toolgate.Allow, toolgate.Deny
	b := Builtin()[0]
	user := toolgate.Layer{Source: toolgate.SourceUser, Default: &deny}
	st := toolgate.ResolveSettings([]toolgate.Layer{user, b})
	if st.Default != toolgate.Deny || st.DefaultReadOnly != toolgate.Deny || st.DefaultReadOnlySource != toolgate.SourceInvalid {
		t.Fatalf("user default deny over the built-in: %+v", st)
	}
	user.DefaultReadOnly = &allow
	st = toolgate.ResolveSettings([]toolgate.Layer{b, user})
	if st.DefaultReadOnly != toolgate.Allow || st.DefaultReadOnlySource != toolgate.SourceUser {
		t.Fatalf("user default_read_only: %+v", st)
	}
	if st := toolgate.ResolveSettings([]toolgate.Layer{toolgate.BuiltinLayer(false)}); st.DefaultReadOnly != toolgate.Ask {
		t.Fatalf("built-in without discovery: %+v", st)
	}
	if st := toolgate.ResolveSettings(nil); st.Default != toolgate.Ask || st.DefaultReadOnly != toolgate.Ask || !st.Enabled || st.Mode.Name != toolgate.ModeDefault {
		t.Fatalf("no layers: %+v", st)
	}
}
