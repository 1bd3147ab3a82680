package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolgate/toolgate"
)

// CallContext is what a tool call knows about where it runs.
type CallContext struct {
	// Cwd is the absolute working directory of the call.
	Cwd string
	// Home is the home directory used for "~"; empty means the engine's
	// default.
	Home string
	// Session is the session id.
	Session string
	// Agent names the sub-agent making the call; empty for the main agent. A
	// gate made by [Gate.SubAgent] sets it.
	Agent string
	// Server is the MCP server the tool belongs to, when the host knows it.
	Server string
	// Mode, if set, is the session mode for this call.
	Mode *toolgate.Mode
	// NonInteractive marks a context where nobody can be asked (a headless
	// run, CI): an Ask becomes a Deny without calling the approver.
	NonInteractive bool
	// Values carries host data through to the tool. The gate never reads it.
	Values map[string]any
}

// ToolCall is one tool invocation proposed by a model.
type ToolCall struct {
	// ID is the model's id for the call, if it has one. The gate does not
	// read it.
	ID string
	// Tool is the tool's name.
	Tool string
	// Input is the tool's arguments, a JSON object.
	Input json.RawMessage
	// Context says where the call runs.
	Context CallContext
}

// Result is what a tool returns to the model.
type Result struct {
	// Content is the tool's output for the model.
	Content string
	// IsError marks a tool-level failure reported to the model as content,
	// not as a Go error.
	IsError bool
}

// Handler runs tool calls. [Registry] is the innermost Handler: it runs the
// named tool. A [Gate] wraps a Handler and runs it only for calls it permits.
type Handler interface {
	Call(ctx context.Context, call *ToolCall) (Result, error)
}

// HandlerFunc adapts a function to [Handler].
type HandlerFunc func(ctx context.Context, call *ToolCall) (Result, error)

// Call calls f(ctx, call).
func (f HandlerFunc) Call(ctx context.Context, call *ToolCall) (Result, error) { return f(ctx, call) }

// Middleware wraps a Handler: the one middleware shape of toolgate.
type Middleware func(next Handler) Handler

// ToolFunc runs a tool with its (possibly rewritten) input.
type ToolFunc func(ctx context.Context, input json.RawMessage, cc *CallContext) (Result, error)

// Tool is a tool as the model sees it and as the host runs it.
type Tool struct {
	// Name is the tool's name, unique in a [Registry].
	Name string
	// Description tells the model what the tool does.
	Description string
	// InputSchema is a JSON Schema for the tool's input. Nil accepts any
	// JSON object.
	InputSchema json.RawMessage
	// Func runs the tool. Nil makes every call of the tool fail.
	Func ToolFunc
}

// ToolSchema is the part of a [Tool] that is shown to a model.
type ToolSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// entry is a registered tool with its compiled schema.
type entry struct {
	tool   Tool
	schema *jsonschema.Schema // nil: any object
}

// validate checks input against the tool's schema. Input must be a JSON
// object in any case.
func (e *entry) validate(input json.RawMessage) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return fmt.Errorf("not valid JSON: %v", err)
	}
	if _, ok := inst.(map[string]any); !ok {
		return errors.New("not a JSON object")
	}
	if e.schema == nil {
		return nil
	}
	return e.schema.Validate(inst)
}

type registryState struct {
	byName map[string]*entry
	order  []*entry
}

// Registry holds the tools a host offers. It is safe for concurrent use;
// lookups do not lock. The zero Registry is empty and ready to use.
//
// A Registry is itself a [Handler]: Call runs the named tool, or returns a
// [*NotFoundError]. It does not check permissions; wrap it in a [Gate].
type Registry struct {
	mu    sync.Mutex // serialises writers
	state atomic.Pointer[registryState]
}

// NewRegistry returns a registry holding tools, in order.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// noLoader refuses every external schema reference: compiling a schema
// never touches the file system or the network.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q not allowed", u)
}

func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	loc := "urn:toolgate:tool:" + url.PathEscape(name)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %v", name, err)
	}
	s, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("tool %q: input schema: %v", name, err)
	}
	return s, nil
}

// Register adds a tool, compiling its input schema. A tool with the name of
// a registered one replaces it in place, keeping its position in [Registry.Names].
func (r *Registry) Register(t Tool) error {
	if t.Name == "" {
		return errors.New("gate: tool has no name")
	}
	s, err := compileSchema(t.Name, t.InputSchema)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	e := &entry{tool: t, schema: s}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.state.Load()
	next := &registryState{byName: make(map[string]*entry, 1)}
	if old != nil {
		next.byName = make(map[string]*entry, len(old.byName)+1)
		for k, v := range old.byName {
			next.byName[k] = v
		}
		next.order = append(make([]*entry, 0, len(old.order)+1), old.order...)
	}
	if _, ok := next.byName[t.Name]; ok {
		for i, o := range next.order {
			if o.tool.Name == t.Name {
				next.order[i] = e
			}
		}
	} else {
		next.order = append(next.order, e)
	}
	next.byName[t.Name] = e
	r.state.Store(next)
	return nil
}

func (r *Registry) lookup(name string) *entry {
	if r == nil {
		return nil
	}
	s := r.state.Load()
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// Lookup returns the named tool.
func (r *Registry) Lookup(name string) (Tool, bool) {
	if e := r.lookup(name); e != nil {
		return e.tool, true
	}
	return Tool{}, false
}

// Names returns the tools' names in registration order.
func (r *Registry) Names() []string {
	var names []string
	for _, e := range r.entries() {
		names = append(names, e.tool.Name)
	}
	return names
}

// Schemas returns what a model is shown of every tool, in registration
// order.
func (r *Registry) Schemas() []ToolSchema {
	var out []ToolSchema
	for _, e := range r.entries() {
		out = append(out, e.tool.schemaOf())
	}
	return out
}

func (t Tool) schemaOf() ToolSchema {
	return ToolSchema{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
}

func (r *Registry) entries() []*entry {
	if r == nil {
		return nil
	}
	if s := r.state.Load(); s != nil {
		return s.order
	}
	return nil
}

// Call runs the named tool with call.Input. It checks no permissions.
func (r *Registry) Call(ctx context.Context, call *ToolCall) (Result, error) {
	if call == nil {
		return Result{}, errors.New("gate: nil tool call")
	}
	e := r.lookup(call.Tool)
	if e == nil {
		return Result{}, &NotFoundError{Tool: call.Tool}
	}
	if e.tool.Func == nil {
		return Result{}, fmt.Errorf("gate: tool %q has no implementation", call.Tool)
	}
	return e.tool.Func(ctx, call.Input, &call.Context)
}
