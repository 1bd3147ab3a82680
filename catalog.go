package toolgate

import "fmt"

// Kind says how a tool's input is read.
type Kind uint8

// The tool kinds.
const (
	KindGeneric   Kind = iota // anything else: the declared primary field, if any
	KindShell                 // a shell command
	KindRead                  // reads files
	KindList                  // lists directories (a read kind)
	KindSearch                // searches file contents (a read kind)
	KindEdit                  // writes files
	KindFetch                 // fetches a URL
	KindWebSearch             // searches the web
	KindAgent                 // starts a sub-agent
	KindPlanExit              // leaves plan mode
	KindMCP                   // an MCP tool

	numKinds = iota
)

var kindNames = [...]string{"generic", "shell", "read", "list", "search", "edit", "fetch", "web_search", "agent", "plan_exit", "mcp"}

// String returns the kind's name as written in the tools section of a file.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "generic"
}

// ParseKind parses a kind name.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return KindGeneric, fmt.Errorf("unknown tool kind %q (want one of shell, read, list, search, edit, fetch, web_search, agent, plan_exit, mcp, generic)", s)
}

// ToolInfo is a tool catalog entry: how a tool's input is read.
type ToolInfo struct {
	Kind Kind
	// Field is the primary field: the command for shell tools, the URL for
	// fetch tools, the query for web searches, the sub-agent type for agent
	// tools, the declared field for generic tools. Dotted for nested keys.
	Field string
	// ReadOnly marks a tool that only reads. For shell tools it is decided per
	// command; for MCP and generic tools only the configuration can set it.
	ReadOnly bool
	// ExcludesDenied says the tool skips denied files itself, so a content
	// search with it is not a safety floor.
	ExcludesDenied bool
}

// builtinTools is the catalog of SPEC §1.1.
var builtinTools = func() map[string]ToolInfo {
	m := map[string]ToolInfo{}
	add := func(k Kind, field string, ro bool, names ...string) {
		for _, n := range names {
			m[n] = ToolInfo{Kind: k, Field: field, ReadOnly: ro}
		}
	}
	add(KindShell, "command", false, "Bash", "bash", "shell", "run_shell_command")
	add(KindShell, "cmd", false, "exec_command")
	add(KindShell, "action.command", false, "local_shell")
	add(KindRead, "", true, "Read", "read", "read_file", "read_text_file", "read_multiple_files", "read_many_files", "NotebookRead", "View")
	add(KindList, "", true, "LS", "ls", "list_directory", "Glob", "glob")
	add(KindSearch, "", true, "Grep", "grep", "search", "search_file_content")
	add(KindEdit, "", false, "Edit", "edit", "MultiEdit", "Write", "write", "write_file", "NotebookEdit", "replace", "create_file", "edit_file", "move_file", "apply_patch", "download")
	add(KindFetch, "url", true, "WebFetch", "web_fetch", "fetch")
	add(KindWebSearch, "query", true, "WebSearch", "web_search", "google_web_search")
	add(KindAgent, "subagent_type", false, "Agent", "Task")
	add(KindPlanExit, "", true, "exit_plan_mode", "ExitPlanMode")
	return m
}()

// kindNames maps the rule tool names that stand for a whole kind.
var kindRuleNames = map[string]Kind{
	"Bash":      KindShell,
	"Read":      KindRead,
	"Edit":      KindEdit,
	"Write":     KindEdit,
	"WebFetch":  KindFetch,
	"WebSearch": KindWebSearch,
	"Agent":     KindAgent,
}

// kindFamily reports whether a call of kind k is covered by a kind-name rule
// for kind rk ("Read" covers listings and content searches).
func kindFamily(rk, k Kind) bool {
	if rk == KindRead {
		return k == KindRead || k == KindList || k == KindSearch
	}
	return rk == k
}

// isReadKind reports whether k reads files.
func isReadKind(k Kind) bool { return k == KindRead || k == KindList || k == KindSearch }

// BuiltinTools returns a copy of the built-in tool catalog: every tool name
// toolgate knows without configuration, with how its input is read.
func BuiltinTools() map[string]ToolInfo {
	m := make(map[string]ToolInfo, len(builtinTools))
	for k, v := range builtinTools {
		m[k] = v
	}
	return m
}

// KindRuleNames returns the rule tool names that stand for a whole kind
// ("Bash" covers every shell tool; "Write" is an alias of "Edit").
func KindRuleNames() map[string]Kind {
	m := make(map[string]Kind, len(kindRuleNames))
	for k, v := range kindRuleNames {
		m[k] = v
	}
	return m
}
