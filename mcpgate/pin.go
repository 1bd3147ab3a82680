package mcpgate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// PinMode says what the proxy does with tool definitions that are not in
// the lock file, or differ from it.
type PinMode uint8

const (
	// PinEnforce hides a tool whose definition is not pinned or has changed
	// since it was pinned, with an explanation, until a person re-approves
	// it ("toolgate mcp lock"). It is the zero value.
	PinEnforce PinMode = iota
	// PinWarn shows such a tool and logs a warning.
	PinWarn
	// PinOff does not compare definitions.
	PinOff
)

// ParsePinMode parses "off", "warn" or "enforce".
func ParsePinMode(s string) (PinMode, error) {
	switch s {
	case "enforce":
		return PinEnforce, nil
	case "warn":
		return PinWarn, nil
	case "off":
		return PinOff, nil
	}
	return PinEnforce, fmt.Errorf("unknown pin mode %q (want off, warn or enforce)", s)
}

// String returns the mode's name.
func (m PinMode) String() string {
	switch m {
	case PinEnforce:
		return "enforce"
	case PinWarn:
		return "warn"
	case PinOff:
		return "off"
	}
	return fmt.Sprintf("PinMode(%d)", m)
}

// Lock is the lock file: the approved digest of every tool's definition,
// by server and tool name. The zero Lock pins nothing.
type Lock struct {
	// Servers maps a server name to its tools' definition digests
	// ("sha256:…", see [ToolDigest]).
	Servers map[string]map[string]string
}

// lockFile is the lock file's JSON form.
type lockFile struct {
	Version int                          `json:"version"`
	Servers map[string]map[string]string `json:"servers"`
}

// ParseLock reads a lock file.
func ParseLock(data []byte) (*Lock, error) {
	if err := checkDuplicateKeys(data); err != nil {
		return nil, fmt.Errorf("lock file: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f lockFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("lock file: %v", err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("lock file: version %d, want 1", f.Version)
	}
	for srv, tools := range f.Servers {
		for tool, d := range tools {
			if !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 {
				return nil, fmt.Errorf("lock file: %s/%s: digest %q is not sha256:<64 hex digits>", srv, tool, d)
			}
		}
	}
	return &Lock{Servers: f.Servers}, nil
}

// Marshal returns the lock file's bytes: indented JSON, keys sorted.
func (l *Lock) Marshal() []byte {
	f := lockFile{Version: 1, Servers: l.Servers}
	if f.Servers == nil {
		f.Servers = map[string]map[string]string{}
	}
	b, _ := json.MarshalIndent(f, "", "  ")
	return append(b, '\n')
}

// pin returns the digest pinned for a tool, if any.
func (l *Lock) pin(server, tool string) (string, bool) {
	if l == nil {
		return "", false
	}
	d, ok := l.Servers[server][tool]
	return d, ok
}

// Set pins a server's tools to exactly the given definitions, replacing
// what was pinned for that server. It returns the names of the tools added,
// changed and removed.
func (l *Lock) Set(server string, tools []*mcp.Tool) (added, changed, removed []string, err error) {
	next := map[string]string{}
	for _, t := range tools {
		d, err := ToolDigest(t)
		if err != nil {
			return nil, nil, nil, err
		}
		next[t.Name] = d
	}
	old := l.Servers[server]
	for name, d := range next {
		switch od, ok := old[name]; {
		case !ok:
			added = append(added, name)
		case od != d:
			changed = append(changed, name)
		}
	}
	for name := range old {
		if _, ok := next[name]; !ok {
			removed = append(removed, name)
		}
	}
	if l.Servers == nil {
		l.Servers = map[string]map[string]string{}
	}
	l.Servers[server] = next
	slices.Sort(added)
	slices.Sort(changed)
	slices.Sort(removed)
	return added, changed, removed, nil
}

// ServerNames returns the servers the lock pins, sorted.
func (l *Lock) ServerNames() []string {
	return slices.Sorted(maps.Keys(l.Servers))
}

// ToolDigest returns "sha256:" and the hex SHA-256 of a canonical encoding of
// the parts of a tool's definition that tell a model what the tool does:
// its name, description, input schema and annotations (object keys sorted,
// no insignificant space). A title or icon change does not change it.
func ToolDigest(t *mcp.Tool) (string, error) {
	if t == nil {
		return "", errors.New("no tool")
	}
	def := map[string]any{"name": t.Name, "description": t.Description,
		"inputSchema": t.InputSchema, "annotations": t.Annotations}
	b, err := json.Marshal(def)
	if err != nil {
		return "", fmt.Errorf("tool %q: %v", t.Name, err)
	}
	// Round-trip through a generic value so that map key order and number
	// spelling of the schema do not matter.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	if b, err = json.Marshal(v); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// pinState is how a tool's definition compares with the lock.
type pinState uint8

const (
	pinMatch      pinState = iota // pinned and unchanged
	pinUnpinned                   // not in the lock
	pinChanged                    // pinned, and the definition differs
	pinUnhashable                 // the definition cannot be hashed
)

// checkPin compares a tool with the lock.
func checkPin(l *Lock, server string, t *mcp.Tool) pinState {
	d, err := ToolDigest(t)
	if err != nil {
		return pinUnhashable
	}
	want, ok := l.pin(server, t.Name)
	switch {
	case !ok:
		return pinUnpinned
	case want != d:
		return pinChanged
	}
	return pinMatch
}

// annotationEffect is what a tool's own annotations do to its calls. They
// can only make a call stricter (SPEC §1: an MCP server's readOnlyHint
// never counts): a tool that declares itself destructive or open-world is
// never treated as read-only, and a destructive one is asked about unless
// a person's rule allows it. Trusted annotations (a pinned, unchanged
// definition of a server whose entry sets trust_annotations) are believed
// instead: their hints do not tighten anything.
type annotationEffect struct {
	notReadOnly bool
	destructive bool
}

func annotationsOf(t *mcp.Tool, trusted bool) annotationEffect {
	a := t.Annotations
	if a == nil || trusted {
		return annotationEffect{}
	}
	var e annotationEffect
	if !a.ReadOnlyHint && a.DestructiveHint != nil && *a.DestructiveHint {
		e.destructive, e.notReadOnly = true, true
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		e.notReadOnly = true
	}
	return e
}

// noLoader refuses every external reference in a tool's input schema:
// compiling a schema reads neither files nor the network.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %q; external references are not loaded", u)
}

// compileInputSchema compiles a tool's input schema for validating
// rewritten arguments.
func compileInputSchema(server string, t *mcp.Tool) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if m, ok := doc.(map[string]any); !ok || m["type"] != "object" {
		return nil, errors.New(`the input schema is not of type "object"`)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	loc := "urn:toolgate:mcp:" + server + ":" + t.Name
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// validateArgs checks arguments against a compiled input schema.
func validateArgs(s *jsonschema.Schema, args json.RawMessage) error {
	if s == nil {
		return errors.New("the tool's input schema could not be compiled, so a rewrite cannot be checked")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return errors.New("not a JSON object")
	}
	return s.Validate(inst)
}
