package bashdiff

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// CorpusCommand is a shell command found in the project's test data.
type CorpusCommand struct {
	// Source names the file and line it came from.
	Source string
	Cmd    string
}

// CorpusCommands collects every shell command in the policy corpus
// (testdata/corpus/*.txtar: the "command" of any tool input, or the script
// of a ["bash", "-c", script] argv) and in the shell package's test data
// (fuzz seed files and corpus-style archives), relative to the module
// root. Duplicates are dropped.
func CorpusCommands(moduleRoot string) ([]CorpusCommand, error) {
	var out []CorpusCommand
	seen := map[string]bool{}
	add := func(src, cmd string) {
		if cmd == "" || seen[cmd] {
			return
		}
		seen[cmd] = true
		out = append(out, CorpusCommand{Source: src, Cmd: cmd})
	}
	var files []string
	for _, dir := range []string{filepath.Join(moduleRoot, "testdata", "corpus"), filepath.Join(moduleRoot, "internal", "shell", "testdata")} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if d.IsDir() && p != dir && strings.HasSuffix(p, "bashdiff") {
				return filepath.SkipDir
			}
			if !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(moduleRoot, f)
		text := string(data)
		if strings.HasPrefix(text, "go test fuzz v1\n") {
			for i, line := range strings.Split(text, "\n")[1:] {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "string(") && strings.HasSuffix(line, ")") {
					if s, err := strconv.Unquote(line[len("string(") : len(line)-1]); err == nil {
						add(rel+":"+strconv.Itoa(i+2), s)
					}
				}
			}
			continue
		}
		for i, line := range strings.Split(text, "\n") {
			if cmd, ok := commandOfCase(line); ok {
				add(rel+":"+strconv.Itoa(i+1), cmd)
			}
		}
	}
	return out, nil
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// commandOfCase reads `... TOOL {json} => outcome` and returns the shell
// command in the JSON input, if any: its "command" or "cmd" member (Claude
// Code, Gemini CLI, Codex exec_command), or that of its "action" (Codex
// local_shell), as a string or an argv.
func commandOfCase(line string) (string, bool) {
	arrow := strings.LastIndex(line, " => ")
	open := strings.IndexByte(line, '{')
	if arrow < 0 || open < 0 || open > arrow || strings.HasPrefix(strings.TrimSpace(line), "#") {
		return "", false
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(line[open:arrow]), &in); err != nil {
		return "", false
	}
	var v any
	for _, obj := range []map[string]any{in, asObject(in["action"])} {
		for _, key := range []string{"command", "cmd"} {
			if x, ok := obj[key]; ok && v == nil {
				v = x
			}
		}
	}
	switch c := v.(type) {
	case string:
		return c, true
	case []any:
		var argv []string
		for _, a := range c {
			s, ok := a.(string)
			if !ok {
				return "", false
			}
			argv = append(argv, s)
		}
		if len(argv) >= 3 && (path.Base(argv[0]) == "bash" || path.Base(argv[0]) == "sh" || path.Base(argv[0]) == "zsh") &&
			strings.HasPrefix(argv[1], "-") && strings.HasSuffix(argv[1], "c") {
			return argv[2], true
		}
		if len(argv) > 0 {
			q := make([]string, len(argv))
			for i, a := range argv {
				q[i] = sq(a)
			}
			return strings.Join(q, " "), true
		}
	}
	return "", false
}
