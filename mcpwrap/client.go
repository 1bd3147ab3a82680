package mcpwrap

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Client is an MCP client whose configuration mcpwrap edits.
type Client string

// The clients.
const (
	Claude Client = "claude" // Claude Code: .mcp.json, ~/.claude.json
	Gemini Client = "gemini" // Gemini CLI: .gemini/settings.json
	Codex  Client = "codex"  // Codex CLI: config.toml
	Cursor Client = "cursor" // Cursor: .cursor/mcp.json
)

// Clients lists every client, in the order help texts name them.
var Clients = []Client{Claude, Gemini, Codex, Cursor}

// ParseClient returns the client named s.
func ParseClient(s string) (Client, error) {
	for _, c := range Clients {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown client %q (want claude, gemini, codex or cursor)", s)
}

// Scope says which of a client's configuration files [ConfigPath] names.
type Scope string

const (
	// ScopeDefault is the client's usual place for MCP servers: the
	// project for Claude Code (.mcp.json) and Cursor, the user's settings
	// for Gemini CLI and Codex (which read a project's file only when the
	// project is trusted).
	ScopeDefault Scope = ""
	// ScopeProject is the project's file, under Location.Dir.
	ScopeProject Scope = "project"
	// ScopeUser is the user's file, under Location.Home.
	ScopeUser Scope = "user"
)

// Location is where [ConfigPath] looks: a scope and the directories the
// clients read their files from. The caller fills it from the flags and
// the environment; the package reads neither.
type Location struct {
	Scope Scope
	// Dir is the project directory.
	Dir string
	// Home is the user's home directory.
	Home string
	// CodexHome is $CODEX_HOME; empty means Home/.codex.
	CodexHome string
	// ClaudeConfigDir is $CLAUDE_CONFIG_DIR; when set, Claude Code keeps
	// its user file there (CLAUDE_CONFIG_DIR/.claude.json) instead of in
	// the home directory.
	ClaudeConfigDir string
}

// ConfigPath returns the MCP configuration file of a client:
//
//	claude  project DIR/.mcp.json               user HOME/.claude.json (or CLAUDE_CONFIG_DIR/.claude.json)
//	gemini  project DIR/.gemini/settings.json   user HOME/.gemini/settings.json
//	codex   project DIR/.codex/config.toml      user CODEX_HOME/config.toml (default HOME/.codex)
//	cursor  project DIR/.cursor/mcp.json        user HOME/.cursor/mcp.json
//
// The user file of Claude Code holds the user's servers (mcpServers) and
// each project's local ones (projects.PATH.mcpServers); both are edited.
func ConfigPath(c Client, l Location) (string, error) {
	if _, err := ParseClient(string(c)); err != nil {
		return "", err
	}
	scope := l.Scope
	if scope == ScopeDefault {
		scope = ScopeProject
		if c == Gemini || c == Codex {
			scope = ScopeUser
		}
	}
	var p string
	switch scope {
	case ScopeProject:
		if l.Dir == "" {
			return "", fmt.Errorf("no project directory")
		}
		p = filepath.Join(l.Dir, map[Client]string{
			Claude: ".mcp.json",
			Gemini: filepath.Join(".gemini", "settings.json"),
			Codex:  filepath.Join(".codex", "config.toml"),
			Cursor: filepath.Join(".cursor", "mcp.json"),
		}[c])
	case ScopeUser:
		switch {
		case c == Codex && l.CodexHome != "":
			p = filepath.Join(l.CodexHome, "config.toml")
		case c == Claude && l.ClaudeConfigDir != "":
			p = filepath.Join(l.ClaudeConfigDir, ".claude.json")
		case l.Home == "":
			return "", fmt.Errorf("no home directory")
		default:
			p = filepath.Join(l.Home, map[Client]string{
				Claude: ".claude.json",
				Gemini: filepath.Join(".gemini", "settings.json"),
				Codex:  filepath.Join(".codex", "config.toml"),
				Cursor: filepath.Join(".cursor", "mcp.json"),
			}[c])
		}
	default:
		return "", fmt.Errorf("unknown scope %q (want project or user)", scope)
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is not an absolute path", p)
	}
	return p, nil
}

// StatePath returns the state file that records the original entries of a
// wrapped configuration file.
func StatePath(config string) string { return config + ".toolgate-mcpwrap.json" }

// stdioFields are the fields of a stdio server entry, beyond command and
// args, whose meaning survives the proxy: the client applies them to the
// process it starts (the proxy, which passes its environment and working
// directory on to the server) or to the tools it is given (whose names the
// proxy keeps). They were read from each client's own schema (Claude Code
// 2.1.332, Gemini CLI 0.61.0's MCPServerConfig, Codex 0.171.0's
// RawMcpServerConfig, Cursor's documented mcp.json). Any other field makes
// wrap refuse the entry.
var stdioFields = map[Client][]string{
	Claude: {"type", "env", "timeout", "alwaysLoad"},
	Gemini: {"type", "env", "cwd", "timeout", "trust", "description", "includeTools", "excludeTools"},
	Codex: {"env", "env_vars", "cwd", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec",
		"enabled", "required", "enabled_tools", "disabled_tools", "default_tools_approval_mode", "tools"},
	Cursor: {"type", "env", "envFile"},
}

// remoteFields mark an entry that reaches its server over the network.
var remoteFields = []string{"url", "httpUrl", "tcp", "serverUrl"}

// urlFields are the fields of a streamable-HTTP server entry that wrap
// can carry: the address and headers go into the proxy's arguments, the
// others keep their meaning for the proxy the client starts instead.
// OAuth settings, header helpers and token variables are not among them:
// the proxy cannot log in for the client.
var urlFields = map[Client][]string{
	Claude: {"type", "url", "headers", "timeout", "alwaysLoad"},
	Gemini: {"type", "url", "httpUrl", "headers", "timeout", "trust", "description", "includeTools", "excludeTools"},
	Codex: {"url", "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec",
		"enabled", "required", "enabled_tools", "disabled_tools", "default_tools_approval_mode", "tools"},
	Cursor: {"type", "url", "headers"},
}

// remoteFieldAllowed reports whether a URL entry of client c may carry
// field k.
func remoteFieldAllowed(c Client, k string) bool {
	for _, f := range urlFields[c] {
		if f == k {
			return true
		}
	}
	return false
}

// expands reports whether the client expands environment variables ("$X",
// "${X}", "${env:X}") in a stdio entry's arguments. Claude Code expands
// ${VAR} in .mcp.json, Gemini CLI $VAR and ${VAR} in all of settings.json,
// Cursor ${env:VAR} and ${workspaceFolder}; Codex expands nothing.
func expands(c Client) bool { return c != Codex }

// fieldAllowed reports whether a stdio entry of client c may carry field k.
func fieldAllowed(c Client, k string) bool {
	if k == "command" || k == "args" {
		return true
	}
	for _, f := range stdioFields[c] {
		if f == k {
			return true
		}
	}
	return false
}

// nameProblem says why a server name cannot be carried into the proxy's
// arguments, or "".
func nameProblem(c Client, name string) string {
	switch {
	case name == "":
		return "the server has an empty name"
	case expands(c) && strings.Contains(name, "$"):
		return fmt.Sprintf("the server name %q holds '$', which %s would expand as a variable in the proxy's arguments", name, clientName(c))
	case strings.ContainsAny(name, "\x00\n\r"):
		return fmt.Sprintf("the server name %q holds a control character", name)
	}
	return ""
}

// clientName is a client's product name, for messages.
func clientName(c Client) string {
	switch c {
	case Claude:
		return "Claude Code"
	case Gemini:
		return "Gemini CLI"
	case Codex:
		return "Codex"
	case Cursor:
		return "Cursor"
	}
	return string(c)
}
