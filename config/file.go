package config

import (
	"path"
	"strings"
	"unicode/utf8"

	"github.com/toolgate/toolgate"
)

// MaxFileSize is the largest configuration file, in bytes, that is read.
// A larger file is a load error.
const MaxFileSize = 4 << 20

// Format is the syntax of a configuration file, chosen by its extension.
type Format uint8

// The file formats.
const (
	FormatUnknown Format = iota // not a configuration file extension
	YAML                        // .yaml, .yml
	TOML                        // .toml
	JSON                        // .json
)

// String returns "yaml", "toml", "json" or "unknown".
func (f Format) String() string {
	switch f {
	case YAML:
		return "yaml"
	case TOML:
		return "toml"
	case JSON:
		return "json"
	}
	return "unknown"
}

// FormatOf returns the format a file name's extension selects, or
// FormatUnknown.
func FormatOf(name string) Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml":
		return YAML
	case ".toml":
		return TOML
	case ".json":
		return JSON
	}
	return FormatUnknown
}

// FileKind is the schema a file was read with (SPEC §9, format detection).
type FileKind uint8

// The file kinds.
const (
	// Toolgate is toolgate's own schema (a top-level "version").
	Toolgate FileKind = iota
	// Claude is a Claude Code settings file.
	Claude
	// Legacy is the single-layer format of seed 004, migrated on load.
	Legacy
)

// String returns "toolgate", "claude" or "legacy".
func (k FileKind) String() string {
	switch k {
	case Claude:
		return "claude"
	case Legacy:
		return "legacy"
	}
	return "toolgate"
}

// Example is a call written in a file together with the outcome it must get.
// Examples are checked by [Build] whenever the file loads.
type Example struct {
	Call toolgate.Call
	// Mode, if set, is the session mode for the call.
	Mode *toolgate.Mode
	// Expect is the expected outcome. With ExpectNot, any outcome but Expect
	// passes (not_match lists: anything but allow).
	Expect    toolgate.Outcome
	ExpectNot bool
	// Rule, if set, is the text of the rule expected to decide.
	Rule string
	// Pos is where the example is written; File the file's path.
	Pos  toolgate.Position
	File string
}

// File is one configuration file, decoded and checked.
type File struct {
	// Path is the file's path as given (absolute when loaded by [Load]).
	Path   string
	Format Format
	Kind   FileKind
	// Source is the file's own source; layers entries of a trusted file may
	// claim others.
	Source toolgate.Source
	// Trusted reports whether the file was honoured in full; an untrusted
	// project or local file only tightens (SPEC §6.1).
	Trusted bool
	// Layers holds the file's layers in file order: its top-level layer
	// (when it sets anything, or when there is no layers list) and then its
	// layers entries.
	Layers []toolgate.Layer
	// TrustedProjects lists the project directories a user or managed file
	// trusts (absolute, "~" expanded when the home directory is known).
	TrustedProjects []string
	// IncludeClaudeSettings is set when a user or managed file asks for
	// Claude Code settings files to be read too.
	IncludeClaudeSettings bool
	// Examples are the file's example calls.
	Examples []Example
	// MCPServers are the upstream MCP servers of the file's mcp section, in
	// file order ([Set.MCPServers] merges them across files). An untrusted
	// file contributes only disabled entries.
	MCPServers []MCPServer
}

// Parse decodes one configuration file. path names it in diagnostics and
// layers (and anchors its relative directories and "/x" patterns); src is the
// file's source ([SourceFor]); trusted says whether a project or local file
// is honoured in full. When trusted is false, only what tightens is kept, as
// compared with the built-in default policy; "~" in trusted_projects is left
// unexpanded ([Load] knows the home directory and does both precisely).
//
// The returned diagnostics hold warnings and errors; when
// Diagnostics.Err() is not nil the file must be treated as failed. The File
// is never nil.
func Parse(path string, data []byte, src toolgate.Source, trusted bool) (*File, toolgate.Diagnostics) {
	return parse(path, data, parseOptions{src: src, trusted: trusted, beneath: builtinScalars()})
}

// parseOptions are what Load knows beyond Parse's arguments.
type parseOptions struct {
	src     toolgate.Source
	trusted bool
	home    string
	// beneath are the settings in force below the file, against which an
	// untrusted file's settings must be at least as strict.
	beneath scalars
	// claudeName marks a file found at a Claude settings location.
	claudeName bool
}

// scalars are the effective settings of a stack of layers.
type scalars struct {
	def, defRO toolgate.Outcome
	prec       toolgate.Precedence
}

func builtinScalars() scalars {
	return scalars{def: toolgate.Ask, defRO: toolgate.Allow, prec: toolgate.DenyAllowAsk}
}

func parse(p string, data []byte, o parseOptions) (*File, toolgate.Diagnostics) {
	var diags toolgate.Diagnostics
	f := &File{Path: p, Format: FormatOf(p), Source: o.src, Trusted: o.trusted}
	start := toolgate.Position{File: p, Line: 1, Column: 1}
	if len(data) > MaxFileSize {
		diags.Errorf(toolgate.Position{File: p}, "size", "file is %d bytes; the limit is %d", len(data), MaxFileSize)
		return f, diags
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		diags.Errorf(newLineIndex(p, string(data)).pos(off), "syntax", "invalid UTF-8")
		return f, diags
	}
	var root *node
	switch f.Format {
	case YAML:
		root = decodeYAML(p, data, &diags)
	case TOML:
		root = decodeTOML(p, data, &diags)
	case JSON:
		root = decodeJSON(p, data, &diags)
	default:
		diags.Errorf(toolgate.Position{File: p}, "format", "unknown configuration file extension %q (want .yaml, .yml, .toml or .json)", path.Ext(p))
		return f, diags
	}
	if root == nil {
		diags.Sort()
		return f, diags
	}
	if root.kind != kindMap {
		diags.Errorf(root.pos, "type", "the configuration must be %s, not %s", kindMap, root.kind)
		return f, diags
	}
	c := &checker{file: f, opts: o, diags: &diags, dir: path.Dir(p), root: LayerRoot(p)}
	switch detect(root, f.Format, o.claudeName) {
	case Claude:
		f.Kind = Claude
		c.claude(root)
	case Legacy:
		f.Kind = Legacy
		c.legacy(root)
	default:
		if root.get("version") == nil {
			diags.Warnf(start, "version", "no version key: reading the file as toolgate format version 1 (add \"version: 1\")")
		}
		c.toolgate(root)
	}
	diags.Sort()
	return f, diags
}

// detect applies SPEC §9's format detection.
func detect(root *node, f Format, claudeName bool) FileKind {
	if root.get("version") != nil {
		return Toolgate
	}
	perms := root.get("permissions")
	for _, k := range []string{"interactive", "plan", "mode"} {
		if root.get(k) != nil {
			return Legacy
		}
		if perms != nil && perms.value.get(k) != nil {
			return Legacy
		}
	}
	if f == JSON && ((perms != nil && perms.value.kind == kindMap) || claudeName) {
		return Claude
	}
	return Toolgate
}
