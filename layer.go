package toolgate

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Source says where a layer comes from. Sources are ordered by priority,
// highest first: Session, Managed, CLI, Local, Project, User. The built-in
// default policy lies beneath them all.
type Source uint8

// The layer sources, highest priority first.
const (
	SourceInvalid Source = iota
	SourceSession
	SourceManaged
	SourceCLI
	SourceLocal
	SourceProject
	SourceUser
	SourceBuiltin
)

var sourceNames = [...]string{"invalid", "session", "managed", "cli", "local", "project", "user", "builtin"}

// String returns the source's name as used in files and reasons.
func (s Source) String() string {
	if int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return "invalid"
}

// MarshalText implements encoding.TextMarshaler: the source's name.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it reads a source name
// (session, managed, cli, local, project, user; builtin is reserved for the
// built-in default policy and is refused).
func (s *Source) UnmarshalText(b []byte) error { return unmarshalWith(s, b, parseSource) }

func parseSource(s string) (Source, error) {
	for i, n := range sourceNames {
		if i > 0 && n == s && Source(i) != SourceBuiltin {
			return Source(i), nil
		}
	}
	return SourceInvalid, fmt.Errorf("unknown source %q (want session, managed, cli, local, project or user)", s)
}

// Position is a place in a configuration file. Line and Column are 1-based;
// Column counts characters. The zero Position means "not from a file".
type Position struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// String renders file:line:col, or the parts that are known.
func (p Position) String() string {
	switch {
	case p.File == "" && p.Line == 0:
		return ""
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Shift returns the position n characters further on the same line.
func (p Position) Shift(n int) Position {
	if p.Line > 0 {
		p.Column += n
	}
	return p
}

// RuleSpec is one rule's text and where it was written. Pos is the position of
// the rule text's first character.
type RuleSpec struct {
	Text string
	Pos  Position
}

// Precedence orders the allow and ask lists.
type Precedence uint8

const (
	// DenyAllowAsk checks deny, then allow, then ask rules (the default).
	DenyAllowAsk Precedence = iota
	// DenyAskAllow checks deny, then ask, then allow rules (Claude Code's order).
	DenyAskAllow
)

// String returns "deny-allow-ask" or "deny-ask-allow".
func (p Precedence) String() string {
	if p == DenyAskAllow {
		return "deny-ask-allow"
	}
	return "deny-allow-ask"
}

// MarshalText implements encoding.TextMarshaler.
func (p Precedence) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it reads
// "deny-allow-ask" or "deny-ask-allow".
func (p *Precedence) UnmarshalText(b []byte) error { return unmarshalWith(p, b, parsePrecedence) }

func parsePrecedence(s string) (Precedence, error) {
	switch s {
	case "deny-allow-ask":
		return DenyAllowAsk, nil
	case "deny-ask-allow":
		return DenyAskAllow, nil
	}
	return DenyAllowAsk, fmt.Errorf("unknown precedence %q (want deny-allow-ask or deny-ask-allow)", s)
}

// ToolSpec adds or overrides a tool catalog entry. Pattern is an exact tool
// name or a glob. Nil fields leave the entry's property as it is.
type ToolSpec struct {
	Pattern        string
	Kind           *Kind
	Field          *string
	ReadOnly       *bool
	ExcludesDenied *bool
	Pos            Position
}

// Rewrite is a declarative modification: when Match matches a call (read like
// a deny rule), Set and Remove are applied to its input.
type Rewrite struct {
	Match  RuleSpec
	Set    []PointerValue
	Remove []PointerRef
}

// PointerValue sets the value at a JSON Pointer.
type PointerValue struct {
	Pointer string
	Value   json.RawMessage
	Pos     Position
}

// PointerRef names a JSON Pointer to remove.
type PointerRef struct {
	Pointer string
	Pos     Position
}

// AgentPolicy tightens the configuration for one sub-agent.
type AgentPolicy struct {
	Allow, Deny, Ask []RuleSpec
	Default          *Outcome
	DefaultReadOnly  *Outcome
	Mode             *Mode
	Pos              Position
}

// Layer is one source's rules and settings: the input to [Compile].
//
// Nil pointer fields are unset; the highest-priority layer that sets a scalar
// wins (between layers of equal priority, the later one).
type Layer struct {
	Source Source
	// File is the absolute path of the file the layer came from, or "".
	File string
	// Root is the directory that "/x" path patterns are anchored at.
	Root string

	Allow, Deny, Ask []RuleSpec

	Default         *Outcome
	DefaultReadOnly *Outcome
	Precedence      *Precedence
	Mode            *Mode
	Enabled         *bool

	// AdditionalDirectories widen the workspace; absolute paths.
	AdditionalDirectories []string
	// ProtectedPaths are added to the built-in protected paths.
	ProtectedPaths []RuleSpec
	// UnprotectedPaths are removed from the protected paths; honoured only
	// in a managed layer.
	UnprotectedPaths []RuleSpec

	Tools    []ToolSpec
	Rewrites []Rewrite
	Agents   map[string]AgentPolicy

	// AllowManagedRulesOnly (managed layers only) ignores the allow and ask
	// rules of every non-managed layer.
	AllowManagedRulesOnly bool
	// DisableModes (managed layers only) makes selecting these modes an error.
	DisableModes []ModeName

	// ClaudeSettings marks a layer read from a Claude Code settings file: an
	// allow rule's tool glob approves nothing unless it follows a literal
	// "mcp__<server>__" prefix.
	ClaudeSettings bool
	// ExactToolNames marks a layer migrated from the legacy format: its
	// allow rules name tools literally (case-sensitive; a trailing "*" is a
	// prefix) and never stand for a whole kind, as they did before.
	ExactToolNames bool
}

// BuiltinLayer returns the built-in default policy (SPEC §6.1), which lies
// beneath every file: default ask, precedence deny-allow-ask, mode default,
// enabled. The safety checks are always on; they need no setting.
//
// discovered says whether the configuration was found by discovery. Only
// then is the built-in default policy in force with its default_read_only:
// allow. A configuration named explicitly (--config FILE) is a complete
// policy: the built-in layer then sets no default_read_only, which follows
// default as everywhere else.
func BuiltinLayer(discovered bool) Layer {
	ask, allow := Ask, Allow
	prec := DenyAllowAsk
	mode := Mode{Name: ModeDefault}
	enabled := true
	l := Layer{Source: SourceBuiltin, Default: &ask, Precedence: &prec, Mode: &mode, Enabled: &enabled}
	if discovered {
		l.DefaultReadOnly = &allow
	}
	return l
}

// Settings are the scalar settings a list of layers puts in force, each
// with the layer it comes from.
type Settings struct {
	Default         Outcome
	DefaultReadOnly Outcome
	Precedence      Precedence
	Mode            Mode
	Enabled         bool

	// Where each setting comes from. An Origin whose Layer is -1 means no
	// layer sets it: the engine's own default holds (for default_read_only:
	// it follows Default).
	DefaultFrom, DefaultReadOnlyFrom, PrecedenceFrom, ModeFrom, EnabledFrom Origin

	// DefaultSource and DefaultReadOnlySource are DefaultFrom.Source and
	// DefaultReadOnlyFrom.Source (SourceInvalid: no layer sets it).
	DefaultSource         Source
	DefaultReadOnlySource Source
}

// Origin is the layer a setting comes from.
type Origin struct {
	// Layer is the layer's index among the layers ordered by priority,
	// highest first, as [Policy.Layers] returns them; -1 for none.
	Layer  int
	Source Source
	File   string // the layer's file, or ""
}

// IsZero reports whether no layer sets the setting.
func (o Origin) IsZero() bool { return o.Layer < 0 }

// ResolveSettings returns the scalar settings in force for layers (SPEC
// §6.1): each comes from the highest-priority layer that sets it, and
// between layers of equal priority from the later one. Unset, default is
// ask, default_read_only follows default, precedence is deny-allow-ask, the
// mode is default and the policy is enabled.
//
// The built-in layer's default_read_only belongs to its own default: when
// a file sets default but not default_read_only, default_read_only follows
// that default, as if the built-in layer were not there.
//
// Compile and the configuration loader (judging whether an untrusted file
// loosens the settings beneath it) both read settings this way; a compiled
// policy publishes its reading as [Policy.Settings].
func ResolveSettings(layers []Layer) Settings {
	ls := append([]Layer(nil), layers...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Source < ls[j].Source })
	none := Origin{Layer: -1}
	st := Settings{Default: Ask, Mode: Mode{Name: ModeDefault}, Enabled: true,
		DefaultFrom: none, DefaultReadOnlyFrom: none, PrecedenceFrom: none, ModeFrom: none, EnabledFrom: none}
	dro := Invalid
	// Walk from the lowest priority to the highest and overwrite; equal
	// priorities in their order, so the later wins.
	for i := len(ls) - 1; i >= 0; {
		j := i
		for j >= 0 && ls[j].Source == ls[i].Source {
			j--
		}
		for k := j + 1; k <= i; k++ {
			l := ls[k]
			o := Origin{Layer: k, Source: l.Source, File: l.File}
			if l.Default != nil {
				st.Default, st.DefaultFrom = *l.Default, o
			}
			if l.DefaultReadOnly != nil {
				dro, st.DefaultReadOnlyFrom = *l.DefaultReadOnly, o
			}
			if l.Precedence != nil {
				st.Precedence, st.PrecedenceFrom = *l.Precedence, o
			}
			if l.Mode != nil {
				st.Mode, st.ModeFrom = *l.Mode, o
			}
			if l.Enabled != nil {
				st.Enabled, st.EnabledFrom = *l.Enabled, o
			}
		}
		i = j
	}
	if st.DefaultReadOnlyFrom.Source == SourceBuiltin && st.DefaultFrom.Source != SourceBuiltin {
		dro, st.DefaultReadOnlyFrom = Invalid, none
	}
	if dro == Invalid {
		dro = st.Default
	}
	st.DefaultReadOnly = dro
	st.DefaultSource, st.DefaultReadOnlySource = st.DefaultFrom.Source, st.DefaultReadOnlyFrom.Source
	return st
}
