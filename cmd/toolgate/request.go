package main

import (
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/wire"
)

// defaults fill the fields a request leaves out: --cwd, --home and --mode,
// else the process's own.
type defaults struct {
	cwd, home string
	mode      *toolgate.Mode
}

// parseRequest reads one JSON Lines request (SPEC §1, §10) with package
// wire, the reader toolgate serve uses too. The returned call refers into
// line, which must not change while it is used.
func parseRequest(line []byte, def defaults) (toolgate.Call, *wire.RequestError) {
	return wire.ParseRequest(line, wire.Defaults{Cwd: def.cwd, Home: def.home, Mode: def.mode})
}
