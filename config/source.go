package config

import (
	"path"
	"strings"

	"github.com/toolgate/toolgate"
)

// ManagedDir is the directory of managed (administrator) configuration.
const ManagedDir = "/etc/toolgate"

// UserConfigDir returns toolgate's user configuration directory:
// $XDG_CONFIG_HOME/toolgate, else ~/.config/toolgate. env looks up an
// environment variable (os.Getenv in a program; nil reads none).
func UserConfigDir(env func(string) string, home string) string {
	if env != nil {
		if x := env("XDG_CONFIG_HOME"); x != "" && path.IsAbs(x) {
			return path.Join(x, "toolgate")
		}
	}
	if home == "" {
		return ""
	}
	return path.Join(home, ".config", "toolgate")
}

// SourceFor returns the source a file's location gives it (SPEC §6.1): under
// /etc/toolgate managed; in the user config directory or ~/.claude user; in
// a .toolgate or .claude folder project, or local for "*.local.*" and
// settings.local.json; anywhere else cli. p should be absolute and clean.
func SourceFor(p, home, userConfigDir string) toolgate.Source {
	p = path.Clean(p)
	switch {
	case within(p, ManagedDir):
		return toolgate.SourceManaged
	case userConfigDir != "" && within(p, path.Clean(userConfigDir)):
		return toolgate.SourceUser
	case home != "" && within(p, path.Join(home, ".claude")):
		return toolgate.SourceUser
	}
	if configFolder(p) != "" {
		base := path.Base(p)
		if base == "settings.local.json" || strings.Contains(base, ".local.") {
			return toolgate.SourceLocal
		}
		return toolgate.SourceProject
	}
	return toolgate.SourceCLI
}

// configFolder returns the nearest ancestor directory of file p named
// .toolgate or .claude, or "".
func configFolder(p string) string {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if b := path.Base(d); b == ".toolgate" || b == ".claude" {
			return d
		}
		if d == "/" || d == "." {
			return ""
		}
	}
}

// LayerRoot returns the directory that "/x" patterns of file p are anchored
// at: the directory holding the file's .toolgate or .claude folder (the
// project root; home for ~/.claude/settings.json), else the file's own
// directory.
func LayerRoot(p string) string {
	if d := configFolder(p); d != "" {
		return path.Dir(d)
	}
	return path.Dir(p)
}

// ParseConfigArg splits a --config argument "[SOURCE=]FILE". The split is at
// the first "=" only when the text before it is a source name (session,
// managed, cli, local, project, user); explicit reports whether it was.
func ParseConfigArg(arg string) (src toolgate.Source, file string, explicit bool) {
	if i := strings.IndexByte(arg, '='); i > 0 {
		var s toolgate.Source
		if s.UnmarshalText([]byte(arg[:i])) == nil {
			return s, arg[i+1:], true
		}
	}
	return toolgate.SourceInvalid, arg, false
}
