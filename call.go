package toolgate

import "encoding/json"

// MaxInputSize is the largest call input, in bytes, that the engine reads.
// A larger input is denied as invalid.
const MaxInputSize = 1 << 20

// Call is what an agent wants to do: one tool invocation.
type Call struct {
	// Tool is the tool name: 1–128 characters from [A-Za-z0-9_.:/-].
	Tool string `json:"tool"`
	// Input is the tool's arguments, a JSON object. Empty or null means {}.
	Input json.RawMessage `json:"input,omitempty"`
	// Cwd is the absolute working directory; relative paths resolve against it.
	Cwd string `json:"cwd,omitempty"`
	// Home is the home directory used for "~".
	Home string `json:"home,omitempty"`
	// NotReadOnly, when set, marks the call as not read-only. A request may
	// only make a call stricter, so there is no way to mark it read-only here.
	NotReadOnly bool `json:"-"`
	// Agent names the sub-agent making the call, if any.
	Agent string `json:"agent,omitempty"`
	// Session is the session id, for session rules kept by a server.
	Session string `json:"session,omitempty"`
	// Server is the MCP server the tool belongs to, when the host knows it.
	Server string `json:"server,omitempty"`
	// Mode, when set, is the session mode for this call; it wins over the
	// configuration's mode.
	Mode *Mode `json:"-"`
	// NonInteractive marks a context where nobody can be asked: an Ask
	// becomes a Deny.
	NonInteractive bool `json:"-"`
}
