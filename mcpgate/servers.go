package mcpgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/toolgate/toolgate/internal/mcpname"
)

// MaxServersFileSize is the largest servers file ParseServers reads.
const MaxServersFileSize = 1 << 20

// ServerSpec says how to reach one upstream MCP server and what the proxy
// calls it. Exactly one of Command and URL is set.
type ServerSpec struct {
	// Name is the server's name in rules: its tools are mcp__<Name>__<tool>.
	// It comes from the configuration, never from a tool name.
	Name string
	// Command is the program and its arguments of a server spoken to over
	// stdio.
	Command []string
	// Env adds to (or overrides) the proxy's environment for Command.
	Env map[string]string
	// Dir is the working directory of Command; empty: the proxy's.
	Dir string
	// URL is the endpoint of a streamable-HTTP server.
	URL string
	// Headers are sent with every HTTP request to URL.
	Headers map[string]string
	// Timeout bounds one request to the server; zero: Options.CallTimeout.
	Timeout time.Duration
	// TrustAnnotations lets this server's tool annotations count when the
	// tool's definition is pinned and unchanged (see the package doc).
	TrustAnnotations bool
	// TrustTools overrides TrustAnnotations for single tools, by the tool's
	// name on this server.
	TrustTools map[string]bool
}

// ValidServerName reports why name cannot name an upstream server, or nil:
// a name is letters, digits and "-", in runs joined by single underscores,
// at most 64 characters, so that mcp__<name>__<tool> always splits at the
// name's end. The configuration's mcp section accepts the same names.
func ValidServerName(name string) error { return mcpname.Check(name) }

// rawServer is one server entry as written, in either form.
type rawServer struct {
	Type    string            `json:"type"`
	Command json.RawMessage   `json:"command"` // a string (mcpServers) or an argv array (toolgate form)
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	Dir     string            `json:"dir"`
	URL     string            `json:"url"`
	HTTPURL string            `json:"httpUrl"` // Gemini CLI's name for a streamable-HTTP endpoint
	Headers map[string]string `json:"headers"`
	Timeout json.RawMessage   `json:"timeout"` // "30s" (toolgate form) or milliseconds (Gemini CLI)
	Trust   bool              `json:"trust_annotations"`
	// Fields clients use that the proxy does not need.
	Disabled bool `json:"disabled"`
}

// ParseServers reads the upstream servers from a servers file: either the
// "mcpServers" JSON object that Claude Code, Cursor and Gemini CLI use
// ({"mcpServers": {"NAME": {"command": "prog", "args": [...], "env": {...}}
// or {"url": "https://..."}}}), or toolgate's own form
// ({"version": 1, "servers": {"NAME": {"command": ["prog", "arg"], "url":
// ..., "env": ..., "dir": ..., "headers": ..., "timeout": "30s",
// "trust_annotations": false}}}). The servers come back sorted by name.
// Every problem is reported at once; a file with any problem yields no
// servers. Entries marked "disabled": true are left out.
func ParseServers(data []byte) ([]ServerSpec, error) {
	if len(data) > MaxServersFileSize {
		return nil, fmt.Errorf("servers file is larger than %d bytes", MaxServersFileSize)
	}
	if err := checkDuplicateKeys(data); err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("servers file: %v", err)
	}
	if top == nil {
		return nil, errors.New("servers file: not a JSON object")
	}
	var (
		entries map[string]json.RawMessage
		own     bool
		errs    []error
	)
	if v, ok := top["version"]; ok {
		own = true
		if string(v) != "1" {
			errs = append(errs, fmt.Errorf("version: got %s, want 1", v))
		}
		if err := json.Unmarshal(top["servers"], &entries); err != nil || top["servers"] == nil {
			errs = append(errs, errors.New(`servers: want an object of server entries`))
		}
		for k := range top {
			if k != "version" && k != "servers" {
				errs = append(errs, fmt.Errorf("unknown key %q", k))
			}
		}
	} else {
		raw, ok := top["mcpServers"]
		if !ok {
			return nil, errors.New(`servers file: no "mcpServers" object (nor toolgate's {"version": 1, "servers": {...}})`)
		}
		if err := json.Unmarshal(raw, &entries); err != nil || entries == nil {
			errs = append(errs, errors.New(`mcpServers: want an object of server entries`))
		}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	var specs []ServerSpec
	for _, name := range names {
		spec, skip, err := parseServer(name, entries[name], own)
		if err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", name, err))
			continue
		}
		if !skip {
			specs = append(specs, spec)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(specs) == 0 {
		return nil, errors.New("servers file names no server")
	}
	return specs, nil
}

// parseServer reads one entry.
func parseServer(name string, raw json.RawMessage, own bool) (ServerSpec, bool, error) {
	spec := ServerSpec{Name: name}
	if err := ValidServerName(name); err != nil {
		return spec, false, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if own {
		dec.DisallowUnknownFields()
	}
	var r rawServer
	if err := dec.Decode(&r); err != nil {
		return spec, false, err
	}
	if r.Disabled {
		return spec, true, nil
	}
	if own && len(r.Args) > 0 {
		return spec, false, errors.New(`"args": the toolgate form takes the whole argv in "command"`)
	}
	var cmd []string
	if len(r.Command) > 0 && string(r.Command) != "null" {
		var s string
		if err := json.Unmarshal(r.Command, &s); err == nil {
			if own {
				return spec, false, errors.New(`"command": the toolgate form takes an array (the argv)`)
			}
			cmd = append([]string{s}, r.Args...)
		} else if err := json.Unmarshal(r.Command, &cmd); err != nil {
			return spec, false, errors.New(`"command": want a string or an array of strings`)
		} else {
			cmd = append(cmd, r.Args...)
		}
		if len(cmd) == 0 || cmd[0] == "" {
			return spec, false, errors.New(`"command" is empty`)
		}
		for _, a := range cmd {
			if strings.ContainsRune(a, 0) {
				return spec, false, errors.New(`"command" holds a NUL byte`)
			}
		}
	}
	u := r.URL
	if r.HTTPURL != "" {
		if u != "" {
			return spec, false, errors.New(`both "url" and "httpUrl"`)
		}
		u = r.HTTPURL
	}
	switch {
	case cmd != nil && u != "":
		return spec, false, errors.New(`both "command" and "url": give one`)
	case cmd == nil && u == "":
		return spec, false, errors.New(`neither "command" nor "url"`)
	}
	switch r.Type {
	case "", "stdio":
		if r.Type == "stdio" && cmd == nil {
			return spec, false, errors.New(`type "stdio" needs "command"`)
		}
	case "http", "streamable-http", "streamableHttp":
		if u == "" {
			return spec, false, fmt.Errorf(`type %q needs "url"`, r.Type)
		}
	case "sse":
		return spec, false, errors.New(`type "sse" (the deprecated HTTP+SSE transport) is not supported; use a streamable-HTTP endpoint`)
	default:
		return spec, false, fmt.Errorf("unknown type %q", r.Type)
	}
	if u != "" {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return spec, false, fmt.Errorf("url %q: want an http or https URL", u)
		}
	}
	if r.Dir != "" && r.Cwd != "" {
		return spec, false, errors.New(`both "dir" and "cwd"`)
	}
	spec.Command, spec.URL = cmd, u
	spec.Env, spec.Headers = r.Env, r.Headers
	spec.Dir = r.Dir + r.Cwd
	spec.TrustAnnotations = r.Trust
	if len(r.Timeout) > 0 && string(r.Timeout) != "null" {
		var s string
		var ms float64
		switch {
		case json.Unmarshal(r.Timeout, &s) == nil:
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return spec, false, fmt.Errorf("timeout %q: want a positive duration such as \"30s\"", s)
			}
			spec.Timeout = d
		case json.Unmarshal(r.Timeout, &ms) == nil && ms > 0 && ms < 1e12:
			spec.Timeout = time.Duration(ms * float64(time.Millisecond))
		default:
			return spec, false, fmt.Errorf("timeout %s: want a duration string or milliseconds", r.Timeout)
		}
	}
	return spec, false, nil
}

// checkDuplicateKeys rejects JSON with a repeated key in any object: which
// of two entries for one server would be used is a guess no gate should
// make.
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func(depth int) error
	walk = func(depth int) error {
		if depth > 64 {
			return errors.New("servers file: nested too deeply")
		}
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("servers file: %v", err)
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return fmt.Errorf("servers file: %v", err)
				}
				key, _ := k.(string)
				if seen[key] {
					return fmt.Errorf("servers file: duplicate key %q at offset %d", key, dec.InputOffset())
				}
				seen[key] = true
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(depth + 1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := walk(0); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("servers file: data after the JSON value")
	}
	return nil
}
