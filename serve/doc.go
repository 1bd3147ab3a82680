// Package serve is toolgate's decision service: one policy for a fleet of
// agents, a shared decision log, and asks that become durable approvals a
// person answers out of band.
//
// A [Server] is an http.Handler plus background work (watching the policy
// files, following session-rule changes of other replicas, expiring
// approvals, delivering webhooks). [Serve] runs it on a listener and shuts
// down gracefully. Everything replicas share lives in a [store.Store]
// (SQLite for one replica, PostgreSQL for several), so replicas are
// stateless and may sit behind any load balancer.
//
// # Endpoints
//
//	POST /v1/decide              one call, the toolgate check JSON contract (SPEC §10) plus "revision" and "approval"
//	POST /v1/decide:batch        a JSON array of calls, or JSON Lines as check reads them
//	POST /access/v1/evaluation   OpenID AuthZEN evaluation (and /evaluations)
//	GET  /v1/policy              revision, layers with their sources, settings
//	POST /v1/visibility          which of a list of tools the policy shows a model (an MCP gateway's tools/list)
//	GET  /v1/webhooks/deliveries the webhook deliveries and their state (admin)
//	GET|POST|DELETE /v1/session-rules
//	GET  /v1/approvals[/{id}]    list, show, ?wait=30s to wait for an answer
//	POST /v1/approvals/{id}/approve|deny
//	GET  /approvals              the approvers' web page
//	GET  /healthz, /readyz, /metrics
//
// # Approvals
//
// An ask is recorded with the call's digest (SHA-256 of the tool, the
// canonical input and the working directory), the caller's token name, the
// sub-agent and the session. An approval lets exactly that call, from that
// caller, agent and session, through once before it expires: the retry
// consumes it in one atomic UPDATE, so two replicas cannot both use it.
// Expiry, a restart or a lost database never turn into an allow.
//
// # Failing closed
//
// A malformed or oversized request is answered with a deny of kind invalid
// and a 4xx status; an unauthenticated one with a deny and 401. A store
// error while resolving an ask is a deny of kind error. A policy file that
// stops loading keeps the previous policy in force (reported in /readyz,
// the log and the metrics); the service never starts with a policy that
// did not load.
//
// # Roles
//
// Bearer tokens come from a file that stores only their SHA-256. An agent
// token may ask for decisions and read its own approvals; an approver token
// answers approvals; an admin token manages session rules and reloads, and
// may do both. Nobody answers an approval with the token that asked for it.
package serve
