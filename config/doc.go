// Package config turns toolgate configuration files into layers
// ([toolgate.Layer]) with precise diagnostics, and finds and loads the
// standard files.
//
// Files are YAML, TOML or JSON, chosen by extension. Each is decoded into one
// position-carrying tree and checked against one schema (SPEC §9), so every
// rule keeps the line and column of its first character and every problem is
// reported as file:line:col, all of them at once ([toolgate.Diagnostics],
// with stable codes: syntax, type, value, unknown-key, duplicate-key,
// version, pointer, source, trust, legacy, example, io, size, format).
// Unknown keys are warnings; a value of the wrong type or an unknown value
// for a known key is an error. Columns count characters. In a quoted
// string, the position is that of the first character inside the quotes;
// escape sequences inside a string are not accounted for, so offsets past an
// escape are approximate.
//
// Besides toolgate's own schema, [Parse] reads Claude Code settings files
// (their permissions object, with Claude's precedence and defaults) and
// migrates the legacy format of seed 004, warning about every change of
// meaning.
//
// [Load] discovers files as SPEC §6.1 describes (managed, user, project and
// local files; Claude settings on request), all through an [io/fs.FS], and
// applies the trust rules: a project or local file found by discovery may
// only tighten the policy unless the user trusts the project. [Build] also
// compiles the layers and checks every file's examples.
//
// Fail closed: a file that fails to load is an error, never a more
// permissive policy. The package reads no environment variables and touches
// the file system only through the given fs.FS.
package config
