package main

import (
	"flag"
	"fmt"
	"runtime/debug"
)

const versionUsage = `Usage:

	toolgate version

Version prints toolgate's version, the VCS revision it was built from (when
known) and the Go version, from the binary's build information.
`

func (c *cli) version(args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), versionUsage) }
	if code, done := parseFlags(fs, args); done {
		return code
	}
	if fs.NArg() > 0 {
		c.errorf("version: unexpected argument %q", fs.Arg(0))
		return exitUsage
	}
	fmt.Fprintln(c.stdout, versionString())
	return exitOK
}

// versionString renders "toolgate VERSION [REVISION[+dirty]] GOVERSION".
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "toolgate (unknown version)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	s := "toolgate " + v
	var rev, dirty string
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.modified":
			if kv.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		s += " " + rev + dirty
	}
	return s + " " + bi.GoVersion
}

// defaultGCPercent sets the garbage collector's target percentage for a
// long-running command (serve, mcp) unless the GOGC environment variable
// chooses one.
func (c *cli) defaultGCPercent(p int) {
	if c.getenv("GOGC") == "" {
		debug.SetGCPercent(p)
	}
}
