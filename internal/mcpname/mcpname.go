// Package mcpname checks the names of upstream MCP servers, which the
// configuration (config's mcp section) and the gateway (mcpgate's servers
// files and flags) both accept, so that both refuse the same names.
package mcpname

import (
	"errors"
	"fmt"
	"regexp"
)

// MaxLen bounds a server name so that mcp__<name>__<tool> leaves room for
// the tool within toolgate's 128-character tool names.
const MaxLen = 64

// pattern is what a server name may be: letters, digits and "-", in runs
// joined by single underscores, so that mcp__<name>__<tool> always splits at
// the name's end.
var pattern = regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)

// Check reports why name cannot name an upstream MCP server, or nil.
func Check(name string) error {
	switch {
	case name == "":
		return errors.New("empty server name")
	case len(name) > MaxLen:
		return fmt.Errorf("server name %q is longer than %d characters", name, MaxLen)
	case !pattern.MatchString(name):
		return fmt.Errorf("server name %q: use letters, digits, \"-\" and single \"_\" between them (a name with \"__\" could not be told apart from its tools)", name)
	}
	return nil
}
