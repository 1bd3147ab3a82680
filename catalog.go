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
