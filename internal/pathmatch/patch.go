package pathmatch

import (
	"strconv"
	"strings"
)

// PatchError is a malformed apply_patch body. Line is 1-based.
type PatchError struct {
	Line int
	Msg  string
}

// Error implements error.
func (e *PatchError) Error() string {
	return "apply_patch: line " + strconv.Itoa(e.Line) + ": " + e.Msg
}

var patchHeaders = [...]string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"}

// PatchPaths returns the path of every "*** Add File:", "*** Update File:",
// "*** Delete File:" and "*** Move to:" header of a V4A apply_patch body, in
// order, trimmed. Lines end in "\n" or "\r\n". An indented header line
// (a context line that looks like one) counts as a header too: it can only
// add paths to check.
//
// A [*PatchError] names the line of the problem: no "*** Begin Patch" first
// line (after leading blank lines), a second "*** Begin Patch", no
// "*** End Patch", anything but blank lines after it, a header with an empty
// path, an unknown "*** " line, or no file headers at all.
func PatchPaths(body string) ([]string, error) {
	var paths []string
	begun, ended := false, false
	n := 0
	for line := range strings.SplitSeq(body, "\n") {
		n++
		t := strings.TrimSpace(line)
		switch {
		case ended:
			if t != "" {
				return nil, &PatchError{n, "text after *** End Patch"}
			}
		case !begun:
			if t == "" {
				continue
			}
			if t != "*** Begin Patch" {
				return nil, &PatchError{n, `the patch does not start with "*** Begin Patch"`}
			}
			begun = true
		case t == "*** Begin Patch":
			return nil, &PatchError{n, `a second "*** Begin Patch"`}
		case t == "*** End Patch":
			ended = true
		case t == "*** End of File":
		case strings.HasPrefix(t, "***"):
			h := headerPath(t)
			if h == nil {
				if line[0] == ' ' || line[0] == '\t' {
					continue // an indented line: context text, not a header
				}
				return nil, &PatchError{n, "unknown patch header " + strconv.Quote(t)}
			}
			if *h == "" {
				return nil, &PatchError{n, "file header without a path"}
			}
			paths = append(paths, *h)
		}
	}
	switch {
	case !begun:
		return nil, &PatchError{n, `the patch does not start with "*** Begin Patch"`}
	case !ended:
		return nil, &PatchError{n, `the patch does not end with "*** End Patch"`}
	case len(paths) == 0:
		return nil, &PatchError{n, "the patch has no file headers"}
	}
	return paths, nil
}

// headerPath returns the trimmed path of a file header line, or nil when the
// line is no file header.
func headerPath(t string) *string {
	for _, h := range patchHeaders {
		if rest, ok := strings.CutPrefix(t, h); ok {
			p := strings.TrimSpace(rest)
			return &p
		}
	}
	return nil
}
