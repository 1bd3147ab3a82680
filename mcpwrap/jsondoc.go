package mcpwrap

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// jsonDoc is a JSON configuration file: .mcp.json, ~/.claude.json, Gemini
// CLI's settings.json (comments allowed) or Cursor's mcp.json.
type jsonDoc struct {
	src  string
	root *jnode
	list []docServer
}

// parseJSONDoc parses a client's JSON file and finds its server entries.
func parseJSONDoc(c Client, file, src string) (*jsonDoc, error) {
	d := &jsonDoc{src: src}
	if strings.TrimSpace(src) == "" {
		d.root = &jnode{kind: jObject}
		return d, nil
	}
	root, err := parseJSONText(src, c == Gemini)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%s: cannot parse: %s", file, position(src, se.off), se.msg)
		}
		return nil, fmt.Errorf("%s: cannot parse: %v", file, err)
	}
	if root.kind != jObject {
		return nil, fmt.Errorf("%s: the file is not a JSON object", file)
	}
	d.root = root
	if err := d.collect(file, root, nil); err != nil {
		return nil, err
	}
	if c == Claude && filepath.Base(file) == ".claude.json" {
		if projects, ok := root.get("projects"); ok && projects.kind == jObject {
			for _, p := range projects.members {
				if p.val.kind != jObject {
					continue
				}
				if err := d.collect(file, p.val, []string{"projects", p.key}); err != nil {
					return nil, err
				}
			}
		}
	}
	return d, nil
}

// collect adds the entries of obj.mcpServers; prefix is obj's path.
func (d *jsonDoc) collect(file string, obj *jnode, prefix []string) error {
	servers, ok := obj.get("mcpServers")
	if !ok {
		return nil
	}
	path := append(append([]string(nil), prefix...), "mcpServers")
	if servers.kind != jObject {
		return fmt.Errorf("%s:%s: %s is not an object", file, position(d.src, servers.start), jsonWhere(path))
	}
	for _, m := range servers.members {
		s := docServer{name: m.key, path: append(append([]string(nil), path...), m.key)}
		s.where = jsonWhere(s.path)
		if m.val.kind == jObject {
			s.fields = m.val.generic().(map[string]any)
			for _, f := range m.val.members {
				s.keys = append(s.keys, f.key)
			}
		}
		d.list = append(d.list, s)
	}
	return nil
}

var bareKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// jsonWhere renders a member path as mcpServers.fs or
// projects["/p"].mcpServers.fs.
func jsonWhere(path []string) string {
	var b strings.Builder
	for i, k := range path {
		if bareKey.MatchString(k) {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		} else {
			b.WriteString("[" + quoteJSON(k) + "]")
		}
	}
	return b.String()
}

func (d *jsonDoc) servers() []docServer { return d.list }

func (d *jsonDoc) editable(docServer) string { return "" }

func (d *jsonDoc) generic() any { return d.root.generic() }

// node returns the value at path.
func (d *jsonDoc) node(path []string) (*jnode, error) {
	n := d.root
	for _, k := range path {
		v, ok := n.get(k)
		if !ok {
			return nil, fmt.Errorf("internal error: no %s", jsonWhere(path))
		}
		n = v
	}
	return n, nil
}

func (d *jsonDoc) recordText(s docServer) (string, error) {
	n, err := d.node(s.path)
	if err != nil {
		return "", err
	}
	return d.src[n.start:n.end], nil
}

func (d *jsonDoc) putRecord(s docServer, text string) (string, error) {
	n, err := d.node(s.path)
	if err != nil {
		return "", err
	}
	return d.src[:n.start] + text + d.src[n.end:], nil
}

// setCommand replaces the command and args values of an entry, leaving
// every other byte as it is. An entry without args gets one after its
// command.
func (d *jsonDoc) setCommand(s docServer, cmd string, args []string) (string, error) {
	n, err := d.node(s.path)
	if err != nil {
		return "", err
	}
	cmdNode, ok := n.get("command")
	if !ok {
		return "", fmt.Errorf("internal error: %s has no command", s.where)
	}
	type edit struct {
		start, end int
		text       string
	}
	edits := []edit{{cmdNode.start, cmdNode.end, quoteJSON(cmd)}}
	if argsNode, ok := n.get("args"); ok {
		edits = append(edits, edit{argsNode.start, argsNode.end, d.renderArgs(argsNode, args)})
	} else {
		sep := ", "
		for _, m := range n.members {
			// A member on a line of its own: so is the new one.
			if m.key == "command" && strings.Contains(d.src[n.start:m.keyStart], "\n") {
				sep = ",\n" + indentAt(d.src, m.keyStart)
			}
		}
		edits = append(edits, edit{cmdNode.end, cmdNode.end, sep + `"args": ` + d.renderArgs(nil, args)})
	}
	out := d.src
	if edits[1].start < edits[0].start {
		edits[0], edits[1] = edits[1], edits[0]
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = out[:e.start] + e.text + out[e.end:]
	}
	return out, nil
}

// renderArgs renders a list of strings in the layout of the array it
// replaces: one element a line, indented as the old elements were, when
// the old array spanned lines; on one line otherwise.
func (d *jsonDoc) renderArgs(old *jnode, args []string) string {
	if len(args) == 0 {
		return "[]"
	}
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quoteJSON(a)
	}
	if old == nil || !strings.Contains(d.src[old.start:old.end], "\n") {
		return "[" + strings.Join(q, ", ") + "]"
	}
	closing := indentAt(d.src, old.end-1)
	elem := closing + "  "
	if strings.HasPrefix(closing, "\t") {
		elem = closing + "\t"
	}
	if len(old.elems) > 0 && strings.Contains(d.src[old.start:old.elems[0].start], "\n") {
		elem = indentAt(d.src, old.elems[0].start)
	}
	return "[\n" + elem + strings.Join(q, ",\n"+elem) + "\n" + closing + "]"
}

// indentAt returns the white space that starts the line holding offset off.
func indentAt(src string, off int) string {
	ls := strings.LastIndexByte(src[:off], '\n') + 1
	i := ls
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return src[ls:i]
}

// rewriteMembers returns the text with entry s replaced by an object of
// the members each returns for the entry's members in order (as member
// texts, `"key": value`), laid out as the entry was: one member a line,
// indented as its first member, when it spanned lines.
func (d *jsonDoc) rewriteMembers(s docServer, each func(m jmember) []string) (string, error) {
	n, err := d.node(s.path)
	if err != nil {
		return "", err
	}
	var members []string
	for _, m := range n.members {
		members = append(members, each(m)...)
	}
	var text string
	switch {
	case len(members) == 0:
		text = "{}"
	case strings.Contains(d.src[n.start:n.end], "\n") && len(n.members) > 0:
		indent := indentAt(d.src, n.members[0].keyStart)
		text = "{\n" + indent + strings.Join(members, ",\n"+indent) + "\n" + indentAt(d.src, n.end-1) + "}"
	default:
		text = "{" + strings.Join(members, ", ") + "}"
	}
	return d.src[:n.start] + text + d.src[n.end:], nil
}

// raw is a member's text as the file has it.
func (d *jsonDoc) raw(m jmember) string {
	return quoteJSON(m.key) + ": " + d.src[m.val.start:m.val.end]
}

func (d *jsonDoc) toStdio(s docServer, c Client, urlKey, cmd string, args []string) (string, error) {
	return d.rewriteMembers(s, func(m jmember) []string {
		switch m.key {
		case "type":
			if t := stdioType(c); t != "" {
				return []string{`"type": ` + quoteJSON(t)}
			}
			return nil
		case urlKey:
			return []string{`"command": ` + quoteJSON(cmd), `"args": ` + d.renderArgs(nil, args)}
		case "headers":
			return nil
		}
		return []string{d.raw(m)}
	})
}

func (d *jsonDoc) toRemote(s docServer, c Client, url string, headers map[string]any) (string, error) {
	key, typ := remoteShape(c)
	_, hasType := s.fields["type"]
	return d.rewriteMembers(s, func(m jmember) []string {
		switch m.key {
		case "type":
			if typ != "" {
				return []string{`"type": ` + quoteJSON(typ)}
			}
			return nil
		case "command":
			var out []string
			if typ != "" && !hasType {
				out = append(out, `"type": `+quoteJSON(typ))
			}
			out = append(out, quoteJSON(key)+": "+quoteJSON(url))
			if len(headers) > 0 {
				var hs []string
				for _, k := range sortedKeys(headers) {
					hs = append(hs, quoteJSON(k)+": "+quoteJSON(headers[k].(string)))
				}
				out = append(out, `"headers": {`+strings.Join(hs, ", ")+"}")
			}
			return out
		case "args":
			return nil
		}
		return []string{d.raw(m)}
	})
}
