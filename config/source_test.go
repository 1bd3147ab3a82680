package config

import (
	"testing"

	"github.com/toolgate/toolgate"
)

func TestSourceFor(t *testing.T) {
	const home, ucd = "/home/u", "/home/u/.config/toolgate"
	for _, tc := range []struct {
		path string
		want toolgate.Source
	}{
		{"/etc/toolgate/policy.yaml", toolgate.SourceManaged},
		{"/etc/toolgate/sub/x.json", toolgate.SourceManaged},
		{"/etc/toolgatex/policy.yaml", toolgate.SourceCLI},
		{"/home/u/.config/toolgate/policy.toml", toolgate.SourceUser},
		{"/home/u/.claude/settings.json", toolgate.SourceUser},
		{"/home/u/.claude/settings.local.json", toolgate.SourceUser},
		{"/work/app/.toolgate/policy.yaml", toolgate.SourceProject},
		{"/work/app/.toolgate/policy.local.yaml", toolgate.SourceLocal},
		{"/work/app/.claude/settings.json", toolgate.SourceProject},
		{"/work/app/.claude/settings.local.json", toolgate.SourceLocal},
		{"/work/app/.toolgate/extra/more.local.json", toolgate.SourceLocal},
		{"/work/app/policy.yaml", toolgate.SourceCLI},
		{"/work/app/toolgate/policy.yaml", toolgate.SourceCLI},
	} {
		if got := SourceFor(tc.path, home, ucd); got != tc.want {
			t.Errorf("SourceFor(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestParseConfigArg(t *testing.T) {
	for _, tc := range []struct {
		arg      string
		src      toolgate.Source
		path     string
		explicit bool
	}{
		{"managed=/x.yaml", toolgate.SourceManaged, "/x.yaml", true},
		{"session=a=b.yaml", toolgate.SourceSession, "a=b.yaml", true},
		{"a=b.yaml", toolgate.SourceInvalid, "a=b.yaml", false},
		{"builtin=x.yaml", toolgate.SourceInvalid, "builtin=x.yaml", false},
		{"=x.yaml", toolgate.SourceInvalid, "=x.yaml", false},
		{"policy.yaml", toolgate.SourceInvalid, "policy.yaml", false},
		{"user=", toolgate.SourceUser, "", true},
	} {
		src, p, ex := ParseConfigArg(tc.arg)
		if src != tc.src || p != tc.path || ex != tc.explicit {
			t.Errorf("ParseConfigArg(%q) = %v, %q, %v; want %v, %q, %v", tc.arg, src, p, ex, tc.src, tc.path, tc.explicit)
		}
	}
}

func TestUserConfigDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := UserConfigDir(env(map[string]string{"XDG_CONFIG_HOME": "/x"}), "/home/u"); got != "/x/toolgate" {
		t.Errorf("with XDG_CONFIG_HOME: %q", got)
	}
	if got := UserConfigDir(env(map[string]string{"XDG_CONFIG_HOME": "rel"}), "/home/u"); got != "/home/u/.config/toolgate" {
		t.Errorf("relative XDG_CONFIG_HOME is ignored (XDG spec): %q", got)
	}
	if got := UserConfigDir(nil, "/home/u"); got != "/home/u/.config/toolgate" {
		t.Errorf("default: %q", got)
	}
	if got := UserConfigDir(nil, ""); got != "" {
		t.Errorf("no home: %q", got)
	}
}

func TestLayerRoot(t *testing.T) {
	for p, want := range map[string]string{
		"/work/app/.toolgate/policy.yaml":      "/work/app",
		"/home/u/.claude/settings.json":        "/home/u",
		"/home/u/.config/toolgate/policy.yaml": "/home/u/.config/toolgate",
		"/etc/toolgate/policy.yaml":            "/etc/toolgate",
		"/work/app/.claude/sub/x.json":         "/work/app",
	} {
		if got := LayerRoot(p); got != want {
			t.Errorf("LayerRoot(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestBuiltin(t *testing.T) {
	b := Builtin()
	if len(b) != 1 || b[0].Source != toolgate.SourceBuiltin || *b[0].Default != toolgate.Ask || *b[0].DefaultReadOnly != toolgate.Allow {
		t.Fatalf("Builtin() = %+v", b)
	}
	// Each call returns fresh values: changing one cannot change another.
	*b[0].Default = toolgate.Allow
	if *Builtin()[0].Default != toolgate.Ask {
		t.Fatal("Builtin shares state between calls")
	}
}
