package mcpwrap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/toolgate/toolgate/internal/tomltext"
)

// tomlDoc is Codex's config.toml. The values come from a real TOML decoder
// (BurntSushi/toml); the byte spans come from scanTOML, a scanner of just
// enough TOML to find table headers and top-level key/value lines, because
// a TOML round trip would lose the file's comments and layout. Every edit is
// decoded again and compared, so a scanner mistake can only refuse, never
// write a wrong file.
type tomlDoc struct {
	src   string
	value map[string]any
	items []titem
	list  []docServer
}

// titem is one statement of a TOML file: a table header or a key/value
// pair, with the byte span of its whole line(s) and, for a key/value pair,
// of its value.
type titem struct {
	header           bool // [table] or [[array of tables]]
	array            bool // [[array of tables]]
	key              []string
	start, end       int // the statement, from its first byte to its last (comments excluded)
	valStart, valEnd int
}

func parseTOMLDoc(file, src string) (*tomlDoc, error) {
	d := &tomlDoc{src: src, value: map[string]any{}}
	if _, err := toml.Decode(src, &d.value); err != nil {
		return nil, fmt.Errorf("%s: cannot parse: %v", file, err)
	}
	items, err := scanTOML(src)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s:%s: cannot edit this TOML: %s", file, position(src, se.off), se.msg)
		}
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	d.items = items
	servers, ok := d.value["mcp_servers"]
	if !ok {
		return d, nil
	}
	table, ok := servers.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: mcp_servers is not a table", file)
	}
	// In the order the file defines them.
	seen := map[string]bool{}
	add := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		s := docServer{name: name, path: []string{"mcp_servers", name}, where: tomlHeader([]string{"mcp_servers", name})}
		if f, ok := table[name].(map[string]any); ok {
			s.fields = f
			s.keys = sortedKeys(f)
		}
		d.list = append(d.list, s)
	}
	for _, it := range items {
		if len(it.key) >= 2 && it.key[0] == "mcp_servers" && it.header {
			if _, ok := table[it.key[1]]; ok {
				add(it.key[1])
			}
		}
	}
	for _, name := range sortedKeys(table) {
		add(name)
	}
	return d, nil
}

func (d *tomlDoc) servers() []docServer { return d.list }

// editable says why a server's table cannot be edited line by line, or "".
func (d *tomlDoc) editable(s docServer) string {
	_, body, err := d.section(s)
	if err != nil {
		return err.Error()
	}
	for _, it := range body {
		if equalKeys(it.key, []string{"command"}) || equalKeys(it.key, []string{"url"}) {
			return ""
		}
	}
	return fmt.Sprintf("its command or url is not a key of its own %s table (it is set with dotted keys elsewhere), which toolgate does not edit", s.where)
}

func (d *tomlDoc) generic() any { return d.value }

// section returns the index of a server's [mcp_servers.NAME] header and
// the items up to the next header.
func (d *tomlDoc) section(s docServer) (header int, body []titem, err error) {
	header = -1
	for i, it := range d.items {
		if it.header && !it.array && equalKeys(it.key, s.path) {
			header = i
			break
		}
	}
	if header < 0 {
		return -1, nil, fmt.Errorf("it is written as an inline table or with dotted keys, and toolgate edits only a %s table: write it as one", s.where)
	}
	for _, it := range d.items[header+1:] {
		if it.header {
			break
		}
		body = append(body, it)
	}
	return header, body, nil
}

// sectionSpan is the text of a server's table from its header to its last
// key/value line.
func (d *tomlDoc) sectionSpan(s docServer) (int, int, error) {
	h, body, err := d.section(s)
	if err != nil {
		return 0, 0, err
	}
	start, end := d.items[h].start, d.items[h].end
	if len(body) > 0 {
		end = body[len(body)-1].end
	}
	return start, end, nil
}

func (d *tomlDoc) recordText(s docServer) (string, error) {
	start, end, err := d.sectionSpan(s)
	if err != nil {
		return "", err
	}
	return d.src[start:end], nil
}

func (d *tomlDoc) putRecord(s docServer, text string) (string, error) {
	start, end, err := d.sectionSpan(s)
	if err != nil {
		return "", err
	}
	return d.src[:start] + text + d.src[end:], nil
}

func (d *tomlDoc) setCommand(s docServer, cmd string, args []string) (string, error) {
	_, body, err := d.section(s)
	if err != nil {
		return "", err
	}
	var cmdItem, argsItem *titem
	for i := range body {
		switch {
		case equalKeys(body[i].key, []string{"command"}):
			cmdItem = &body[i]
		case equalKeys(body[i].key, []string{"args"}):
			argsItem = &body[i]
		}
	}
	if cmdItem == nil {
		return "", fmt.Errorf("the command of %s is not a key of its %s table, which toolgate does not edit", s.name, s.where)
	}
	type edit struct {
		start, end int
		text       string
	}
	edits := []edit{{cmdItem.valStart, cmdItem.valEnd, tomltext.Quote(cmd)}}
	if argsItem != nil {
		edits = append(edits, edit{argsItem.valStart, argsItem.valEnd, d.renderArgs(argsItem, args)})
	} else {
		// A line of its own after the command's line (and its comment).
		at, text := len(d.src), "\nargs = "+d.renderArgs(nil, args)
		if nl := strings.IndexByte(d.src[cmdItem.end:], '\n'); nl >= 0 {
			at, text = cmdItem.end+nl+1, indentAt(d.src, cmdItem.start)+"args = "+d.renderArgs(nil, args)+"\n"
		}
		edits = append(edits, edit{at, at, text})
	}
	if edits[1].start < edits[0].start {
		edits[0], edits[1] = edits[1], edits[0]
	}
	out := d.src
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = out[:e.start] + e.text + out[e.end:]
	}
	return out, nil
}

// renderArgs renders args as a TOML array, one element a line when the
// array it replaces spanned lines.
func (d *tomlDoc) renderArgs(old *titem, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = tomltext.Quote(a)
	}
	if len(args) == 0 {
		return "[]"
	}
	if old == nil || !strings.Contains(d.src[old.valStart:old.valEnd], "\n") {
		return "[" + strings.Join(q, ", ") + "]"
	}
	closing := indentAt(d.src, old.valEnd-1)
	return "[\n" + closing + "  " + strings.Join(q, ",\n"+closing+"  ") + ",\n" + closing + "]"
}

// tomlHeader renders a table header for a key path.
func tomlHeader(path []string) string {
	parts := make([]string, len(path))
	for i, k := range path {
		if k != "" && strings.Trim(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == "" {
			parts[i] = k
		} else {
			parts[i] = tomltext.Quote(k)
		}
	}
	return "[" + strings.Join(parts, ".") + "]"
}

func equalKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// tscanner scans the statements of a TOML file.
type tscanner struct {
	src string
	pos int
}

func (s *tscanner) errorf(format string, args ...any) error {
	return &syntaxError{s.pos, fmt.Sprintf(format, args...)}
}

// scanTOML returns the statements of src. It accepts what a TOML decoder
// accepts as far as statement boundaries go; values are skipped, not
// checked (the decoder has checked them).
func scanTOML(src string) ([]titem, error) {
	s := &tscanner{src: src}
	var items []titem
	for {
		s.skipBlank(true)
		if s.pos >= len(s.src) {
			return items, nil
		}
		start := s.pos
		var it titem
		if s.src[s.pos] == '[' {
			it.header = true
			s.pos++
			if s.pos < len(s.src) && s.src[s.pos] == '[' {
				it.array = true
				s.pos++
			}
			key, err := s.key()
			if err != nil {
				return nil, err
			}
			it.key = key
			closing := "]"
			if it.array {
				closing = "]]"
			}
			if !strings.HasPrefix(s.src[s.pos:], closing) {
				return nil, s.errorf("expected %q after a table name", closing)
			}
			s.pos += len(closing)
		} else {
			key, err := s.key()
			if err != nil {
				return nil, err
			}
			it.key = key
			if s.pos >= len(s.src) || s.src[s.pos] != '=' {
				return nil, s.errorf("expected '=' after a key")
			}
			s.pos++
			s.skipBlank(false)
			it.valStart = s.pos
			if err := s.value(); err != nil {
				return nil, err
			}
			it.valEnd = s.pos
		}
		s.skipBlank(false)
		it.start, it.end = start, s.pos
		if s.pos < len(s.src) && s.src[s.pos] != '\n' && s.src[s.pos] != '\r' {
			return nil, s.errorf("unexpected %q after a statement", s.src[s.pos])
		}
		items = append(items, it)
	}
}

// skipBlank skips spaces, tabs and a comment; with newlines, also line
// ends (so several lines).
func (s *tscanner) skipBlank(newlines bool) {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t':
			s.pos++
		case '\r', '\n':
			if !newlines {
				return
			}
			s.pos++
		case '#':
			for s.pos < len(s.src) && s.src[s.pos] != '\n' {
				s.pos++
			}
		default:
			return
		}
	}
}

// key scans a dotted key and returns its parts, decoded.
func (s *tscanner) key() ([]string, error) {
	var parts []string
	for {
		s.skipBlank(false)
		if s.pos >= len(s.src) {
			return nil, s.errorf("expected a key")
		}
		switch c := s.src[s.pos]; {
		case c == '"' || c == '\'':
			start := s.pos
			if strings.HasPrefix(s.src[s.pos:], `"""`) || strings.HasPrefix(s.src[s.pos:], `'''`) {
				return nil, s.errorf("a multi-line string as a key")
			}
			if err := s.str(); err != nil {
				return nil, err
			}
			var v map[string]string
			if _, err := toml.Decode("k = "+s.src[start:s.pos], &v); err != nil {
				s.pos = start
				return nil, s.errorf("invalid quoted key")
			}
			parts = append(parts, v["k"])
		default:
			start := s.pos
			for s.pos < len(s.src) && isBare(s.src[s.pos]) {
				s.pos++
			}
			if s.pos == start {
				return nil, s.errorf("expected a key")
			}
			parts = append(parts, s.src[start:s.pos])
		}
		s.skipBlank(false)
		if s.pos < len(s.src) && s.src[s.pos] == '.' {
			s.pos++
			continue
		}
		return parts, nil
	}
}

func isBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// str skips a string of any of TOML's four kinds.
func (s *tscanner) str() error {
	switch {
	case strings.HasPrefix(s.src[s.pos:], `"""`), strings.HasPrefix(s.src[s.pos:], `'''`):
		q := s.src[s.pos : s.pos+3]
		s.pos += 3
		for {
			if s.pos >= len(s.src) {
				return s.errorf("unterminated multi-line string")
			}
			if q[0] == '"' && s.src[s.pos] == '\\' {
				s.pos += 2
				continue
			}
			if strings.HasPrefix(s.src[s.pos:], q) {
				s.pos += 3
				// Up to two more quotes belong to the content.
				for i := 0; i < 2 && s.pos < len(s.src) && s.src[s.pos] == q[0]; i++ {
					s.pos++
				}
				return nil
			}
			s.pos++
		}
	default:
		q := s.src[s.pos]
		s.pos++
		for {
			if s.pos >= len(s.src) || s.src[s.pos] == '\n' {
				return s.errorf("unterminated string")
			}
			c := s.src[s.pos]
			if q == '"' && c == '\\' {
				s.pos += 2
				continue
			}
			s.pos++
			if c == q {
				return nil
			}
		}
	}
}

// value skips one value.
func (s *tscanner) value() error {
	if s.pos >= len(s.src) {
		return s.errorf("expected a value")
	}
	switch c := s.src[s.pos]; c {
	case '"', '\'':
		return s.str()
	case '[':
		s.pos++
		for {
			s.skipBlank(true)
			if s.pos >= len(s.src) {
				return s.errorf("unterminated array")
			}
			if s.src[s.pos] == ']' {
				s.pos++
				return nil
			}
			if err := s.value(); err != nil {
				return err
			}
			s.skipBlank(true)
			if s.pos < len(s.src) && s.src[s.pos] == ',' {
				s.pos++
			}
		}
	case '{':
		s.pos++
		for {
			s.skipBlank(true)
			if s.pos >= len(s.src) {
				return s.errorf("unterminated inline table")
			}
			if s.src[s.pos] == '}' {
				s.pos++
				return nil
			}
			if _, err := s.key(); err != nil {
				return err
			}
			if s.pos >= len(s.src) || s.src[s.pos] != '=' {
				return s.errorf("expected '=' in an inline table")
			}
			s.pos++
			s.skipBlank(false)
			if err := s.value(); err != nil {
				return err
			}
			s.skipBlank(true)
			if s.pos < len(s.src) && s.src[s.pos] == ',' {
				s.pos++
			}
		}
	default:
		// A number, boolean or date-time: up to white space or a
		// delimiter; a date and a time may be separated by one space.
		start := s.pos
		for s.pos < len(s.src) && !strings.ContainsRune(" \t\r\n#,]}", rune(s.src[s.pos])) {
			s.pos++
		}
		if s.pos == start {
			return s.errorf("expected a value")
		}
		if s.pos-start == 10 && s.pos+1 < len(s.src) && s.src[s.pos] == ' ' && s.src[start+4] == '-' &&
			s.src[s.pos+1] >= '0' && s.src[s.pos+1] <= '9' {
			s.pos++
			for s.pos < len(s.src) && !strings.ContainsRune(" \t\r\n#,]}", rune(s.src[s.pos])) {
				s.pos++
			}
		}
		return nil
	}
}

// item returns the key/value item named key in a server's table.
func (d *tomlDoc) item(s docServer, key string) (*titem, error) {
	_, body, err := d.section(s)
	if err != nil {
		return nil, err
	}
	for i := range body {
		if equalKeys(body[i].key, []string{key}) {
			return &body[i], nil
		}
	}
	return nil, fmt.Errorf("the %s of %s is not a key of its %s table, which toolgate does not edit", key, s.name, s.where)
}

func (d *tomlDoc) toStdio(s docServer, c Client, urlKey, cmd string, args []string) (string, error) {
	it, err := d.item(s, urlKey)
	if err != nil {
		return "", err
	}
	text := "command = " + tomltext.Quote(cmd) + "\n" + indentAt(d.src, it.start) + "args = " + d.renderArgs(nil, args)
	return d.src[:it.start] + text + d.src[it.valEnd:], nil
}

func (d *tomlDoc) toRemote(s docServer, c Client, url string, headers map[string]any) (string, error) {
	if len(headers) > 0 {
		return "", fmt.Errorf("internal error: headers for a Codex server")
	}
	cmd, err := d.item(s, "command")
	if err != nil {
		return "", err
	}
	out := d.src
	if args, err := d.item(s, "args"); err == nil {
		// The whole line of args goes.
		start := strings.LastIndexByte(out[:args.start], '\n') + 1
		end := args.end
		if end < len(out) && out[end] == '\n' {
			end++
		} else if end < len(out) && strings.HasPrefix(out[end:], "\r\n") {
			end += 2
		}
		if args.start < cmd.start {
			out = out[:start] + out[end:]
			shift := end - start
			return out[:cmd.start-shift] + "url = " + tomltext.Quote(url) + out[cmd.valEnd-shift:], nil
		}
		out = out[:start] + out[end:]
	}
	return out[:cmd.start] + "url = " + tomltext.Quote(url) + out[cmd.valEnd:], nil
}
