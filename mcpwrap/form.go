package mcpwrap

import (
	"path/filepath"
	"strings"
)

// The proxy's flags that wrap writes (the proxy's own documentation is
// "toolgate mcp --help").
const (
	// NameFlag names the upstream server of a wrapped entry; the proxy
	// exposes that server's tools to rules as mcp__NAME__TOOL.
	NameFlag = "--upstream-name"
	// URLFlag is the streamable-HTTP address of an upstream server.
	URLFlag = "--upstream-url"
	// HeaderFlag is one HTTP header ("Key: Value") sent to a URL upstream.
	HeaderFlag = "--upstream-header"
)

// ProxyArgs returns the arguments of a wrapped stdio entry's command: the
// "mcp" subcommand, extra proxy flags, the server's name and, after "--",
// the original command and its arguments exactly.
func ProxyArgs(name string, extra []string, upstream []string) []string {
	args := make([]string, 0, 3+len(extra)+len(upstream))
	args = append(args, "mcp")
	args = append(args, extra...)
	args = append(args, NameFlag+"="+name, "--")
	return append(args, upstream...)
}

// URLProxyArgs returns the arguments of a wrapped URL entry's command: the
// "mcp" subcommand, extra proxy flags, the server's name, its address and
// its headers ("Key: Value"), in their order.
func URLProxyArgs(name string, extra []string, url string, headers []string) []string {
	args := make([]string, 0, 3+len(extra)+2*len(headers))
	args = append(args, "mcp")
	args = append(args, extra...)
	args = append(args, NameFlag+"="+name, URLFlag+"="+url)
	for _, h := range headers {
		args = append(args, HeaderFlag, h)
	}
	return args
}

// wrappedForm is what a wrapped entry's command line says.
type wrappedForm struct {
	name     string
	extra    []string // the proxy flags before --upstream-name
	upstream []string // a stdio upstream: its command line
	url      string   // a URL upstream: its address
	headers  []string // and its headers
}

// parseWrapped recognises the command of an entry that runs behind the
// toolgate proxy: a program named toolgate (or toolgate-SOMETHING, a
// renamed release binary, or the configured command) run either as
// "mcp … --upstream-name=NAME -- UPSTREAM…" or as "mcp … --upstream-name=NAME
// --upstream-url=URL [--upstream-header H]…", in the layout ProxyArgs and
// URLProxyArgs write.
func parseWrapped(cmd string, args []string, configured string) (wrappedForm, bool) {
	var f wrappedForm
	if !isToolgate(cmd, configured) || len(args) < 1 || args[0] != "mcp" {
		return f, false
	}
	i := 1
	for ; i < len(args) && !strings.HasPrefix(args[i], NameFlag+"="); i++ {
		if args[i] == "--" {
			return f, false
		}
		f.extra = append(f.extra, args[i])
	}
	if i >= len(args) {
		return f, false
	}
	f.name = strings.TrimPrefix(args[i], NameFlag+"=")
	rest := args[i+1:]
	switch {
	case len(rest) >= 2 && rest[0] == "--":
		f.upstream = rest[1:]
		return f, true
	case len(rest) >= 1 && strings.HasPrefix(rest[0], URLFlag+"="):
		f.url = strings.TrimPrefix(rest[0], URLFlag+"=")
		rest = rest[1:]
		for len(rest) >= 2 && rest[0] == HeaderFlag {
			f.headers = append(f.headers, rest[1])
			rest = rest[2:]
		}
		return f, len(rest) == 0 && f.url != ""
	}
	return f, false
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
