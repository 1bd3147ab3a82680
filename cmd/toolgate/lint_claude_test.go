package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// The real-looking Claude Code settings files of config/testdata/claude are
// valid for Claude Code: lint reports their shapes, but never an error.
func TestLintClaudeFiles(t *testing.T) {
	files, err := filepath.Glob("../../config/testdata/claude/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no files: %v", err)
	}
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		var out, errb bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
			getenv:      func(string) string { return "" },
			getwd:       func() (string, error) { return t.TempDir(), nil },
			interactive: func() bool { return false }}
		if code := c.main([]string{"lint", "--config", "project=" + abs}); code != 0 || strings.Contains(out.String(), "error[") {
			t.Errorf("%s: lint exit %d\n%s%s", f, code, out.String(), errb.String())
		}
		if !strings.Contains(out.String(), "warning[") {
			t.Errorf("%s: no warnings; every file holds a shape lint reports\n%s", f, out.String())
		}
	}
}
