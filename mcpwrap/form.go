package mcpwrap

import (
	"path/filepath"
	"strings"
)

// NameFlag is the proxy flag that names the upstream server of a wrapped
// entry; the proxy exposes that server's tools to rules as
// mcp__NAME__TOOL.
const NameFlag = "--upstream-name"

// ProxyArgs returns the arguments of a wrapped entry's command: the "mcp"
// subcommand, extra proxy flags, the server's name and, after "--", the
// original command and its arguments exactly.
func ProxyArgs(name string, extra []string, upstream []string) []string {
	args := make([]string, 0, 3+len(extra)+len(upstream))
	args = append(args, "mcp")
	args = append(args, extra...)
	args = append(args, NameFlag+"="+name, "--")
	return append(args, upstream...)
}

// parseWrapped recognises the command of an entry that runs behind the
// toolgate proxy: a program named toolgate (or toolgate-SOMETHING, a
// renamed release binary, or the configured command) run as "mcp …
// --upstream-name=NAME … -- UPSTREAM…". It returns the server name the
// proxy was given and the upstream command line.
func parseWrapped(cmd string, args []string, configured string) (name string, upstream []string, ok bool) {
	if !isToolgate(cmd, configured) || len(args) < 1 || args[0] != "mcp" {
		return "", nil, false
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if name == "" || i+1 >= len(args) {
				return "", nil, false
			}
			return name, args[i+1:], true
		case strings.HasPrefix(a, NameFlag+"="):
			name = strings.TrimPrefix(a, NameFlag+"=")
		case a == NameFlag && i+1 < len(args):
			name = args[i+1]
			i++
		}
	}
	return "", nil, false
}

// isToolgate reports whether cmd runs toolgate.
func isToolgate(cmd, configured string) bool {
	if configured != "" && cmd == configured {
		return true
	}
	base := filepath.Base(cmd)
	base = strings.TrimSuffix(base, ".exe")
	return base == "toolgate" || strings.HasPrefix(base, "toolgate-") || strings.HasPrefix(base, "toolgate_")
}
