// Package pathmatch places, spells and matches file paths for the permission
// engine: making a path absolute ([Abs]), listing every spelling a deny check
// must consider ([Spellings]), gitignore-style path patterns with toolgate's
// four anchors ([Compile]), the protected-path and secret-file checks of the
// specification's §7 ([NewProtection], [IsSecret]) and the file headers of a
// V4A apply_patch body ([PatchPaths]).
//
// Everything here is pure: no file system, no environment. Symlinks are
// resolved by the caller, which then matches both ends of a link.
//
// Paths are POSIX slash paths. A pattern compiled [ForDeny] (deny and ask
// rules, protected paths) sees every form: it compares case-insensitively and
// tries every spelling of the path itself, inside [Pattern.Match]. A pattern
// compiled [ForAllow] is exact and case-sensitive. Whatever matches an allow
// pattern also matches the deny compilation of the same text.
package pathmatch
