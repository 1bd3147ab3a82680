package mcpwrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Options configure [Wrap], [Unwrap], [WrapText] and [UnwrapText].
type Options struct {
	// Command is the toolgate program a wrapped entry runs, as the client
	// should start it (best an absolute path). Wrap needs it; Unwrap uses
	// it only to recognise wrapped entries (a program named toolgate or
	// toolgate-* is recognised anyway).
	Command string
	// ProxyArgs are extra flags for the proxy, put between "mcp" and
	// --upstream-name (for example "--config=/etc/toolgate/policy.yaml").
	ProxyArgs []string
	// Servers selects servers by name; empty means every server.
	Servers []string
	// Partial lets Wrap wrap the servers it can when it must refuse
	// others; without it a refusal means nothing is written.
	Partial bool
}

// Action is what happened to one server entry.
type Action string

// The actions.
const (
	Wrapped        Action = "wrapped"
	AlreadyWrapped Action = "already wrapped"
	Refused        Action = "refused"
	Restored       Action = "restored"            // the recorded original text was put back
	Rebuilt        Action = "restored from entry" // no usable record: rebuilt from the wrapped entry
	NotWrapped     Action = "not wrapped"
)

// Entry is the outcome for one server entry.
type Entry struct {
	// Name is the server's name (its key in the client's configuration).
	Name string
	// Where is the entry's place in the file: mcpServers.fs,
	// projects["/p"].mcpServers.fs, [mcp_servers.fs].
	Where string
	// Action is what was done.
	Action Action
	// Reason explains a refusal or a rebuild.
	Reason string
}

func (e Entry) String() string {
	s := e.Where + ": " + string(e.Action)
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Result is the outcome of a wrap or an unwrap.
type Result struct {
	// Path is the configuration file.
	Path string
	// Content is the file's new content (its old one when nothing
	// changed).
	Content []byte
	// Changed reports whether Content differs from the old content.
	Changed bool
	// State is the new content of the state file; nil means the state
	// file is to be removed (nothing is wrapped any more).
	State []byte
	// Entries are the servers looked at, in file order.
	Entries []Entry
	// Identical reports, after an unwrap, that Content is byte for byte
	// the file as it was before it was first wrapped.
	Identical bool
	// Warnings are problems that did not stop the operation.
	Warnings []string
}

// RefusedError is returned by Wrap when selected entries cannot be
// wrapped (and Options.Partial is not set); nothing is written.
type RefusedError struct {
	Path    string
	Entries []Entry // the refused entries
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: cannot wrap %d server(s), so nothing was written (wrap the others with --partial, or select servers with --server):", e.Path, len(e.Entries))
	for _, en := range e.Entries {
		fmt.Fprintf(&b, "\n  %s: %s", en.Where, en.Reason)
	}
	return b.String()
}

// docServer is one server entry of a configuration file.
type docServer struct {
	name   string
	path   []string       // the entry's key path in the document
	where  string         // path rendered for messages
	fields map[string]any // nil when the entry is not an object
	keys   []string       // the entry's field names, in file order
}

// document is a parsed configuration file, JSON or TOML.
type document interface {
	servers() []docServer
	// generic is the whole file as plain values, for comparisons.
	generic() any
	// setCommand returns the text with an entry's command and args
	// values replaced.
	setCommand(s docServer, cmd string, args []string) (string, error)
	// recordText is the text recorded for an entry.
	recordText(s docServer) (string, error)
	// putRecord returns the text with an entry's span replaced by a
	// recorded text.
	putRecord(s docServer, text string) (string, error)
	// editable says why an entry's text cannot be edited, or "".
	editable(s docServer) string
}

func parseDoc(c Client, file, src string) (document, error) {
	if c == Codex {
		return parseTOMLDoc(file, src)
	}
	return parseJSONDoc(c, file, src)
}

func findServer(d document, path []string) (docServer, bool) {
	for _, s := range d.servers() {
		if equalKeys(s.path, path) {
			return s, true
		}
	}
	return docServer{}, false
}

// kind classifies an entry.
type kind int

const (
	kindRefuse kind = iota
	kindStdio
	kindWrapped
)

// classified is an entry's classification.
type classified struct {
	kind     kind
	reason   string
	cmd      string
	args     []string
	upstream []string // kindWrapped: the original command line
}

// classify decides whether an entry can be wrapped, is wrapped, or must be
// refused, and why.
func classify(c Client, s docServer, configured string) classified {
	if s.fields == nil {
		return classified{reason: "the entry is not an object"}
	}
	f := s.fields
	cmd, cmdIsString := f["command"].(string)
	args, argsOK := stringList(f["args"])
	if _, has := f["args"]; !has {
		args, argsOK = nil, true
	}
	if cmdIsString && argsOK {
		if _, up, ok := parseWrapped(cmd, args, configured); ok {
			return classified{kind: kindWrapped, cmd: cmd, args: args, upstream: up}
		}
	}
	for _, k := range remoteFields {
		if _, ok := f[k]; ok {
			return classified{reason: fmt.Sprintf("a server reached by URL (%q): the toolgate proxy fronts stdio servers only, so it cannot be wrapped", k)}
		}
	}
	if t, ok := f["type"]; ok && c != Codex {
		if ts, _ := t.(string); ts != "stdio" {
			return classified{reason: fmt.Sprintf("its type is %s, not \"stdio\": the toolgate proxy fronts stdio servers only, so it cannot be wrapped", jsonText(t))}
		}
	}
	if _, ok := f["command"]; !ok {
		return classified{reason: "the entry has no command"}
	}
	if !cmdIsString || cmd == "" {
		return classified{reason: "its command is not a non-empty string"}
	}
	if !argsOK {
		return classified{reason: "its args are not a list of strings"}
	}
	var unknown []string
	for _, k := range s.keys {
		if !fieldAllowed(c, k) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) > 0 {
		return classified{reason: fmt.Sprintf("field %s: toolgate does not know what %s does with it once the server runs behind the proxy", strings.Join(unknown, ", "), clientName(c))}
	}
	if p := nameProblem(c, s.name); p != "" {
		return classified{reason: p}
	}
	return classified{kind: kindStdio, cmd: cmd, args: args}
}

// stringList returns v as a list of strings.
func stringList(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		out[i] = s
	}
	return out, true
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// selected filters servers by name; a name that matches none is an error.
func selected(file string, all []docServer, names []string) ([]docServer, error) {
	if len(names) == 0 {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	found := map[string]bool{}
	var out []docServer
	for _, s := range all {
		if want[s.name] {
			out = append(out, s)
			found[s.name] = true
		}
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, fmt.Sprintf("%q", n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: no MCP server named %s", file, strings.Join(missing, ", "))
	}
	return out, nil
}

// WrapText computes the wrap of one configuration file: c's file named
// file (used for its layout and in messages) holding src, with the
// content of its state file (nil when there is none). It does no I/O.
func WrapText(c Client, file string, src, state []byte, o Options) (*Result, error) {
	if o.Command == "" {
		return nil, errors.New("no toolgate command to run the proxy")
	}
	if p := commandProblem(c, o.Command, o.ProxyArgs); p != "" {
		return nil, errors.New(p)
	}
	st, err := parseState(state)
	if err != nil {
		return nil, fmt.Errorf("%s: %v; remove it if %s is not wrapped", StatePath(file), err, file)
	}
	text := string(src)
	doc, err := parseDoc(c, file, text)
	if err != nil {
		return nil, err
	}
	sel, err := selected(file, doc.servers(), o.Servers)
	if err != nil {
		return nil, err
	}
	res := &Result{Path: file}
	var refused []Entry
	var todo []docServer
	var plans []classified
	for _, s := range sel {
		cl := classify(c, s, o.Command)
		if p := doc.editable(s); p != "" && cl.kind == kindStdio {
			cl = classified{reason: p}
		}
		e := Entry{Name: s.name, Where: s.where}
		switch cl.kind {
		case kindWrapped:
			e.Action = AlreadyWrapped
		case kindStdio:
			e.Action = Wrapped
			todo = append(todo, s)
			plans = append(plans, cl)
		default:
			e.Action, e.Reason = Refused, cl.reason
			refused = append(refused, e)
		}
		res.Entries = append(res.Entries, e)
	}
	if len(refused) > 0 && !o.Partial {
		return nil, &RefusedError{Path: file, Entries: refused}
	}
	for i, s := range todo {
		doc, err := parseDoc(c, file, text)
		if err != nil {
			return nil, fmt.Errorf("internal error: %v", err)
		}
		orig, err := doc.recordText(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, s.where, err)
		}
		upstream := append([]string{plans[i].cmd}, plans[i].args...)
		args := ProxyArgs(s.name, o.ProxyArgs, upstream)
		next, err := doc.setCommand(s, o.Command, args)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, s.where, err)
		}
		if err := checkEdit(c, file, text, next, s.path, o.Command, args, false); err != nil {
			return nil, err
		}
		st.put(s.path, orig)
		text = next
	}
	res.Content = []byte(text)
	res.Changed = text != string(src)
	if !res.Changed {
		res.Content = src
		res.State = state
		return res, nil
	}
	if st.Before == nil {
		b := string(src)
		st.Before = &b
	}
	st.Client = string(c)
	st.File = file
	res.State, err = st.encode()
	return res, err
}

// commandProblem says why the toolgate command or proxy flags cannot be
// written for client c, or "".
func commandProblem(c Client, cmd string, extra []string) string {
	for _, a := range append([]string{cmd}, extra...) {
		if expands(c) && strings.Contains(a, "$") {
			return fmt.Sprintf("%q holds '$', which %s would expand as a variable", a, clientName(c))
		}
		if strings.ContainsAny(a, "\x00\n\r") {
			return fmt.Sprintf("%q holds a control character", a)
		}
	}
	for _, a := range extra {
		if a == "--" || a == NameFlag || strings.HasPrefix(a, NameFlag+"=") {
			return fmt.Sprintf("the proxy argument %q is one wrap writes itself", a)
		}
		if !strings.HasPrefix(a, "-") {
			return fmt.Sprintf("the proxy argument %q is not a flag (write --flag=value)", a)
		}
	}
	return ""
}

// UnwrapText computes the unwrap of one configuration file (see
// [WrapText]). Each wrapped entry gets its recorded original text back
// when putting it back yields exactly what the wrapped entry says;
// otherwise (no record, or the entry was edited while wrapped) the entry's
// command and args are rebuilt from its own upstream command line, keeping
// its other fields as they are now.
func UnwrapText(c Client, file string, src, state []byte, o Options) (*Result, error) {
	res := &Result{Path: file}
	st, err := parseState(state)
	if err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v; restoring from the entries themselves", StatePath(file), err))
		st = &stateFile{}
	}
	text := string(src)
	doc, err := parseDoc(c, file, text)
	if err != nil {
		return nil, err
	}
	sel, err := selected(file, doc.servers(), o.Servers)
	if err != nil {
		return nil, err
	}
	for _, s := range sel {
		cl := classify(c, s, o.Command)
		e := Entry{Name: s.name, Where: s.where}
		if cl.kind != kindWrapped {
			if _, ok := st.get(s.path); ok || len(o.Servers) > 0 {
				e.Action = NotWrapped
				if ok {
					e.Reason = "it no longer runs behind toolgate; left as it is"
				}
				res.Entries = append(res.Entries, e)
			}
			st.del(s.path)
			continue
		}
		doc, err := parseDoc(c, file, text)
		if err != nil {
			return nil, fmt.Errorf("internal error: %v", err)
		}
		cur, _ := findServer(doc, s.path)
		up := cl.upstream
		e.Action = Rebuilt
		e.Reason = "no record of its original text; rebuilt from the wrapped entry"
		if rec, ok := st.get(s.path); ok {
			cand, err := doc.putRecord(cur, rec)
			if err == nil && checkEdit(c, file, text, cand, s.path, up[0], up[1:], true) == nil {
				e.Action, e.Reason = Restored, ""
				text = cand
			} else {
				e.Reason = "it changed since it was wrapped; rebuilt from the wrapped entry, keeping the changes"
			}
		}
		if e.Action == Rebuilt {
			next, err := doc.setCommand(cur, up[0], up[1:])
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", file, s.where, err)
			}
			if err := checkEdit(c, file, text, next, s.path, up[0], up[1:], false); err != nil {
				return nil, err
			}
			text = next
		}
		st.del(s.path)
		res.Entries = append(res.Entries, e)
	}
	if len(o.Servers) == 0 {
		// Records of entries that are gone.
		for _, r := range st.Entries {
			if _, ok := findServer(doc, r.Path); !ok {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s is no longer in the file; its record is dropped", whereOf(c, r.Path)))
			}
		}
		st.Entries = nil
	}
	res.Content = []byte(text)
	res.Changed = text != string(src)
	if !res.Changed {
		res.Content = src
	}
	if len(st.Entries) > 0 {
		if res.State, err = st.encode(); err != nil {
			return nil, err
		}
	} else if st.Before != nil && text == *st.Before {
		res.Identical = true
	}
	return res, nil
}

func whereOf(c Client, path []string) string {
	if c == Codex {
		return tomlHeader(path)
	}
	return jsonWhere(path)
}

// checkEdit parses an edited text and checks that it means exactly the
// old text with the entry at path holding cmd and args; with loose, an
// absent args and an empty one count as equal. A failure is an internal
// error: nothing is written.
func checkEdit(c Client, file, old, next string, path []string, cmd string, args []string, loose bool) error {
	od, err := parseDoc(c, file, old)
	if err != nil {
		return fmt.Errorf("internal error: %v", err)
	}
	nd, err := parseDoc(c, file, next)
	if err != nil {
		return fmt.Errorf("internal error: the edit of %s does not parse: %v", whereOf(c, path), err)
	}
	want := od.generic()
	entry, ok := lookup(want, path).(map[string]any)
	if !ok {
		return fmt.Errorf("internal error: no entry %s", whereOf(c, path))
	}
	list := make([]any, len(args))
	for i, a := range args {
		list[i] = a
	}
	entry["command"] = cmd
	entry["args"] = list
	got := nd.generic()
	if loose {
		for _, g := range []any{want, got} {
			if e, ok := lookup(g, path).(map[string]any); ok {
				if a, ok := e["args"].([]any); ok && len(a) == 0 {
					delete(e, "args")
				}
			}
		}
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("internal error: the edit of %s in %s changes more than its command and args; nothing written", whereOf(c, path), file)
	}
	return nil
}

// lookup returns the value at path in a generic document.
func lookup(v any, path []string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
