package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const claudeExisting = `{
  "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint-hook.sh", "timeout": 5}]},
      {"matcher": "Write", "hooks": [{"type": "command", "command": "/usr/local/bin/toolgate hook claude --config old.yaml"}, {"type": "command", "command": "./audit.sh"}]}
    ],
    "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "./fmt.sh"}]}]
  },
  "model": "opus",
  "env": {"A": "1"}
}
`

func TestInstallClaude(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	writeFile(t, path, claudeExisting)
	o := InstallOptions{Dir: dir}
	got, content, err := Install(Claude, &o)
	if err != nil || got != path {
		t.Fatalf("Install: %q, %v", got, err)
	}
	want := `{
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ],
    "deny": [
      "Read(./.env)"
    ]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./lint-hook.sh",
            "timeout": 5
          }
        ]
      },
      {
        "matcher": "Write",
        "hooks": [
          {
            "type": "command",
            "command": "./audit.sh"
          }
        ]
      },
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "toolgate hook claude",
            "timeout": 10,
            "onFailure": "block"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "*",
        "hooks": [
          {
            "type": "command",
            "command": "./fmt.sh"
          }
        ]
      }
    ]
  },
  "model": "opus",
  "env": {
    "A": "1"
  }
}
`
	if string(content) != want || readFile(t, path) != want {
		t.Errorf("content:\n%s\nwant:\n%s", content, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v, want 0600 kept", st.Mode().Perm())
	}
	// Idempotent.
	_, again, err := Install(Claude, &o)
	if err != nil || string(again) != want {
		t.Errorf("second install changed the file: %v\n%s", err, again)
	}
	// Uninstall keeps everything else (the stale entry is already gone).
	_, un, err := Uninstall(Claude, &o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(un), "toolgate") || !strings.Contains(string(un), "./lint-hook.sh") || !strings.Contains(string(un), "./audit.sh") || !strings.Contains(string(un), `"model": "opus"`) {
		t.Errorf("uninstall:\n%s", un)
	}
	// Uninstalling again changes nothing.
	_, un2, err := Uninstall(Claude, &o)
	if err != nil || !bytes.Equal(un, un2) {
		t.Errorf("second uninstall: %v\n%s", err, un2)
	}
}

func TestInstallNewFiles(t *testing.T) {
	for _, c := range Clients {
		t.Run(string(c), func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			o := InstallOptions{Dir: dir, Home: home}
			path, content, err := Install(c, &o)
			if err != nil {
				t.Fatal(err)
			}
			if readFile(t, path) != string(content) {
				t.Fatal("content returned differs from the file")
			}
			if !strings.Contains(string(content), "toolgate hook "+string(c)) {
				t.Errorf("no hook command:\n%s", content)
			}
			if c == Codex || c == Gemini {
				if !strings.HasPrefix(path, home) {
					t.Errorf("%s installs for the user by default: %s", c, path)
				}
			} else if !strings.HasPrefix(path, dir) {
				t.Errorf("%s installs in the project by default: %s", c, path)
			}
			_, again, err := Install(c, &o)
			if err != nil || !bytes.Equal(again, content) {
				t.Errorf("not idempotent: %v\n%s", err, again)
			}
			_, un, err := Uninstall(c, &o)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(un, []byte("toolgate hook")) {
				t.Errorf("uninstall left the hook:\n%s", un)
			}
		})
	}
}

func TestInstallScopes(t *testing.T) {
	o := InstallOptions{Dir: "/proj", Home: "/home/u", Scope: ScopeUser}
	for c, want := range map[Client]string{
		Claude: "/home/u/.claude/settings.json", Gemini: "/home/u/.gemini/settings.json",
		Codex: "/home/u/.codex/config.toml", Cursor: "/home/u/.cursor/hooks.json",
	} {
		if got, err := SettingsPath(c, &o); err != nil || got != want {
			t.Errorf("%s user: %q, %v; want %q", c, got, err, want)
		}
	}
	o.CodexHome = "/ch"
	if got, _ := SettingsPath(Codex, &o); got != "/ch/config.toml" {
		t.Errorf("CODEX_HOME: %q", got)
	}
	o.Scope = ScopeProject
	if got, _ := SettingsPath(Codex, &o); got != "/proj/.codex/config.toml" {
		t.Errorf("codex project: %q", got)
	}
	if _, err := SettingsPath(Claude, &InstallOptions{Scope: ScopeProject, Dir: "rel"}); err == nil {
		t.Error("a relative directory must be an error")
	}
	if _, err := SettingsPath(Claude, &InstallOptions{Scope: "team", Dir: "/p"}); err == nil {
		t.Error("an unknown scope must be an error")
	}
}

func TestInstallDryRun(t *testing.T) {
	dir := t.TempDir()
	path, content, err := Install(Gemini, &InstallOptions{Dir: dir, Scope: ScopeProject, DryRun: true})
	if err != nil || len(content) == 0 {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("dry run wrote %s", path)
	}
}

func TestInstallRefusesBrokenJSON(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".gemini", "settings.json")
	broken := "{\n  // a comment\n  \"ui\": {}\n}\n"
	writeFile(t, path, broken)
	if _, _, err := Install(Gemini, &InstallOptions{Dir: dir, Scope: ScopeProject}); err == nil {
		t.Error("want an error for JSON with comments")
	}
	if readFile(t, path) != broken {
		t.Error("a file that cannot be merged was changed")
	}
	writeFile(t, path, `{"hooks": []}`)
	if _, _, err := Install(Gemini, &InstallOptions{Dir: dir, Scope: ScopeProject}); err == nil {
		t.Error("want an error for hooks that is not an object")
	}
}

func TestInstallGeminiKeepsOthers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".gemini", "settings.json")
	writeFile(t, path, `{"security":{"auth":{"selectedType":"gemini-api-key"}},"hooks":{"BeforeTool":[{"matcher":"write_file","hooks":[{"type":"command","command":"./check.sh"}]}]}}`)
	_, content, err := Install(Gemini, &InstallOptions{Dir: dir, Scope: ScopeProject, Command: "/opt/toolgate hook gemini --config /etc/p.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Security struct{ Auth struct{ SelectedType string } }
		Hooks    struct {
			BeforeTool []struct {
				Matcher string
				Hooks   []struct {
					Type, Command string
					Timeout       int
				}
			}
		}
	}
	if err := json.Unmarshal(content, &v); err != nil {
		t.Fatal(err)
	}
	if v.Security.Auth.SelectedType != "gemini-api-key" || len(v.Hooks.BeforeTool) != 2 ||
		v.Hooks.BeforeTool[1].Matcher != ".*" || v.Hooks.BeforeTool[1].Hooks[0].Command != "/opt/toolgate hook gemini --config /etc/p.yaml" ||
		v.Hooks.BeforeTool[1].Hooks[0].Timeout != 10000 {
		t.Errorf("merged settings:\n%s", content)
	}
	_, un, err := Uninstall(Gemini, &InstallOptions{Dir: dir, Scope: ScopeProject})
	if err != nil || bytes.Contains(un, []byte("toolgate")) || !bytes.Contains(un, []byte("./check.sh")) {
		t.Errorf("uninstall: %v\n%s", err, un)
	}
}

const codexExisting = `# my Codex config
model = "gpt-5-codex" # the model

[model_providers.mock]
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "./other-hook"`

func TestInstallCodex(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	writeFile(t, path, codexExisting)
	o := InstallOptions{CodexHome: home, Command: `toolgate hook codex --config "/a b/p.yaml"`}
	_, content, err := Install(Codex, &o)
	if err != nil {
		t.Fatal(err)
	}
	want := codexExisting + "\n\n" + tomlBegin + `
[[hooks.PreToolUse]]
matcher = ".*"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "toolgate hook codex --config \"/a b/p.yaml\""
timeout = 10
` + tomlEnd + "\n"
	if string(content) != want {
		t.Errorf("got:\n%s\nwant:\n%s", content, want)
	}
	var v struct {
		Model string
		Hooks struct {
			PreToolUse []struct {
				Matcher string
				Hooks   []struct{ Type, Command string }
			}
		}
	}
	if _, err := toml.Decode(string(content), &v); err != nil || len(v.Hooks.PreToolUse) != 2 ||
		v.Hooks.PreToolUse[1].Hooks[0].Command != o.Command || v.Model != "gpt-5-codex" {
		t.Errorf("decoded %+v, %v", v, err)
	}
	_, again, err := Install(Codex, &o)
	if err != nil || string(again) != want {
		t.Errorf("not idempotent: %v\n%s", err, again)
	}
	// A changed command replaces the block.
	o2 := o
	o2.Command = "toolgate hook codex"
	_, changed, err := Install(Codex, &o2)
	if err != nil || strings.Count(string(changed), tomlBegin) != 1 || !strings.Contains(string(changed), "command = \"toolgate hook codex\"\n") {
		t.Errorf("reinstall: %v\n%s", err, changed)
	}
	_, un, err := Uninstall(Codex, &o)
	if err != nil || string(un) != codexExisting+"\n" {
		t.Errorf("uninstall: %v\n%q", err, un)
	}
}

func TestInstallCodexInlineHooks(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	inline := "[hooks]\nPreToolUse = [{matcher = \"Bash\", hooks = [{type = \"command\", command = \"x\"}]}]\n"
	writeFile(t, path, inline)
	if _, _, err := Install(Codex, &InstallOptions{CodexHome: home}); err == nil {
		t.Error("want an error when the block cannot be appended")
	}
	if readFile(t, path) != inline {
		t.Error("file changed")
	}
	writeFile(t, path, "not = = toml")
	if _, _, err := Install(Codex, &InstallOptions{CodexHome: home}); err == nil {
		t.Error("want an error for invalid TOML")
	}
}

func TestInstallCursor(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".cursor", "hooks.json")
	writeFile(t, path, `{"version":1,"hooks":{"afterFileEdit":[{"command":"./fmt.sh"}],"beforeShellExecution":[{"command":"./audit.sh"},{"command":"toolgate hook cursor --ask-policy deny"}]}}`)
	_, content, err := Install(Cursor, &InstallOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Version int
		Hooks   map[string][]struct {
			Command    string
			FailClosed bool
		}
	}
	if err := json.Unmarshal(content, &v); err != nil {
		t.Fatal(err)
	}
	if v.Version != 1 || len(v.Hooks["afterFileEdit"]) != 1 || len(v.Hooks[cursorShell]) != 2 || v.Hooks[cursorShell][0].Command != "./audit.sh" {
		t.Errorf("merged:\n%s", content)
	}
	for _, ev := range cursorEvents {
		l := v.Hooks[ev]
		if len(l) == 0 || l[len(l)-1].Command != "toolgate hook cursor" || !l[len(l)-1].FailClosed {
			t.Errorf("%s: %+v", ev, l)
		}
	}
	_, again, _ := Install(Cursor, &InstallOptions{Dir: dir})
	if !bytes.Equal(again, content) {
		t.Errorf("not idempotent:\n%s", again)
	}
	_, un, err := Uninstall(Cursor, &InstallOptions{Dir: dir})
	if err != nil || bytes.Contains(un, []byte("toolgate")) || !bytes.Contains(un, []byte("./audit.sh")) || !bytes.Contains(un, []byte("./fmt.sh")) {
		t.Errorf("uninstall: %v\n%s", err, un)
	}
}

func TestUninstallMissingFile(t *testing.T) {
	dir := t.TempDir()
	path, content, err := Uninstall(Claude, &InstallOptions{Dir: dir})
	if err != nil || content != nil {
		t.Errorf("%v %q", err, content)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("uninstall created a file")
	}
}

func TestIsToolgateCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"toolgate hook claude":                      true,
		"/usr/local/bin/toolgate hook gemini --x y": true,
		"toolgate check":                            false,
		"./toolgate-wrapper hook":                   false,
		"/opt/toolgate-linux-amd64 hook codex":      true,
		"'/opt/my tools/toolgate' hook claude":      true,
		"toolgate-linux-amd64 hook vim":             false,
		"my-hook":                                   false,
	} {
		if got := isToolgateCommand(cmd, "configured"); got != want {
			t.Errorf("%q: %v", cmd, got)
		}
	}
}
