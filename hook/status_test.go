package hook

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"toolgate hook claude", []string{"toolgate", "hook", "claude"}, false},
		{"'/opt/my tools/toolgate' hook codex", []string{"/opt/my tools/toolgate", "hook", "codex"}, false},
		{`"/a b/toolgate" hook  gemini --x`, []string{"/a b/toolgate", "hook", "gemini", "--x"}, false},
		{`/a\ b/toolgate hook`, []string{"/a b/toolgate", "hook"}, false},
		{`'it'\''s' x`, []string{"it's", "x"}, false},
		{`'open`, nil, true},
		{`trailing\`, nil, true},
		{"", nil, false},
	} {
		got, err := splitCommand(tt.in)
		if (err != nil) != tt.err || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("splitCommand(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
		if err == nil && len(got) > 0 {
			var quoted []string
			for _, w := range got {
				quoted = append(quoted, shellQuote(w))
			}
			back, err := splitCommand(strings.Join(quoted, " "))
			if err != nil || strings.Join(back, "|") != strings.Join(got, "|") {
				t.Errorf("shellQuote round trip of %q: %q, %v", got, back, err)
			}
		}
	}
}

func TestGeminiFolderTrusted(t *testing.T) {
	home := t.TempDir()
	for _, tt := range []struct {
		rules string
		dir   string
		env   []string
		want  bool
	}{
		{"", "/w/p", nil, false},
		{"", "/w/p", []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}, true},
		{`{"/w/p": "TRUST_FOLDER"}`, "/w/p", nil, true},
		{`{"/w/p": "TRUST_FOLDER"}`, "/w/p/sub", nil, true},
		{`{"/w/p": "TRUST_FOLDER"}`, "/w/pp", nil, false},
		{`{"/w/p/x": "TRUST_PARENT"}`, "/w/p", nil, true},
		{`{"/w": "TRUST_FOLDER", "/w/p": "DO_NOT_TRUST"}`, "/w/p", nil, false},
		{`{"/w": "DO_NOT_TRUST", "/w/p": "TRUST_FOLDER"}`, "/w/p/q", nil, true},
		{`not json`, "/w/p", nil, false},
	} {
		os.RemoveAll(filepath.Join(home, ".gemini"))
		if tt.rules != "" {
			writeFile(t, filepath.Join(home, ".gemini", "trustedFolders.json"), tt.rules)
		}
		o := StatusOptions{InstallOptions: InstallOptions{Dir: tt.dir, Home: home}, Env: append([]string{}, tt.env...)}
		if got, why := geminiFolderTrusted(o); got != tt.want || (!got && why == "") {
			t.Errorf("rules %s, dir %s, env %q: trusted %v (%s), want %v", tt.rules, tt.dir, tt.env, got, why, tt.want)
		}
	}
}

// fakeCodex is a codex stand-in for "codex app-server": it answers
// hooks/list with the first PreToolUse command of $CODEX_HOME/config.toml,
// trusted when the file records the hash.
const fakeCodex = `#!/bin/sh
cfg="$CODEX_HOME/config.toml"
cmd=$(sed -n 's/^command = "\(.*\)"$/\1/p' "$cfg" | head -n1)
status=untrusted
grep -q 'trusted_hash = "sha256:fake"' "$cfg" && status=trusted
while read -r line; do
	case "$line" in
	*'"id":1'*) echo '{"id":1,"result":{}}' ;;
	*'"id":2'*) echo '{"id":2,"result":{"data":[{"cwd":"/","hooks":[{"key":"'"$cfg"':pre_tool_use:0:0","eventName":"preToolUse","handlerType":"command","command":"'"$cmd"'","matcher":".*","sourcePath":"'"$cfg"'","enabled":true,"currentHash":"sha256:fake","trustStatus":"'$status'"}]}]}}' ;;
	esac
done
`

// fakeHook is a toolgate stand-in that denies everything in Claude Code's
// and Codex's format.
const fakeHook = `#!/bin/sh
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"toolgate: denied: probe"}}'
`

func TestTrustCodexAndStatus(t *testing.T) {
	dir := t.TempDir()
	codexHome := filepath.Join(dir, "codex-home")
	codex := filepath.Join(dir, "bin", "codex")
	tg := filepath.Join(dir, "bin", "toolgate")
	writeFile(t, codex, fakeCodex)
	writeFile(t, tg, fakeHook)
	for _, p := range []string{codex, tg} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(codexHome, "config.toml"), "model = \"m\"\n")
	o := StatusOptions{
		InstallOptions: InstallOptions{Home: dir, Dir: dir, CodexHome: codexHome, Command: tg + " hook codex"},
		Codex:          codex,
		Env:            []string{"PATH=/usr/bin:/bin"},
	}
	ctx := context.Background()
	if _, _, err := Install(Codex, &o.InstallOptions); err != nil {
		t.Fatal(err)
	}
	st := CheckStatus(ctx, Codex, &o)
	if st.OK() || !strings.Contains(st.String(), "untrusted") {
		t.Fatalf("status of an untrusted hook:\n%s", st)
	}
	if err := TrustCodex(ctx, &o); err != nil {
		t.Fatal(err)
	}
	cfg := readFile(t, filepath.Join(codexHome, "config.toml"))
	if !strings.Contains(cfg, `[hooks.state."`+filepath.Join(codexHome, "config.toml")+`:pre_tool_use:0:0"]`) ||
		!strings.Contains(cfg, `trusted_hash = "sha256:fake"`) {
		t.Fatalf("the trust is not recorded:\n%s", cfg)
	}
	st = CheckStatus(ctx, Codex, &o)
	if !st.OK() {
		t.Fatalf("status after TrustCodex:\n%s", st)
	}
	// Installing again keeps the trust; uninstalling removes it with the
	// block.
	if _, _, err := Install(Codex, &o.InstallOptions); err != nil {
		t.Fatal(err)
	}
	if cfg := readFile(t, filepath.Join(codexHome, "config.toml")); !strings.Contains(cfg, "trusted_hash") {
		t.Errorf("reinstalling dropped the trust:\n%s", cfg)
	}
	if _, _, err := Uninstall(Codex, &o.InstallOptions); err != nil {
		t.Fatal(err)
	}
	if cfg := readFile(t, filepath.Join(codexHome, "config.toml")); cfg != "model = \"m\"\n" {
		t.Errorf("uninstall left:\n%s", cfg)
	}
	// Without a codex to ask, trust cannot be recorded, and the error says
	// what to run.
	o.Codex = filepath.Join(dir, "no-such-codex")
	if _, _, err := Install(Codex, &o.InstallOptions); err != nil {
		t.Fatal(err)
	}
	if err := TrustCodex(ctx, &o); err == nil {
		t.Error("TrustCodex with a missing codex succeeded")
	}
	if _, err := exec.LookPath("codex"); err != nil {
		o.Codex = ""
		if err := TrustCodex(ctx, &o); err == nil || !strings.Contains(err.Error(), "--codex") {
			t.Errorf("TrustCodex without codex on PATH: %v", err)
		}
	}
}

func TestCheckStatusClaudeProbe(t *testing.T) {
	dir := t.TempDir()
	tg := filepath.Join(dir, "bin", "toolgate")
	writeFile(t, tg, fakeHook)
	if err := os.Chmod(tg, 0o755); err != nil {
		t.Fatal(err)
	}
	o := StatusOptions{InstallOptions: InstallOptions{Home: filepath.Join(dir, "home"), Dir: dir, Command: tg + " hook claude"}, Env: []string{}}
	if _, _, err := Install(Claude, &o.InstallOptions); err != nil {
		t.Fatal(err)
	}
	if st := CheckStatus(context.Background(), Claude, &o); !st.OK() {
		t.Errorf("status:\n%s", st)
	}
	// A hook that allows the probe is not toolgate deciding.
	writeFile(t, tg, "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'\n")
	if st := CheckStatus(context.Background(), Claude, &o); st.OK() || !strings.Contains(st.String(), `answered "allow"`) {
		t.Errorf("status of an allowing hook:\n%s", st)
	}
	// A hook that exits 2 blocks every call: not live.
	writeFile(t, tg, "#!/bin/sh\necho broken >&2\nexit 2\n")
	if st := CheckStatus(context.Background(), Claude, &o); st.OK() || !strings.Contains(st.String(), "blocks every call") {
		t.Errorf("status of a blocking hook:\n%s", st)
	}
}
