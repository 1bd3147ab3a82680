//go:build linux

package bashdiff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxSealed runs commands that try to write outside the sandbox's
// fixture, with real bash, sed, find and env, against a world-writable
// canary, and checks that nothing changed and that the attempts were seen.
func TestSandboxSealed(t *testing.T) {
	s := sandbox(t)
	outside, err := os.MkdirTemp("", "bashdiff-canary")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(outside)
	os.Chmod(outside, 0o777)
	canary := filepath.Join(outside, "canary.txt")
	if err := os.WriteFile(canary, []byte("intact\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(canary, 0o666)
	shimBefore, err := os.ReadFile(filepath.Join(s.binDir, "ls"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := []string{
		"echo pwned > " + canary,
		"echo pwned >> " + canary + "; : > " + outside + "/new",
		"sed -i s/intact/pwned/ " + canary,
		"find " + outside + " -name canary.txt -delete",
		"env -i /usr/bin/bash -c 'echo pwned > " + canary + "'",
		"cd " + outside + " && echo pwned > canary.txt",
		": > /usr/bin/ls; echo x > /bin/rm",
		"kill -9 -1; echo after > out.txt",
		"kill -TERM 1; kill -HUP 1; kill -INT 1; kill -QUIT 1; kill -USR1 1; kill -9 1",
		"echo x > /dev/tcp/127.0.0.1/9",
		"rm -rf --no-preserve-root / ; /bin/rm -rf /*",
	}
	for _, c := range cmds {
		tr := s.Run(c)
		if tr.Err != "" {
			t.Errorf("%q: harness error %s", c, tr.Err)
		}
		if strings.Contains(c, canary) && !strings.HasPrefix(c, "find") {
			seen := false
			for _, e := range tr.Events {
				if (e.Kind == KindWrite || e.Kind == KindExec) && (strings.HasPrefix(e.Path, outside) || strings.Contains(strings.Join(e.Argv, " "), outside)) {
					seen = true
				}
			}
			if !seen {
				t.Errorf("%q: the attempt on the canary was not recorded: %v", c, tr.Events)
			}
		}
	}
	if b, err := os.ReadFile(canary); err != nil || string(b) != "intact\n" {
		t.Fatalf("the canary outside the sandbox changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Fatal("a file was created outside the sandbox")
	}
	if after, _ := os.ReadFile(filepath.Join(s.binDir, "ls")); string(after) != string(shimBefore) {
		t.Fatal("a shim was overwritten")
	}
	// The sandbox still works after kill -9 -1.
	if tr := s.Run("git status"); tr.Err != "" || len(tr.Events) == 0 {
		t.Fatalf("sandbox broken after the hostile commands: %+v", tr)
	}
}
