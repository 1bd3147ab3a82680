package toolgate

// Options are the compile-time settings of a [Policy]. The zero value is
// ready to use: no file system access, no classifier.
type Options struct {
	// ResolveSymlinks, if set, returns the target of every symlink along an
	// absolute path (the fully resolved path). Deny and ask rules match the
	// link or its target; allow rules need both. Nil: no resolution.
	ResolveSymlinks func(path string) (string, error)
	// IsDir, if set, reports whether an absolute path (symlinks followed)
	// is a directory. A content search of a file is a plain read of it,
	// not a directory search; nil, or an error, leaves the kind unknown and
	// the search is judged both ways.
	IsDir func(path string) (bool, error)
	// Glob, if set, expands an absolute glob pattern as bash would. Nil:
	// globs in shell arguments are judged conservatively.
	Glob func(pattern string) ([]string, error)
	// UserConfigDir is toolgate's user configuration directory, which is a
	// protected path. Empty: "~/.config/toolgate".
	UserConfigDir string
	// Classifier, if set, is consulted in auto mode for a call that would
	// otherwise be asked about. An error leaves the call at ask.
	Classifier func(c Call, d Decision) (Outcome, error)
}
