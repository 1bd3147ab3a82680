package config

import (
	"bytes"
	"strings"
)

// The txtar format (comment, then "-- name --" marker lines each starting a
// file). github.com/rogpeppe/go-internal/txtar wraps golang.org/x/tools/txtar,
// which is not in go.mod, so the tests carry this small reader and writer.

type archive struct {
	comment []byte
	files   []archiveFile
}

type archiveFile struct {
	name string
	data []byte
}

func parseArchive(data []byte) *archive {
	a := &archive{}
	var cur *archiveFile
	var buf []byte
	flush := func() {
		if cur == nil {
			a.comment = buf
		} else {
			cur.data = buf
			a.files = append(a.files, *cur)
		}
		buf = nil
	}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		t := strings.TrimRight(string(line), "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			cur = &archiveFile{name: strings.TrimSpace(t[3 : len(t)-3])}
			continue
		}
		buf = append(buf, line...)
	}
	flush()
	return a
}

func formatArchive(a *archive) []byte {
	var b bytes.Buffer
	b.Write(fixNL(a.comment))
	for _, f := range a.files {
		b.WriteString("-- " + f.name + " --\n")
		b.Write(fixNL(f.data))
	}
	return b.Bytes()
}

func fixNL(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	return append(append([]byte(nil), b...), '\n')
}
