// Package mcpwrap rewrites an MCP client's configuration so that each of its
// MCP servers runs behind the toolgate MCP proxy ("toolgate mcp wrap"), and
// puts the configuration back ("toolgate mcp unwrap").
//
// A wrapped stdio server entry keeps every field it had; only its command
// and arguments change, from
//
//	"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]
//
// to
//
//	"command": "/usr/local/bin/toolgate",
//	"args": ["mcp", "--upstream-name=fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv"]
//
// so the client starts the proxy with the entry's environment, working
// directory and timeouts, and the proxy starts the original server. A
// streamable-HTTP server's entry becomes a stdio entry whose command runs
// the proxy with --upstream-url=URL (and --upstream-header for each header,
// only with [Options.HeadersInArgs]: they are then on a command line every
// local user can read); its other fields stay. No field
// a client does not know is ever added: Claude Code, Gemini CLI, Codex and
// Cursor would each either reject it or drop it when they rewrite the file.
//
// # Restoring exactly
//
// Edits are splices: the parsers here keep every value's byte span, and a
// wrap replaces only the spans of an entry's command and arguments (a URL
// entry's members are rewritten within its own span; in Codex's
// config.toml, only lines of the [mcp_servers.NAME] table change), so
// comments, key order, spacing and the rest of the file stay byte for byte
// as they were. The original text of every wrapped entry is recorded in a
// state file next to the configuration (FILE.toolgate-mcpwrap.json, mode
// 0600 since entries hold environments, with a copy of the whole file as it
// was before the first wrap as a backup). Unwrap splices the recorded text back, so a file
// nobody touched in between comes back byte for byte; a file edited
// elsewhere keeps those edits and gets only its entries back.
//
// The record is a convenience, not an authority: it is used only when
// wrapping the recorded text again yields exactly the wrapped entry as it
// is now.
// An entry edited while wrapped, or a state file that is missing or was
// altered, is restored from the wrapped entry's own content instead.
//
// # Refusing
//
// Wrap refuses, naming the file and the entry, whatever it could not put
// back or could not carry through the proxy: files it cannot parse (with the
// line and column), entries that are not objects, have no command, have
// arguments that are not strings, carry fields whose meaning behind a proxy
// is unknown or whose work the proxy cannot do (OAuth, header helpers,
// token variables), or reach an SSE or WebSocket server. By default a
// refusal of any selected entry means nothing is written ([RefusedError]);
// [Options.Partial] wraps the others.
//
// Every edit is checked before it is written: the new text is parsed again
// and must mean exactly the old configuration with only the intended
// commands and arguments changed. Files are replaced atomically (a
// temporary file renamed over the target), keeping their permissions.
package mcpwrap
