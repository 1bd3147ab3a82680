// Package mcpgate is an MCP gateway: one MCP server (the [Proxy]) that sits
// between any MCP client and any number of upstream MCP servers and decides
// every tool call with toolgate's policy engine, before the call reaches the
// server.
//
// Each upstream is named in configuration ([ServerSpec], read from a servers
// file by [ParseServers]: the "mcpServers" JSON of Claude Code, Cursor and
// Gemini CLI, or toolgate's own form) and reached over stdio (a command) or
// streamable HTTP (a URL). Its tools are offered downstream as
// mcp__<server>__<tool>, the server's name coming from configuration and
// never parsed out of a tool name, so rules such as mcp__github__get_* or
// mcp__db__query(sql:select *) apply as they do in hooks, and every call
// carries its server to the engine.
//
// What the proxy does with each request:
//
//   - tools/list: only the tools the policy shows ([toolgate.Engine.ExposeToModel]);
//     a hidden tool is absent and calling it is a JSON-RPC error that says
//     why. An upstream's notifications/tools/list_changed is followed: the
//     proxy lists again, filters again and notifies its own clients.
//   - tools/call: decided from the raw arguments. Deny is a tool result with
//     isError and toolgate's reason (rule, layer, file:line:col); allow
//     forwards the call; modify forwards the rewritten arguments only after
//     they validate against the tool's own inputSchema and pass the policy
//     again; ask asks the client's user (below).
//   - resources/read is a read: a file: URI is decided as a Read-kind call
//     of its path, any other URI as a call of the pseudo-tool
//     mcp__<server>__resources/read with input {"uri": URI}.
//   - prompts (offered as <server>__<prompt>) and completions are passed
//     through to their server, each prompts/get recorded in the audit log;
//     an upstream's elicitation, sampling and progress
//     requests are relayed to the client whose call the server is serving.
//
// # Asking a person
//
// On a session whose client declared the elicitation capability, an ask
// becomes a form the user answers ("approve": true lets the call run once).
// A stateful session (protocol before 2026-07-28) gets an elicitation
// request, with a deadline (Options.AskTimeout). A 2026-07-28 session gets an
// input_required result whose request state the proxy mints and signs: an
// HMAC-SHA256 over a random nonce, the tool, a digest of the arguments, the
// policy revision and an expiry. The answer must come back with that state,
// for the same tool, the same arguments and the same policy, before it
// expires, and only once. A client that sends inputResponses of its own (the
// forged-approval hole of naive gateways), replays a state, or alters the
// arguments is refused. A client without the elicitation capability cannot
// be asked: the call is denied, and the reason says so.
//
// # Deciding remotely
//
// With Options.Checker instead of an Engine, every decision is the
// Checker's: a remote decision service ("toolgate mcp --server", through
// package serve's client), so that a fleet's gateways share one policy and
// one decision log. Each call it is sent carries its MCP server and a
// session id (the downstream session's, or one random id per proxy for a
// stdio client). tools/list shows what the Checker says
// ([ToolVisibility]); a tool it leaves out is hidden, and when it cannot
// say, no tool is listed and the proxy logs why (fail closed: a hidden
// tool's definition never reaches the model; the listing is filtered again
// as soon as the Checker answers). A Checker that answers per session
// ([SessionToolVisibility]) is asked per session instead: each session is
// shown what its own rules show it, and calling a tool it is not shown is
// the JSON-RPC "hidden" error. An ask of the Checker's is first offered to its
// out-of-band approval ([ApprovalWaiter]: a person answers it on the
// service, within a bound); what stands after is put to the client's user
// as above, and a client that cannot be asked is denied with how to
// approve the call and retry it. An ask the proxy makes itself (a
// destructive annotation) is not the Checker's, and is only put to the
// client's user.
//
// # Pinning tool definitions
//
// A [Lock] (the lock file "toolgate mcp lock" writes) records a digest of
// each approved tool's name, description, input schema and annotations
// ([ToolDigest]). With [PinEnforce], a tool whose definition is not pinned,
// or changed since (a "rug pull"), is hidden, and calling it is an error
// that says a person must approve it again; [PinWarn] shows it and logs a
// warning; [PinOff] does not compare.
//
// A tool's annotations can only make its calls stricter: one that declares
// itself destructive or open-world is never treated as read-only, and a
// destructive one is asked about unless one of the user's own rules allows
// it. When the server's entry sets trust_annotations
// ([ServerSpec].TrustAnnotations, or TrustTools for one tool) and the tool
// is pinned and unchanged under PinEnforce, its hints are believed and
// tighten nothing; marking a tool read-only stays the configuration's job
// (its tools section).
//
// # Failing closed
//
// The proxy is only useful if nothing gets past it by making it fail. So: a
// panic, an engine error, an unverifiable rewrite, an audit event that
// cannot be stored, an upstream that crashed, timed out or returned
// nonsense, an answer the proxy did not ask for — each ends in a denial
// (a tool result with isError) and never in a forwarded call. A server
// that stops is restarted with a growing delay; its calls are refused with
// the reason meanwhile.
//
// All access to the policy engine, or the Checker, is in one file
// (engine.go).
package mcpgate
