package config

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/mcpname"
	"github.com/toolgate/toolgate/internal/suggest"
)

// The mcp section of a toolgate file declares the upstream MCP servers that
// "toolgate mcp" gates:
//
//	mcp:
//	  servers:
//	    fs:
//	      command: [mcp-server-filesystem, /work/app]   # or a string and args
//	      env: {LOG_LEVEL: warn}
//	      cwd: /work/app
//	      timeout: 30s
//	    github:
//	      url: https://mcp.example.com/mcp
//	      headers: {Authorization: "Bearer …"}
//	      trust_annotations: true
//	      tools:
//	        create_issue: {trust_annotations: false}
//
// Unlike the rest of the schema, the section is a closed world: an unknown
// key in it is an error, not a warning. A server definition is a program to
// run with the user's rights; a misspelt key ("evn", "hedaers") would start
// it otherwise than it is written, and nobody reads the warnings of a
// process an MCP client started.
//
// Starting a server is running code, so an untrusted project or local file
// (SPEC §6.1) cannot declare one: its definitions are ignored with a trust
// warning. The one thing it may do is remove a server ("disabled: true"),
// which only takes capability away.

// MCPServer is one upstream MCP server declared in a file's mcp section.
// Exactly one of Command and URL is set, unless Disabled.
type MCPServer struct {
	// Name is the server's name in rules: its tools are mcp__<Name>__<tool>.
	Name string
	// Command is the argv of a server spoken to over stdio.
	Command []string
	// Env adds to (or overrides) the proxy's environment for Command.
	Env map[string]string
	// Dir is the working directory of Command (absolute); empty: the
	// proxy's.
	Dir string
	// URL is the endpoint of a streamable-HTTP server.
	URL string
	// Headers are sent with every HTTP request to URL.
	Headers map[string]string
	// Timeout bounds one request to the server; zero: the proxy's default.
	Timeout time.Duration
	// TrustAnnotations lets the server's tool annotations count for tools
	// whose definitions are pinned and unchanged.
	TrustAnnotations bool
	// Tools holds per-tool settings, by the tool's name on its server.
	Tools map[string]MCPTool
	// Disabled removes a server of the same name declared by a
	// lower-priority file; a disabled entry is never started.
	Disabled bool
	// Pos is where the server's name is written; Source the file's source.
	Pos    toolgate.Position
	Source toolgate.Source
}

// MCPTool holds the settings of one tool of an MCP server.
type MCPTool struct {
	// TrustAnnotations, when set, overrides the server's TrustAnnotations
	// for this tool.
	TrustAnnotations *bool
	Pos              toolgate.Position
}

var (
	mcpKeys       = []string{"servers"}
	mcpServerKeys = []string{"command", "args", "env", "cwd", "url", "headers", "timeout", "trust_annotations", "tools", "disabled"}
	mcpToolKeys   = []string{"trust_annotations"}
)

// closedKey reports a key the mcp section does not know, as an error.
func (c *checker) closedKey(e *entry, where string, known []string) {
	msg := fmt.Sprintf("unknown key %q in %s", e.key, where)
	if s := suggest.Closest(e.key, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	c.errf(e.keyPos, "unknown-key", "%s; the mcp section is closed: %s takes only %s", msg, where, strings.Join(known, ", "))
}

// mcpSection reads a file's mcp section into c.file.MCPServers.
func (c *checker) mcpSection(e *entry) {
	v := e.value
	if v.kind == kindNull {
		return
	}
	if v.kind != kindMap {
		c.typeErr(v, "mcp", "an object with a servers key")
		return
	}
	for _, f := range v.entries {
		switch f.key {
		case "servers":
			c.mcpServers(f)
		default:
			c.closedKey(f, "mcp", mcpKeys)
		}
	}
}

func (c *checker) mcpServers(e *entry) {
	v := e.value
	if v.kind == kindNull {
		return
	}
	if v.kind != kindMap {
		c.typeErr(v, "mcp.servers", "an object mapping server names to their definitions")
		return
	}
	for _, se := range v.entries {
		name := "mcp.servers." + se.key
		if err := mcpname.Check(se.key); err != nil {
			c.errf(se.keyPos, "value", "%s: %v", "mcp.servers", err)
			continue
		}
		if se.value.kind != kindMap {
			c.typeErr(se.value, name, "an object (command or url, and their settings)")
			continue
		}
		s, ok := c.mcpServer(se, name)
		if !ok {
			continue
		}
		if !c.opts.trusted {
			if s.Disabled {
				// Removing a server only takes capability away.
				c.file.MCPServers = append(c.file.MCPServers, MCPServer{Name: s.Name, Disabled: true, Pos: s.Pos, Source: s.Source})
				continue
			}
			c.distrust(se.keyPos, fmt.Sprintf("MCP server %s (a server is a program toolgate mcp would run: an untrusted file may only disable one)", name))
			continue
		}
		c.file.MCPServers = append(c.file.MCPServers, s)
	}
}

// mcpServer reads one server definition; ok is false when it has an error.
func (c *checker) mcpServer(se *entry, name string) (MCPServer, bool) {
	s := MCPServer{Name: se.key, Pos: se.keyPos, Source: c.file.Source}
	ok := true
	fail := func(pos toolgate.Position, code, format string, args ...any) {
		c.errf(pos, code, format, args...)
		ok = false
	}
	var (
		cmdAsString, hasArgs bool
		args                 []str
		argsPos              toolgate.Position
	)
	for _, f := range se.value.entries {
		fname := name + "." + f.key
		switch f.key {
		case "command":
			switch f.value.kind {
			case kindString:
				cmdAsString = true
				s.Command = []string{f.value.text}
			case kindList:
				for _, a := range c.strings(f, fname) {
					s.Command = append(s.Command, a.text)
				}
				if len(s.Command) != len(f.value.items) {
					ok = false // c.strings reported the item
				}
			default:
				fail(f.value.pos, "type", "%s must be a string (the program, with args) or a list of strings (the whole argv), not %s", fname, f.value.kind)
				continue
			}
			switch {
			case len(s.Command) == 0 || s.Command[0] == "":
				fail(f.value.pos, "value", "%s: empty command", fname)
			case slices.ContainsFunc(s.Command, hasNUL):
				fail(f.value.pos, "value", "%s holds a NUL byte", fname)
			}
		case "args":
			hasArgs, argsPos = true, f.keyPos
			args = c.strings(f, fname)
			if f.value.kind == kindList && len(args) != len(f.value.items) {
				ok = false
			}
			if slices.ContainsFunc(args, func(a str) bool { return hasNUL(a.text) }) {
				fail(f.value.pos, "value", "%s holds a NUL byte", fname)
			}
		case "env":
			s.Env = c.stringMap(f, fname, &ok, func(k str) string {
				switch {
				case k.text == "":
					return "an empty variable name"
				case strings.ContainsAny(k.text, "=\x00"):
					return fmt.Sprintf("variable name %q holds \"=\" or a NUL byte", k.text)
				}
				return ""
			})
		case "cwd":
			if t, sok := c.str(f, fname); sok {
				if d, dok := c.mcpDir(str{t, f.value.pos}, fname); dok {
					s.Dir = d
				} else {
					ok = false
				}
			} else {
				ok = false
			}
		case "url":
			if t, sok := c.str(f, fname); sok {
				u, err := url.Parse(t)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					fail(f.value.pos, "value", "%s %q: want an http or https URL (a streamable-HTTP endpoint)", fname, t)
				} else {
					s.URL = t
				}
			} else {
				ok = false
			}
		case "headers":
			s.Headers = c.stringMap(f, fname, &ok, func(k str) string {
				if !validHeaderName(k.text) {
					return fmt.Sprintf("%q is not an HTTP header name", k.text)
				}
				return ""
			})
			for k, val := range s.Headers {
				if strings.ContainsAny(val, "\r\n\x00") {
					fail(f.value.pos, "value", "%s.%s: a header value cannot hold a line break or NUL byte", fname, k)
				}
			}
		case "timeout":
			if t, sok := c.str(f, fname); sok {
				d, err := time.ParseDuration(t)
				if err != nil || d <= 0 {
					fail(f.value.pos, "value", "%s %q: want a positive duration such as \"30s\"", fname, t)
				} else {
					s.Timeout = d
				}
			} else {
				ok = false
			}
		case "trust_annotations":
			if b, bok := c.boolean(f, fname); bok {
				s.TrustAnnotations = b
			} else {
				ok = false
			}
		case "tools":
			s.Tools = c.mcpTools(f, fname, &ok)
		case "disabled":
			if b, bok := c.boolean(f, fname); bok {
				s.Disabled = b
			} else {
				ok = false
			}
		default:
			c.closedKey(f, name, mcpServerKeys)
			ok = false
		}
	}
	if hasArgs {
		if !cmdAsString {
			fail(argsPos, "value", "%s.args: give args only with a command that is a string; a command list is the whole argv", name)
		} else {
			for _, a := range args {
				s.Command = append(s.Command, a.text)
			}
		}
	}
	switch {
	case s.Command != nil && s.URL != "":
		fail(se.keyPos, "value", "%s has both command and url: give one", name)
	case se.value.get("command") == nil && se.value.get("url") == nil && !s.Disabled:
		fail(se.keyPos, "value", "%s has neither command nor url", name)
	}
	if se.value.get("url") != nil {
		for _, k := range []string{"env", "cwd"} {
			if e := se.value.get(k); e != nil {
				fail(e.keyPos, "value", "%s.%s: only a command server has an environment and a working directory", name, k)
			}
		}
	}
	if e := se.value.get("headers"); e != nil && se.value.get("command") != nil {
		fail(e.keyPos, "value", "%s.headers: only a url server is sent HTTP headers", name)
	}
	return s, ok
}

func (c *checker) mcpTools(e *entry, name string, ok *bool) map[string]MCPTool {
	v := e.value
	if v.kind == kindNull {
		return nil
	}
	if v.kind != kindMap {
		c.typeErr(v, name, "an object mapping the server's tool names to their settings")
		*ok = false
		return nil
	}
	out := map[string]MCPTool{}
	for _, te := range v.entries {
		tname := name + "." + te.key
		if te.key == "" || strings.ContainsFunc(te.key, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			c.errf(te.keyPos, "value", "%s: %q is not a tool name", name, te.key)
			*ok = false
			continue
		}
		if te.value.kind != kindMap {
			c.typeErr(te.value, tname, "an object")
			*ok = false
			continue
		}
		t := MCPTool{Pos: te.keyPos}
		for _, f := range te.value.entries {
			fname := tname + "." + f.key
			switch f.key {
			case "trust_annotations":
				if b, bok := c.boolean(f, fname); bok {
					t.TrustAnnotations = &b
				} else {
					*ok = false
				}
			default:
				c.closedKey(f, tname, mcpToolKeys)
				*ok = false
			}
		}
		out[te.key] = t
	}
	return out
}

// stringMap reads an object of strings; badKey says what is wrong with a
// key, or "".
func (c *checker) stringMap(e *entry, name string, ok *bool, badKey func(str) string) map[string]string {
	v := e.value
	if v.kind == kindNull {
		return nil
	}
	if v.kind != kindMap {
		c.typeErr(v, name, "an object of strings")
		*ok = false
		return nil
	}
	out := make(map[string]string, len(v.entries))
	for _, f := range v.entries {
		if why := badKey(str{f.key, f.keyPos}); why != "" {
			c.errf(f.keyPos, "value", "%s: %s", name, why)
			*ok = false
			continue
		}
		val, sok := c.str(f, name+"."+f.key)
		if !sok {
			*ok = false
			continue
		}
		if hasNUL(val) {
			c.errf(f.value.pos, "value", "%s.%s holds a NUL byte", name, f.key)
			*ok = false
			continue
		}
		out[f.key] = val
	}
	return out
}

// mcpDir resolves a server's working directory: "~" against the home
// directory, a relative path against the layer root (the project root for
// a file in .toolgate, else the file's directory).
func (c *checker) mcpDir(s str, name string) (string, bool) {
	if s.text == "" {
		c.errf(s.pos, "value", "%s: empty directory", name)
		return "", false
	}
	if hasNUL(s.text) {
		c.errf(s.pos, "value", "%s holds a NUL byte", name)
		return "", false
	}
	d, ok := c.expandHome(s.text)
	if !ok {
		c.errf(s.pos, "value", "%s: %q needs the home directory, which is not known here", name, s.text)
		return "", false
	}
	if !path.IsAbs(d) {
		d = path.Join(c.root, d)
	}
	return path.Clean(d), true
}

func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// validHeaderName reports whether s is an HTTP field name (RFC 9110 token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", ch) >= 0) {
			return false
		}
	}
	return true
}

// MCPServers returns the MCP servers the set's files declare, merged across
// files: for each name, the definition of the highest-priority file that
// declares it wins whole (its fields are never mixed with another file's),
// and between files of equal priority the later one read wins — as for a
// scalar setting. A winning definition that is disabled removes the server.
// The servers come back sorted by name; none is disabled. A set that failed
// to load has none.
func (s *Set) MCPServers() []MCPServer {
	if s == nil || s.Layers == nil {
		return nil
	}
	files := slices.Clone(s.Files)
	// Lowest priority first, so that later entries override earlier ones.
	slices.SortStableFunc(files, func(a, b *File) int { return int(b.Source) - int(a.Source) })
	byName := map[string]MCPServer{}
	for _, f := range files {
		for _, srv := range f.MCPServers {
			byName[srv.Name] = srv
		}
	}
	var out []MCPServer
	for _, name := range sortedKeys(byName) {
		if srv := byName[name]; !srv.Disabled {
			out = append(out, srv)
		}
	}
	return out
}
