package pathmatch

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestPatchPaths(t *testing.T) {
	all := "*** Begin Patch\n" +
		"*** Add File: new.txt\n+hello\n" +
		"*** Update File: src/app.py\n*** Move to:  src/main.py  \n@@ def f():\n-a\n+b\n" +
		"*** Delete File: old.txt\n" +
		"*** Update File: ../.env\n@@\n *** not a header\n-x\n+y\n*** End of File\n" +
		"*** End Patch\n"
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"all four", all, []string{"new.txt", "src/app.py", "src/main.py", "old.txt", "../.env"}},
		{"crlf", strings.ReplaceAll(all, "\n", "\r\n"), []string{"new.txt", "src/app.py", "src/main.py", "old.txt", "../.env"}},
		{"leading blank lines", "\n  \n  *** Begin Patch\n*** Delete File: a\n*** End Patch", []string{"a"}},
		{"trailing blank", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n\r\n", []string{"a"}},
		{"indented header counts", "*** Begin Patch\n*** Update File: a\n@@\n *** Delete File: b\n*** End Patch", []string{"a", "b"}},
		{"no space after colon", "*** Begin Patch\n*** Delete File:a\n*** End Patch", []string{"a"}},
	}
	for _, tt := range tests {
		got, err := PatchPaths(tt.body)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: PatchPaths = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestPatchPathsErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		line int
	}{
		{"empty", "", 1},
		{"no begin", "*** Add File: a\n*** End Patch\n", 1},
		{"begin late", "\n\nhello\n*** Begin Patch\n", 3},
		{"no end", "*** Begin Patch\n*** Add File: a\n+x\n", 4},
		{"empty path", "*** Begin Patch\n*** Add File: a\n+x\n*** Update File:   \n*** End Patch", 4},
		{"empty path crlf", "*** Begin Patch\r\n*** Delete File:\r\n*** End Patch\r\n", 2},
		{"no headers", "*** Begin Patch\n*** End Patch\n", 3},
		{"unknown header", "*** Begin Patch\n*** Rename File: a\n*** End Patch", 2},
		{"after end", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n", 4},
		{"second begin", "*** Begin Patch\n*** Begin Patch\n*** Delete File: a\n*** End Patch", 2},
	}
	for _, tt := range tests {
		_, err := PatchPaths(tt.body)
		var pe *PatchError
		if !errors.As(err, &pe) {
			t.Errorf("%s: err = %v; want a *PatchError", tt.name, err)
			continue
		}
		if pe.Line != tt.line {
			t.Errorf("%s: line %d (%v); want %d", tt.name, pe.Line, pe, tt.line)
		}
	}
}
