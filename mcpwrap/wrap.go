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
	// HeadersInArgs lets Wrap wrap a URL server with HTTP headers: they
	// go on the proxy's command line, which every local user can read.
	HeadersInArgs bool
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
	// toStdio returns the text with a URL entry turned into a stdio one
	// running cmd with args: its address field replaced by command and
	// args, its headers dropped, its type (if any) made stdio.
	toStdio(s docServer, c Client, urlKey, cmd string, args []string) (string, error)
	// toRemote returns the text with a stdio entry turned into a URL one
	// (see remoteShape), the inverse of toStdio.
	toRemote(s docServer, c Client, url string, headers map[string]any) (string, error)
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
	kindRefuse  kind = iota
	kindStdio        // a stdio server: wrap it
	kindRemote       // a streamable-HTTP server: wrap it with --upstream-url
	kindWrapped      // already behind toolgate
)

// classified is an entry's classification.
type classified struct {
	kind    kind
	reason  string
	cmd     string
	args    []string
	urlKey  string      // kindRemote: the field holding the address
	url     string      // kindRemote: the address
	headers []string    // kindRemote: "Key: Value", sorted by key
	form    wrappedForm // kindWrapped: what the command line says
}

// classify decides whether an entry can be wrapped, is wrapped, or must be
// refused, and why.
func classify(c Client, s docServer, o Options) classified {
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
		if form, ok := parseWrapped(cmd, args, o.Command); ok {
			return classified{kind: kindWrapped, cmd: cmd, args: args, form: form}
		}
	}
	if p := nameProblem(c, s.name); p != "" {
		return classified{reason: p}
	}
	if _, ok := f["command"]; !ok {
		return classifyRemote(c, s, o)
	}
	for _, k := range remoteFields {
		if _, ok := f[k]; ok {
			return classified{reason: fmt.Sprintf("it has both a command and %q", k)}
		}
	}
	if t, ok := f["type"]; ok && c != Codex {
		if ts, _ := t.(string); ts != "stdio" {
			return classified{reason: fmt.Sprintf("it has a command but its type is %s, not \"stdio\"", jsonText(t))}
		}
	}
	if !cmdIsString || cmd == "" {
		return classified{reason: "its command is not a non-empty string"}
	}
	if !argsOK {
		return classified{reason: "its args are not a list of strings"}
	}
	if p := unknownFields(c, s, fieldAllowed); p != "" {
		return classified{reason: p}
	}
	return classified{kind: kindStdio, cmd: cmd, args: args}
}

// uncarried are fields clients know whose work the proxy cannot do.
var uncarried = map[string]string{
	"oauth":                "the client logs in to the server itself (OAuth), which the proxy cannot do for it",
	"headersHelper":        "the client runs a program to make the headers, which the proxy cannot do for it",
	"bearer_token_env_var": "Codex sends the token itself, which the proxy cannot do for it",
	"env_http_headers":     "Codex makes these headers from its environment itself, which the proxy cannot do for it",
	"http_headers":         "Codex sends these headers itself; wrap does not yet pass a Codex server's headers to the proxy",
	"authProviderType":     "the client authenticates to the server itself, which the proxy cannot do for it",
	"targetAudience":       "the client authenticates to the server itself, which the proxy cannot do for it",
	"targetServiceAccount": "the client authenticates to the server itself, which the proxy cannot do for it",
}

// unknownFields says which of an entry's fields allowed does not accept,
// or "".
func unknownFields(c Client, s docServer, allowed func(Client, string) bool) string {
	var unknown []string
	for _, k := range s.keys {
		if why, ok := uncarried[k]; ok {
			return fmt.Sprintf("field %q: %s", k, why)
		}
		if !allowed(c, k) {
			unknown = append(unknown, fmt.Sprintf("%q", k))
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return fmt.Sprintf("field %s: toolgate does not know what %s does with it once the server runs behind the proxy", strings.Join(unknown, ", "), clientName(c))
}

// classifyRemote classifies an entry without a command: a server reached
// by URL. The proxy fronts streamable-HTTP servers (--upstream-url), not
// SSE-only ones, and sends headers it is given on its command line.
func classifyRemote(c Client, s docServer, o Options) classified {
	f := s.fields
	typ, hasType := f["type"].(string)
	if _, ok := f["type"]; ok && !hasType {
		return classified{reason: "its type is not a string"}
	}
	urlKey := ""
	switch c {
	case Claude:
		switch {
		case typ == "sse" || typ == "sse-ide":
			return classified{reason: fmt.Sprintf("an SSE server (type %q): the toolgate proxy fronts streamable-HTTP servers only", typ)}
		case typ == "http":
			urlKey = "url"
		case hasType:
			return classified{reason: fmt.Sprintf("a server of type %q, which the toolgate proxy cannot front", typ)}
		}
	case Gemini:
		switch _, isHTTP := f["httpUrl"]; {
		case isHTTP:
			urlKey = "httpUrl"
		case f["url"] != nil && typ == "http":
			urlKey = "url"
		case f["url"] != nil:
			return classified{reason: "an SSE server (\"url\" without type \"http\"): the toolgate proxy fronts streamable-HTTP servers only"}
		case f["tcp"] != nil:
			return classified{reason: "a server reached over a WebSocket (\"tcp\"), which the toolgate proxy cannot front"}
		}
	case Cursor:
		switch {
		case typ == "sse":
			return classified{reason: "an SSE server (type \"sse\"): the toolgate proxy fronts streamable-HTTP servers only"}
		case f["url"] != nil && (typ == "" || typ == "http" || typ == "streamable-http"):
			urlKey = "url"
		}
	case Codex:
		if f["url"] != nil {
			urlKey = "url"
		}
	}
	if urlKey == "" {
		return classified{reason: "the entry has no command and no address the toolgate proxy can front"}
	}
	u, ok := f[urlKey].(string)
	if !ok || u == "" {
		return classified{reason: fmt.Sprintf("its %q is not a non-empty string", urlKey)}
	}
	if p := unknownFields(c, s, remoteFieldAllowed); p != "" {
		return classified{reason: p}
	}
	cl := classified{kind: kindRemote, urlKey: urlKey, url: u}
	if h, ok := f["headers"]; ok {
		m, ok := h.(map[string]any)
		if !ok {
			return classified{reason: "its headers are not an object"}
		}
		for _, k := range sortedKeys(m) {
			v, ok := m[k].(string)
			if !ok || k == "" || strings.ContainsAny(k, ":\r\n") || strings.ContainsAny(v, "\r\n") {
				return classified{reason: fmt.Sprintf("its header %q is not a header the proxy can be given", k)}
			}
			cl.headers = append(cl.headers, k+": "+v)
		}
		if len(cl.headers) > 0 && !o.HeadersInArgs {
			return classified{reason: "its headers would be on the proxy's command line, which every local user can read (ps, /proc); wrap it with --headers-in-args if that is acceptable here"}
		}
	}
	return cl
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
func WrapText(c Client, file string, src, state []byte, options *Options) (*Result, error) {
	var o Options
	if options != nil {
		o = *options
	}
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
		cl := classify(c, s, o)
		if p := doc.editable(s); p != "" && (cl.kind == kindStdio || cl.kind == kindRemote) {
			cl = classified{reason: p}
		}
		e := Entry{Name: s.name, Where: s.where}
		switch cl.kind {
		case kindWrapped:
			e.Action = AlreadyWrapped
		case kindStdio, kindRemote:
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
	var changes []pending
	for i, s := range todo {
		orig, err := doc.recordText(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, s.where, err)
		}
		next, change, err := planWrap(c, doc, s, plans[i], o.Command, o.ProxyArgs)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, s.where, err)
		}
		changes = append(changes, pending{path: s.path, edit: diffEdit(text, next), change: change})
		st.put(s.path, orig)
	}
	if text, err = applyAll(c, file, text, changes); err != nil {
		return nil, err
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

// planWrap returns the text of doc with entry s, classified as cl,
// running behind the proxy cmd with the extra proxy flags, and the change
// that makes the old entry's value the new one.
func planWrap(c Client, doc document, s docServer, cl classified, cmd string, extra []string) (string, func(map[string]any), error) {
	var next string
	var err error
	var args []string
	var change func(map[string]any)
	switch cl.kind {
	case kindStdio:
		args = ProxyArgs(s.name, extra, append([]string{cl.cmd}, cl.args...))
		next, err = doc.setCommand(s, cmd, args)
	case kindRemote:
		args = URLProxyArgs(s.name, extra, cl.url, cl.headers)
		next, err = doc.toStdio(s, c, cl.urlKey, cmd, args)
		change = func(e map[string]any) {
			delete(e, cl.urlKey)
			delete(e, "headers")
			if _, ok := e["type"]; ok {
				if t := stdioType(c); t != "" {
					e["type"] = t
				} else {
					delete(e, "type")
				}
			}
		}
	default:
		return "", nil, errors.New("internal error: it cannot be wrapped")
	}
	return next, func(e map[string]any) {
		if change != nil {
			change(e)
		}
		e["command"] = cmd
		e["args"] = anyList(args)
	}, err
}

// planRebuild returns the text of doc with the wrapped entry s, classified
// as cl, rebuilt from what its command line says, and the change that
// makes the old entry's value the new one.
func planRebuild(c Client, doc document, s docServer, cl classified) (string, func(map[string]any), error) {
	f := cl.form
	if f.upstream != nil {
		next, err := doc.setCommand(s, f.upstream[0], f.upstream[1:])
		return next, func(e map[string]any) {
			e["command"] = f.upstream[0]
			e["args"] = anyList(f.upstream[1:])
		}, err
	}
	headers := map[string]any{}
	for _, h := range f.headers {
		k, v, _ := strings.Cut(h, ":")
		headers[strings.TrimSpace(k)] = strings.TrimLeft(v, " ")
	}
	next, err := doc.toRemote(s, c, f.url, headers)
	return next, func(e map[string]any) {
		delete(e, "command")
		delete(e, "args")
		key, typ := remoteShape(c)
		e[key] = f.url
		if _, ok := e["type"]; ok || typ != "" {
			if typ == "" {
				delete(e, "type")
			} else {
				e["type"] = typ
			}
		}
		if len(headers) > 0 {
			e["headers"] = headers
		}
	}, err
}

// pending is one entry's edit of a file, with the change it makes to the
// entry's value, checked by applyAll.
type pending struct {
	path   []string
	edit   edit
	change func(map[string]any)
}

// edit replaces text[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// diffEdit returns the one edit that turns old into next: the span between
// their common prefix and suffix.
func diffEdit(old, next string) edit {
	p := 0
	for p < len(old) && p < len(next) && old[p] == next[p] {
		p++
	}
	q := 0
	for q < len(old)-p && q < len(next)-p && old[len(old)-1-q] == next[len(next)-1-q] {
		q++
	}
	return edit{p, len(old) - q, next[p : len(next)-q]}
}

// applyAll applies the entries' edits to text at once and checks the
// result: parsed again, it must mean exactly the old text with each change
// applied to its entry. A failure is an internal error: nothing is written.
func applyAll(c Client, file, text string, changes []pending) (string, error) {
	if len(changes) == 0 {
		return text, nil
	}
	sorted := append([]pending(nil), changes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].edit.start > sorted[j].edit.start })
	out := text
	for i, p := range sorted {
		if i > 0 && p.edit.end > sorted[i-1].edit.start {
			return "", fmt.Errorf("internal error: the edits of %s and %s overlap; nothing written", whereOf(c, p.path), whereOf(c, sorted[i-1].path))
		}
		out = out[:p.edit.start] + p.edit.text + out[p.edit.end:]
	}
	od, err := parseDoc(c, file, text)
	if err != nil {
		return "", fmt.Errorf("internal error: %v", err)
	}
	nd, err := parseDoc(c, file, out)
	if err != nil {
		return "", fmt.Errorf("internal error: the edited %s does not parse: %v; nothing written", file, err)
	}
	want := od.generic()
	for _, p := range changes {
		entry, ok := lookup(want, p.path).(map[string]any)
		if !ok {
			return "", fmt.Errorf("internal error: no entry %s", whereOf(c, p.path))
		}
		p.change(entry)
	}
	if !reflect.DeepEqual(want, nd.generic()) {
		return "", fmt.Errorf("internal error: the edit of %s changes more than its entries; nothing written", file)
	}
	return out, nil
}

// stdioType is the type a wrapped URL entry gets when it has a type
// field; "" means the field is removed (Gemini CLI has no stdio type).
func stdioType(c Client) string {
	if c == Gemini {
		return ""
	}
	return "stdio"
}

// remoteShape is how a rebuilt URL entry names its address, and its type
// ("" for none).
func remoteShape(c Client) (urlKey, typ string) {
	switch c {
	case Claude:
		return "url", "http"
	case Gemini:
		return "httpUrl", ""
	}
	return "url", ""
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
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
// when wrapping that text again yields exactly the entry as it is now;
// otherwise (no record, or the entry was edited while wrapped) the entry
// is rebuilt from its own command line, keeping its other fields as they
// are now.
func UnwrapText(c Client, file string, src, state []byte, options *Options) (*Result, error) {
	var o Options
	if options != nil {
		o = *options
	}
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
	var changes []pending
	for _, s := range sel {
		so := o
		if _, ok := st.get(s.path); ok {
			// Wrap recorded it: its command is the proxy, whatever
			// the program is called.
			so.Command, _ = s.fields["command"].(string)
		}
		cl := classify(c, s, so)
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
		e.Action = Rebuilt
		e.Reason = "no record of its original text; rebuilt from the wrapped entry"
		if rec, ok := st.get(s.path); ok {
			if p, ok := recordFits(c, text, doc, s, cl, rec); ok {
				e.Action, e.Reason = Restored, ""
				changes = append(changes, p)
			} else {
				e.Reason = "it changed since it was wrapped; rebuilt from the wrapped entry, keeping the changes"
			}
		}
		if e.Action == Rebuilt {
			next, change, err := planRebuild(c, doc, s, cl)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", file, s.where, err)
			}
			changes = append(changes, pending{path: s.path, edit: diffEdit(text, next), change: change})
		}
		st.del(s.path)
		res.Entries = append(res.Entries, e)
	}
	if text, err = applyAll(c, file, text, changes); err != nil {
		return nil, err
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

// recordFits returns the edit that puts the recorded original rec back
// for the wrapped entry s of doc, when wrapping rec again — with the
// entry's own proxy command and flags — gives exactly what the entry is
// now. A record that does not fit (the entry was edited, or the state file
// altered) is not used: the state file can never make unwrap write a
// server the wrapped entry does not name. The check is made on documents
// holding just the entry, so it costs the entry's size, not the file's.
func recordFits(c Client, text string, doc document, s docServer, cl classified, rec string) (pending, bool) {
	var none pending
	curText, err := doc.recordText(s)
	if err != nil {
		return none, false
	}
	cur, cs, err := miniDoc(c, s, curText)
	if err != nil {
		return none, false
	}
	old, ors, err := miniDoc(c, s, rec)
	if err != nil {
		return none, false
	}
	ocl := classify(c, ors, Options{HeadersInArgs: true})
	if (ocl.kind != kindStdio && ocl.kind != kindRemote) || old.editable(ors) != "" {
		return none, false
	}
	again, _, err := planWrap(c, old, ors, ocl, cl.cmd, cl.form.extra)
	if err != nil {
		return none, false
	}
	ad, err := parseDoc(c, miniName(c), again)
	if err != nil || !reflect.DeepEqual(ad.generic(), cur.generic()) {
		return none, false
	}
	put, err := doc.putRecord(s, rec)
	if err != nil {
		return none, false
	}
	curEntry, _ := lookup(cur.generic(), cs.path).(map[string]any)
	recEntry, _ := lookup(old.generic(), ors.path).(map[string]any)
	return pending{path: s.path, edit: diffEdit(text, put), change: func(e map[string]any) {
		// The entry's text holds these fields; in Codex's file other
		// tables ([mcp_servers.NAME.env]) may hold more, which stay.
		for k := range curEntry {
			delete(e, k)
		}
		for k, v := range recEntry {
			e[k] = v
		}
	}}, true
}

// miniName is the file name of a document miniDoc makes.
func miniName(c Client) string {
	if c == Codex {
		return "entry.toml"
	}
	return "entry.json"
}

// miniDoc parses a document holding only the entry text t of server s: for
// JSON {"mcpServers": {NAME: t}}, for TOML the table's text itself.
func miniDoc(c Client, s docServer, t string) (document, docServer, error) {
	src := t
	if c != Codex {
		src = `{"mcpServers": {` + quoteJSON(s.name) + ": " + t + "\n}}"
	}
	d, err := parseDoc(c, miniName(c), src)
	if err != nil {
		return nil, docServer{}, err
	}
	path := []string{"mcpServers", s.name}
	if c == Codex {
		path = []string{"mcp_servers", s.name}
	}
	ms, ok := findServer(d, path)
	if !ok || len(d.servers()) != 1 {
		return nil, docServer{}, errors.New("not one entry")
	}
	return d, ms, nil
}

func whereOf(c Client, path []string) string {
	if c == Codex {
		return tomlHeader(path)
	}
	return jsonWhere(path)
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
