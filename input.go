package toolgate

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/internal/jsonin"
	"github.com/toolgate/toolgate/internal/pathmatch"
	"github.com/toolgate/toolgate/internal/shell"
)

// pathFields are the input fields read as paths, in order.
var pathFields = [...]string{"file_path", "path", "absolute_path", "notebook_path", "dir_path", "directory", "source", "destination", "target"}

// validToolName reports whether name is 1–128 characters from
// [A-Za-z0-9_.:/-].
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == ':' || c == '/' || c == '-') {
			return false
		}
	}
	return true
}

// invalidf builds the "invalid" denial.
func invalidf(format string, args ...any) Decision {
	return Denial(KindInvalid, fmt.Sprintf(format, args...))
}

// pathItem is one path a call names, with the readings matching needs.
type pathItem struct {
	text   string    // as written
	abs    string    // absolute and clean; "" when it cannot be placed
	formv  [3]string // abs, the symlink target when it differs, the physical reading of a ".." after a symlink
	nform  int
	glob   bool // holds unexpanded glob characters
	dots   bool // glob: its wildcards also produce names starting with '.' (a read call's glob)
	placed bool
	// unresolved marks a path whose symlinks could not be resolved: its
	// target is unknown, so no allow rule or workspace default covers it.
	unresolved bool
	// proc says what a path through /proc or /dev/fd names
	// (pathmatch.Proc): for ProcAlias, abs is the place it stands for.
	proc pathmatch.ProcKind
}

// newPathItem places p against cwd and home and resolves symlinks.
func (cc *callCtx) newPathItem(text, dir string, glob bool) pathItem {
	it := pathItem{text: text, glob: glob}
	if dir == "" && !path.IsAbs(text) && !strings.HasPrefix(text, "~") {
		return it
	}
	abs, ok := pathmatch.Abs(text, dir, cc.home)
	if !ok {
		return it
	}
	written := ""
	switch t, k := pathmatch.Proc(abs, dir); {
	case k == pathmatch.NotProc:
		procDotDot(&it, abs, text)
	case k == pathmatch.ProcAlias && !pathmatch.HasDotDot(text):
		// /proc/self/cwd/x is x in the working directory of the process
		// that opens it, not of this one: it is read as that path, and
		// the path as written stays a form for deny rules.
		written, abs = abs, t
		it.proc = k
	case k == pathmatch.ProcAlias:
		it.proc, it.unresolved = pathmatch.ProcUnknown, true
	case k == pathmatch.ProcUnknown:
		// Another process's directories: which file it names cannot be
		// told.
		it.proc, it.unresolved = k, true
	default:
		// An open descriptor: a shell's own redirections are read where
		// they open the file; a read call's is floored (pathFloors).
		it.proc = k
	}
	it.abs, it.placed = abs, true
	it.formv[0], it.nform = abs, 1
	if r := cc.c.opts.ResolveSymlinks; r != nil && !glob && it.proc != pathmatch.ProcUnknown && it.proc != pathmatch.ProcDescriptor {
		t, err := r(abs)
		switch {
		case err != nil:
			it.unresolved = true
		case t != "" && t != abs:
			it.formv[1], it.nform = path.Clean(t), 2
		}
		cc.physicalForm(&it, text, dir)
	}
	if written != "" && it.nform < len(it.formv) {
		it.formv[it.nform] = written
		it.nform++
	}
	return it
}

// procDotDot marks it, placed at abs and written as text, as naming an
// unknown file when text has a ".." and abs is under /proc:
// /proc/self/cwd/../x cleans lexically to /proc/self/x, where the kernel
// goes to the parent of the working directory.
func procDotDot(it *pathItem, abs, text string) {
	if pathmatch.HasDotDot(text) && (it.proc == pathmatch.ProcAlias || strings.HasPrefix(abs, "/proc/")) {
		it.proc, it.unresolved = pathmatch.ProcUnknown, true
	}
}

// physicalForm adds to it the physical reading of text, written relative
// to dir: the kernel applies a ".." after a symlink to the link's target
// (docs/x/../y with docs/x -> ../src is src/../y), where Clean drops it
// lexically. Deny rules match either reading, allow rules need both.
func (cc *callCtx) physicalForm(it *pathItem, text, dir string) {
	r := cc.c.opts.ResolveSymlinks
	raw, ok := pathmatch.RawAbs(text, dir, cc.home)
	if r == nil || !ok || it.unresolved || !it.placed || it.glob || it.proc != pathmatch.NotProc {
		return
	}
	switch ph, err := pathmatch.Physical(raw, r); {
	case err != nil:
		it.unresolved = true
	case ph != it.formv[0] && ph != it.formv[1] && it.nform < len(it.formv):
		it.formv[it.nform] = ph
		it.nform++
	}
}

// forms returns the readings of the path: itself, then its symlink target.
func (it *pathItem) forms() []string { return it.formv[:it.nform] }

// constName returns the string among names equal to key, so that naming a
// key costs no copy; a copy of key when there is none.
func constName(key []byte, names []string) string {
	for _, n := range names {
		if string(key) == n {
			return n
		}
	}
	return string(key)
}

// readPaths reads the path fields of a read or edit call. It returns an
// invalid decision when a path field is malformed.
func (cc *callCtx) readPaths() ([]pathItem, *Decision) {
	items := cc.itemBuf[:0]
	root := cc.input
	// read_many_files reads every file its paths and include entries
	// match, as globs whose wildcards also match dot-files (SPEC §4.2).
	globs := cc.canon == "read_many_files"
	add := func(field string, v jsonin.Value) *Decision {
		s, ok := v.Str()
		if !ok {
			d := invalidf("field %q must be a string path", field)
			return &d
		}
		if v.HasControl() {
			d := invalidf("field %q holds a control character", field)
			return &d
		}
		if s == "" {
			d := invalidf("field %q is an empty path", field)
			return &d
		}
		if globs && (field == "paths" || field == "include") && pathmatch.HasGlob(s) {
			items = cc.appendGlob(items, s)
			return nil
		}
		items = append(items, cc.newPathItem(s, cc.cwd, false))
		return nil
	}

	var bad *Decision
	var pathsV, filesV, patternV, includeV jsonin.Value
	root.MemberKeys(func(key []byte, v jsonin.Value) bool {
		switch string(key) {
		case "file_path", "path", "absolute_path", "notebook_path", "dir_path", "directory", "source", "destination", "target":
			bad = add(constName(key, pathFields[:]), v)
		case "paths":
			pathsV = v
		case "include":
			if globs {
				includeV = v
			}
		case "files":
			filesV = v
		case "pattern":
			patternV = v
		}
		return bad == nil
	})
	if bad != nil {
		return nil, bad
	}
	if f := cc.info.Field; f != "" && !slices.Contains(pathFields[:], f) {
		if v := root.Lookup(f); v.Exists() {
			if d := add(f, v); d != nil {
				return nil, d
			}
		}
	}
	for _, a := range [...]struct {
		field string
		v     jsonin.Value
	}{{"paths", pathsV}, {"include", includeV}} {
		if !a.v.Exists() {
			continue
		}
		if a.v.Kind() != jsonin.Array {
			d := invalidf("field %q must be an array of strings", a.field)
			return nil, &d
		}
		for i := 0; i < a.v.Len(); i++ {
			if d := add(a.field, a.v.Index(i)); d != nil {
				return nil, d
			}
		}
	}
	if v := filesV; v.Exists() {
		if v.Kind() != jsonin.Array {
			d := invalidf("field \"files\" must be an array of objects")
			return nil, &d
		}
		for i := 0; i < v.Len(); i++ {
			e := v.Index(i)
			p := e.Get("path")
			if e.Kind() != jsonin.Object || !p.Exists() {
				d := invalidf("field \"files\" must hold objects with a \"path\"")
				return nil, &d
			}
			if d := add("files[].path", p); d != nil {
				return nil, d
			}
		}
	}
	if cc.info.Kind == KindList {
		if v := patternV; v.Exists() {
			s, ok := v.Str()
			if !ok {
				d := invalidf("field \"pattern\" must be a string")
				return nil, &d
			}
			if v.HasControl() {
				d := invalidf("field \"pattern\" holds a control character")
				return nil, &d
			}
			base := cc.cwd
			if len(items) > 0 && items[0].placed {
				base = items[0].abs
			}
			if dir := pathmatch.LiteralDir(s); dir != "" {
				items = append(items, cc.newPathItem(dir, base, false))
			}
			if pathmatch.DotDotAfterGlob(s) {
				// */../../other/* can reach any directory: never inside the
				// workspace, no allow rule covers it (SPEC §4.2).
				it := cc.newPathItem(s, base, true)
				it.unresolved = true
				items = append(items, it)
			}
		}
	}
	if cc.canon == "apply_patch" || cc.info.Kind == KindEdit {
		// Codex sends the patch as "command"; every body field present is
		// read (deny sees every form).
		for _, f := range [...]string{"patch", "input", "content", "command"} {
			if cc.canon != "apply_patch" && f != "patch" {
				break
			}
			v := root.Get(f)
			if !v.Exists() {
				continue
			}
			body, ok := v.Str()
			if !ok {
				d := invalidf("field %q must be a string patch", f)
				return nil, &d
			}
			if cc.canon != "apply_patch" && !strings.HasPrefix(strings.TrimSpace(body), "*** Begin Patch") {
				continue
			}
			ps, err := pathmatch.PatchPaths(body)
			if err != nil {
				d := invalidf("malformed apply_patch body: %v", err)
				return nil, &d
			}
			for _, p := range ps {
				if strings.ContainsRune(p, 0) {
					d := invalidf("apply_patch header path holds a NUL")
					return nil, &d
				}
				items = append(items, cc.newPathItem(p, cc.cwd, false))
			}
		}
	}
	if len(items) == 0 {
		switch cc.info.Kind {
		case KindList, KindSearch:
			items = append(items, cc.newPathItem(cc.cwd, cc.cwd, false))
		default:
			d := invalidf("%s call names no path", cc.tool)
			return nil, &d
		}
	}
	return items, nil
}

// maxGlobMatches caps the names one glob of a read call adds.
const maxGlobMatches = 1000

// appendGlob adds a read call's glob: the glob itself (deny rules match
// any name it could produce, dot-files included), and, where the file
// system is available, every name it matches now. A ".." after a glob
// component can lead anywhere (the component may be a symlink): such a
// glob satisfies no allow rule and is never inside the workspace.
func (cc *callCtx) appendGlob(items []pathItem, s string) []pathItem {
	it := cc.newPathItem(s, cc.cwd, true)
	it.dots = true
	if pathmatch.DotDotAfterGlob(s) {
		it.unresolved = true
	}
	items = append(items, it)
	g := cc.c.opts.Glob
	if g == nil || !it.placed {
		return items
	}
	n := 0
	for _, p := range append([]string{it.abs}, pathmatch.DotVariants(it.abs)...) {
		ms, err := g(p)
		if err != nil {
			items[len(items)-n-1].unresolved = true // unknown matches: as a link of unknown target
			continue
		}
		for _, m := range ms {
			if n == maxGlobMatches {
				// The names past the cap are not checked: the glob
				// satisfies no allow rule and counts as a secret read.
				items[len(items)-n-1].unresolved = true
				return items
			}
			items = append(items, cc.newPathItem(m, cc.cwd, false))
			n++
		}
	}
	return items
}

// shellDirFields are the working-directory fields of the shell tools that
// have one (SPEC §1.1), by catalog name.
var shellDirFields = map[string][]string{
	"run_shell_command": {"dir_path", "directory"},
	"exec_command":      {"workdir"},
	"shell":             {"workdir"},
	"local_shell":       {"action.working_directory"},
}

// readShellDir reads a shell call's working-directory field, resolved
// against cwd, into cc.dir: the command's relative paths, its cds and the
// workspace test start there. Without the field the command runs in cwd.
// A field that is not a non-empty string path, or two fields naming
// different directories, make the call invalid.
func (cc *callCtx) readShellDir() *Decision {
	cc.dir = cc.cwd
	for _, f := range shellDirFields[cc.canon] {
		v := cc.input.Lookup(f)
		if !v.Exists() {
			continue
		}
		s, ok := v.Str()
		switch {
		case !ok:
			d := invalidf("field %q must be a string path", f)
			return &d
		case v.HasControl():
			d := invalidf("field %q holds a control character", f)
			return &d
		case s == "":
			d := invalidf("field %q is an empty path", f)
			return &d
		}
		abs, ok := pathmatch.Abs(s, cc.cwd, cc.home)
		if !ok {
			d := invalidf("field %q: working directory %q cannot be placed", f, s)
			return &d
		}
		if cc.dirField != "" && abs != cc.dir {
			d := invalidf("fields %q and %q name different working directories", cc.dirField, f)
			return &d
		}
		cc.dir, cc.dirField = abs, f
	}
	return nil
}

// shellCommand reads the command of a shell call: a string, or an argv
// array quoted into one. It also reads the call's working directory.
func (cc *callCtx) shellCommand() (string, *Decision) {
	if d := cc.readShellDir(); d != nil {
		return "", d
	}
	field := cc.info.Field
	if field == "" {
		field = "command"
	}
	v := cc.input.Lookup(field)
	if !v.Exists() {
		d := invalidf("shell call has no %q field", field)
		return "", &d
	}
	switch v.Kind() {
	case jsonin.String:
		s, _ := v.Str()
		if v.HasControl() {
			d := invalidf("command holds a NUL or control character")
			return "", &d
		}
		return s, nil
	case jsonin.Array:
		var b strings.Builder
		for i := 0; i < v.Len(); i++ {
			e := v.Index(i)
			s, ok := e.Str()
			if !ok {
				d := invalidf("command array must hold only strings")
				return "", &d
			}
			if e.HasControl() {
				d := invalidf("command holds a NUL or control character")
				return "", &d
			}
			q, err := shell.Quote(s)
			if err != nil {
				d := invalidf("command argument %d cannot be quoted: %v", i, err)
				return "", &d
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(q)
		}
		if b.Len() == 0 {
			d := invalidf("command array is empty")
			return "", &d
		}
		return b.String(), nil
	}
	d := invalidf("command must be a string or an array of strings")
	return "", &d
}
