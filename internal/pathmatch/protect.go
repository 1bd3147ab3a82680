package pathmatch

import (
	"strings"
	"unicode/utf8"
)

// builtinProtected is the built-in protected list of SPEC §7 (names of path
// components; ".config/git" is two consecutive components and ".env.*" the
// family of .env variants other than the examples).
var builtinProtected = []string{
	".git", ".ssh", ".gnupg", ".aws", ".kube", ".docker", ".config/git",
	".toolgate", ".claude", ".gemini", ".codex", ".cursor", ".vscode", ".idea", ".husky",
	".bashrc", ".zshrc", ".profile", ".bash_profile", ".bash_logout", ".zprofile", ".zshenv",
	".gitconfig", ".git-credentials", ".netrc", ".npmrc", ".pypirc",
	".env", ".env.*", ".envrc", ".mcp.json",
	// Beyond SPEC §7: Claude Code's per-user state file, which holds MCP
	// servers and per-project settings like .mcp.json does; and toolgate's
	// own user configuration directory under any home (the one this
	// process reads is protected as a directory too, but a call's home may
	// be another: toolgate serve decides for other users and machines).
	".claude.json", ".config/toolgate",
}

// ManagedConfigDir is the managed configuration directory; it is always
// protected.
const ManagedConfigDir = "/etc/toolgate"

// Protection is the protected-path checker of SPEC §7. It is immutable and
// safe for concurrent use.
type Protection struct {
	names     map[string]string // folded component name → entry
	configGit bool              // ".config/git" is in force
	configTG  bool              // ".config/toolgate" is in force
	envFamily bool              // ".env.*" is in force
	dirs      []string          // absolute protected directories
	nameAdds  []*Pattern        // additions without a slash: component globs
	pathAdds  []*Pattern        // additions with a slash: ForDeny path patterns
}

// NewProtection builds the protected-path checker: the built-in list, the
// absolute directories userConfigDir (toolgate's user configuration
// directory; may be empty) and [ManagedConfigDir], plus additions, minus
// removals.
//
// An addition without a slash is a component name, globs allowed (".secrets",
// "*.tfstate"); one with a slash is a path pattern compiled [ForDeny] with
// root. A removal names an entry of the built-in list exactly (".idea",
// ".config/git", ".env.*"); the caller passes removals from a managed layer
// only. An unknown removal, a malformed addition or a relative
// userConfigDir is an error.
func NewProtection(userConfigDir string, additions, removals []string, root string) (*Protection, error) {
	removed := make(map[string]bool, len(removals))
	for _, r := range removals {
		known := false
		for _, b := range builtinProtected {
			known = known || b == r
		}
		if !known {
			return nil, &ProtectionError{Entry: r, Msg: "not a built-in protected path; only those can be removed"}
		}
		removed[r] = true
	}
	pr := &Protection{names: make(map[string]string, len(builtinProtected))}
	for _, b := range builtinProtected {
		if removed[b] {
			continue
		}
		switch b {
		case ".config/git":
			pr.configGit = true
		case ".config/toolgate":
			pr.configTG = true
		case ".env.*":
			pr.envFamily = true
		default:
			pr.names[b] = b
		}
	}
	pr.dirs = append(pr.dirs, ManagedConfigDir)
	if userConfigDir != "" {
		d, ok := cleanAbs(userConfigDir)
		if !ok {
			return nil, &ProtectionError{Entry: userConfigDir, Msg: "the user config directory is not absolute"}
		}
		pr.dirs = append(pr.dirs, d)
	}
	for _, a := range additions {
		p, err := Compile(a, ForDeny, root)
		if err != nil {
			return nil, &ProtectionError{Entry: a, Msg: err.Error()}
		}
		bare := len(p.alts) > 0
		for i := range p.alts {
			bare = bare && p.alts[i].bare
		}
		if bare {
			pr.nameAdds = append(pr.nameAdds, p)
		} else {
			pr.pathAdds = append(pr.pathAdds, p)
		}
	}
	return pr, nil
}

// ProtectionError is a bad entry of a protected-path configuration.
type ProtectionError struct {
	Entry string
	Msg   string
}

// Error implements error.
func (e *ProtectionError) Error() string { return "protected path " + e.Entry + ": " + e.Msg }

// Check reports whether a write to abs touches a protected path: a component
// of abs (in every spelling, case-insensitive) is a protected name, or abs
// lies inside a protected directory or matches a protected path pattern.
// entry is the matched list entry, for the reason message. A relative abs
// (one that could not be placed) is judged by its components alone.
func (pr *Protection) Check(abs, cwd, home string) (entry string, protected bool) {
	if pr == nil {
		return "", false
	}
	if c, ok := cleanAbs(abs); ok {
		abs = c
	}
	if !needsSpellings(abs) {
		if e, ok := pr.check1(abs); ok {
			return e, true
		}
	} else {
		for _, s := range Spellings(abs) {
			if e, ok := pr.check1(s); ok {
				return e, true
			}
		}
	}
	for _, p := range pr.pathAdds {
		if p.Match(abs, cwd, home) {
			return p.text, true
		}
	}
	return "", false
}

func (pr *Protection) check1(p string) (string, bool) {
	if c, ok := cleanAbs(p); ok {
		p = c
		for _, d := range pr.dirs {
			if _, ok := relTo(p, d, true); ok {
				return d, true
			}
		}
	}
	var buf [32]byte
	prevConfig := false
	for c := range strings.SplitSeq(p, "/") {
		if c == "" {
			continue
		}
		// Every built-in name starts with a dot, but for the "git" of
		// ".config/git"; a dot has no other case form.
		if c[0] == '.' || prevConfig {
			f := foldInto(&buf, c)
			if e, ok := pr.names[string(f)]; ok {
				return e, true
			}
			if pr.configGit && prevConfig && string(f) == "git" {
				return ".config/git", true
			}
			if pr.configTG && prevConfig && string(f) == "toolgate" {
				return ".config/toolgate", true
			}
			prevConfig = string(f) == ".config"
			if pr.envFamily && isEnvVariant(string(f)) {
				return ".env.*", true
			}
		}
		for _, a := range pr.nameAdds {
			if a.matchComponent(c) {
				return a.text, true
			}
		}
	}
	return "", false
}

// foldInto returns the case-folded bytes of c, in buf when c is short ASCII
// (no allocation), freshly allocated otherwise.
func foldInto(buf *[32]byte, c string) []byte {
	if len(c) <= len(buf) {
		ascii := true
		for i := 0; i < len(c); i++ {
			b := c[i]
			if b >= utf8.RuneSelf {
				ascii = false
				break
			}
			buf[i] = lowerASCII(b)
		}
		if ascii {
			return buf[:len(c)]
		}
	}
	return []byte(foldString(c))
}

// isEnvVariant reports whether the folded name is ".env.<something>" other
// than an example (.example, .sample, .template, .dist).
func isEnvVariant(f string) bool {
	return len(f) > len(".env.") && strings.HasPrefix(f, ".env.") && !isEnvExample(f)
}

func isEnvExample(f string) bool {
	for _, suf := range [...]string{".example", ".sample", ".template", ".dist"} {
		if strings.HasSuffix(f, suf) {
			return true
		}
	}
	return false
}

// IsSecret reports whether abs is a secret file (SPEC §7): .env and .env.*
// (not the examples), .envrc; under .ssh every file except *.pub,
// known_hosts*, authorized_keys and config; everything under .gnupg;
// .aws/credentials, .netrc, .git-credentials, .npmrc, .pypirc,
// .docker/config.json, .kube/config; *.pem, *.key, *.p12 and *.pfx anywhere.
// Every spelling counts and names compare case-insensitively. The .env names
// are judged on the last component only (a directory named .env is a Python
// virtualenv more often than a secret).
func IsSecret(abs string) bool {
	if c, ok := cleanAbs(abs); ok {
		abs = c
	}
	if !needsSpellings(abs) {
		return isSecret1(abs)
	}
	for _, s := range Spellings(abs) {
		if isSecret1(s) {
			return true
		}
	}
	return false
}

func isSecret1(p string) bool {
	p = strings.TrimRight(p, "/")
	i := strings.LastIndexByte(p, '/')
	dir, last := "", p
	if i >= 0 {
		dir, last = p[:i], p[i+1:]
	}
	if last == "" || last == "." || last == ".." {
		return false
	}
	parent := dir
	if j := strings.LastIndexByte(dir, '/'); j >= 0 {
		parent = dir[j+1:]
	}
	var buf [32]byte
	l := string(foldInto(&buf, last))
	switch l {
	case ".env", ".envrc", ".netrc", ".git-credentials", ".npmrc", ".pypirc":
		return true
	case "credentials":
		if strings.EqualFold(parent, ".aws") {
			return true
		}
	case "config.json":
		if strings.EqualFold(parent, ".docker") {
			return true
		}
	case "config":
		if strings.EqualFold(parent, ".kube") {
			return true
		}
	}
	if isEnvVariant(l) {
		return true
	}
	for _, suf := range [...]string{".pem", ".key", ".p12", ".pfx"} {
		if strings.HasSuffix(l, suf) {
			return true
		}
	}
	if !strings.Contains(dir, "/.") {
		return false
	}
	for c := range strings.SplitSeq(dir, "/") {
		switch {
		case strings.EqualFold(c, ".gnupg"):
			return true
		case strings.EqualFold(c, ".ssh"):
			if !(strings.HasSuffix(l, ".pub") || strings.HasPrefix(l, "known_hosts") ||
				l == "authorized_keys" || l == "config") {
				return true
			}
		}
	}
	return false
}
