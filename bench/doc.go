// Package bench compares toolgate's decisions with those of two general
// policy engines, cedar-go and OPA, and with a naive matcher that sets the
// floor, on the same generated policies and the same calls.
//
// Every engine starts from the bytes a host hands over: a hook payload
// ({"tool_name":…,"tool_input":{…},"cwd":…}). Decoding that JSON is part of
// every engine's measured cost. A policy is generated once, engine-neutrally
// ([Generate]), and each engine translates it into its own language:
//
//   - toolgate: rule texts such as Bash(npm run test:*) and Read(./src/**)
//     compiled with toolgate.Compile;
//   - cedar-go: one permit or forbid policy per rule, with a like condition
//     on the command or path in the request's context;
//   - OPA: one Rego rule body per rule (startswith for commands, glob.match
//     for paths and tool names), prepared once and evaluated per call;
//   - floor: a loop over the rules doing string prefix and glob matching, with
//     no shell parsing and no path cleaning.
//
// The engines agree where their semantics agree; toolgate is deliberately
// stricter on compound commands, substitutions, .. in paths and the like. The
// agreement test asserts both: the shared outcomes and the listed differences.
//
// The module is separate from toolgate's own so that toolgate gains no
// dependency; go.work in this directory uses the toolgate module of the
// enclosing working tree.
package bench
