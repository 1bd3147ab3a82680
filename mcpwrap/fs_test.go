package mcpwrap

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWrapFiles wraps and unwraps a real file: permissions kept, the state
// file private and removed at the end, a symbolic link kept a link, and
// nothing written on a dry run or a refusal.
func TestWrapFiles(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(claudeIn), 0o640); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".claude.json")
	if err := os.Symlink(real, path); err != nil {
		t.Fatal(err)
	}
	o := Options{Command: testCommand}

	if _, err := Wrap(Claude, path, &o, nil, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != claudeIn {
		t.Fatal("a dry run wrote the file")
	}
	if _, err := os.Stat(StatePath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a dry run wrote the state: %v", err)
	}

	res, err := Wrap(Claude, path, &o, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	b, _ := os.ReadFile(real)
	if string(b) != string(res.Content) || !strings.Contains(string(b), NameFlag) {
		t.Fatalf("the file was not wrapped:\n%s", b)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Errorf("permissions %v, want 0640", fi.Mode().Perm())
	}
	st, err := os.Stat(StatePath(path))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("state permissions %v, want 0600", st.Mode().Perm())
	}

	// Again: nothing changes, not even the modification times.
	before, _ := os.Stat(real)
	if res, err := Wrap(Claude, path, &o, nil, false); err != nil || res.Changed {
		t.Fatalf("wrap again: %v, changed %v", err, res != nil && res.Changed)
	}
	if after, _ := os.Stat(real); !after.ModTime().Equal(before.ModTime()) {
		t.Error("wrapping again rewrote the file")
	}

	un, err := Unwrap(Claude, path, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(real); string(b) != claudeIn || !un.Identical {
		t.Fatalf("unwrap gives\n%s", b)
	}
	if _, err := os.Stat(StatePath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the state file is left: %v", err)
	}

	// A refusal writes nothing.
	bad := filepath.Join(dir, ".mcp.json")
	const remote = `{"mcpServers":{"r":{"type":"sse","url":"https://x"},"l":{"command":"x"}}}`
	if err := os.WriteFile(bad, []byte(remote), 0o644); err != nil {
		t.Fatal(err)
	}
	var re *RefusedError
	if _, err := Wrap(Claude, bad, &o, nil, false); !errors.As(err, &re) || len(re.Entries) != 1 {
		t.Fatalf("want a refusal of one entry, got %v", err)
	}
	if b, _ := os.ReadFile(bad); string(b) != remote {
		t.Error("a refusal wrote the file")
	}
	if _, err := Wrap(Claude, filepath.Join(dir, "missing.json"), &o, nil, false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
}

// changingFS is a file system whose file changes after the first read, as
// when the client writes it while toolgate edits it.
type changingFS struct {
	OSFS
	path  string
	reads int
}

func (c *changingFS) ReadFile(name string) ([]byte, error) {
	b, err := c.OSFS.ReadFile(name)
	if name == c.path {
		c.reads++
		if c.reads > 1 {
			return append(b, ' '), err
		}
	}
	return b, err
}

// TestWrapConcurrentChange refuses to replace a file that changed while it
// was being edited.
func TestWrapConcurrentChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".mcp.json")
	if err := os.WriteFile(path, []byte(claudeIn), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Wrap(Claude, path, &Options{Command: testCommand}, &changingFS{path: path}, false)
	if err == nil || !strings.Contains(err.Error(), "changed while") {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != claudeIn {
		t.Error("the file was written")
	}
}

func TestConfigPath(t *testing.T) {
	l := Location{Dir: "/p", Home: "/h"}
	for _, tc := range []struct {
		c     Client
		scope Scope
		l     Location
		want  string
	}{
		{Claude, ScopeDefault, l, "/p/.mcp.json"},
		{Claude, ScopeUser, l, "/h/.claude.json"},
		{Claude, ScopeUser, Location{Home: "/h", ClaudeConfigDir: "/c"}, "/c/.claude.json"},
		{Gemini, ScopeDefault, l, "/h/.gemini/settings.json"},
		{Gemini, ScopeProject, l, "/p/.gemini/settings.json"},
		{Codex, ScopeDefault, l, "/h/.codex/config.toml"},
		{Codex, ScopeUser, Location{Home: "/h", CodexHome: "/ch"}, "/ch/config.toml"},
		{Codex, ScopeProject, l, "/p/.codex/config.toml"},
		{Cursor, ScopeDefault, l, "/p/.cursor/mcp.json"},
		{Cursor, ScopeUser, l, "/h/.cursor/mcp.json"},
	} {
		tc.l.Scope = tc.scope
		got, err := ConfigPath(tc.c, tc.l)
		if err != nil || got != tc.want {
			t.Errorf("%s %q: %q, %v; want %q", tc.c, tc.scope, got, err, tc.want)
		}
	}
	if _, err := ConfigPath(Claude, Location{Dir: "rel"}); err == nil {
		t.Error("a relative directory is accepted")
	}
	if _, err := ConfigPath("vim", l); err == nil {
		t.Error("an unknown client is accepted")
	}
}
