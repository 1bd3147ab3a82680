// Package host is the operating system's side of toolgate: what the engine
// needs to know about the real file system — symlink targets, whether a
// path is a directory, what a glob expands to — implemented over it and
// handed to the engine through [toolgate.Options].
//
// The engine itself never touches the file system (it decides from values
// alone); the command line passes it these capabilities, and an embedder
// that passes [EngineOptions] gets exactly the command line's checking.
// Without them, paths are judged as written: no symlink is followed (so no
// allow rule covers a path through an unreadable link) and a glob is judged
// conservatively.
//
// host is, with cmd/toolgate, the one place of the library that touches the
// operating system (see deps_test.go at the module root).
package host

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolgate/toolgate"
)

// EngineOptions returns engine options that read the real file system: a
// new [SymlinkResolver], [IsDir] and [Glob], with userConfigDir as
// toolgate's user configuration directory (a protected path; "" means
// ~/.config/toolgate). Classifier is left nil.
func EngineOptions(userConfigDir string) *toolgate.Options {
	return &toolgate.Options{ResolveSymlinks: NewSymlinkResolver().Resolve, IsDir: IsDir, Glob: Glob, UserConfigDir: userConfigDir}
}

// FS returns the real file system rooted at "/", as config.Options.FS
// wants it: the file /a/b is opened as "a/b".
func FS() fs.FS { return os.DirFS("/") }

// IsDir reports whether a path, symlinks followed, is a directory
// ([toolgate.Options.IsDir]): a content search of a file is a plain read of
// it.
func IsDir(p string) (bool, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

// Glob expands an absolute glob pattern as bash does without dotglob
// ([toolgate.Options.Glob]): a pattern segment that does not start with '.'
// matches no name starting with '.'.
func Glob(pattern string) ([]string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	segs := strings.Split(pattern, "/")
	out := matches[:0]
	for _, m := range matches {
		if visibleMatch(segs, strings.Split(m, "/")) {
			out = append(out, m)
		}
	}
	return out, nil
}

func visibleMatch(pat, name []string) bool {
	if len(pat) != len(name) {
		return false
	}
	for i, s := range pat {
		if strings.ContainsAny(s, "*?[") && !strings.HasPrefix(s, ".") && strings.HasPrefix(name[i], ".") {
			return false
		}
	}
	return true
}

// symlinkTTL is how long a looked-up path component stays cached. A check
// loop answering thousands of requests a second would otherwise repeat the
// same lstat calls for every path under the same directories; within this
// window the file system is read once. (The decision is made before the
// tool runs anyway, so a link created in between is outside any checker's
// reach; the window only adds this much to that gap.)
const symlinkTTL = time.Second

// maxSymlinkHops bounds the links followed in one resolution (a loop).
const maxSymlinkHops = 40

// maxCacheEntries bounds the cache; it is emptied when full.
const maxCacheEntries = 1 << 16

type cachedPath struct {
	resolved string // the path with every symlink along it resolved
	exists   bool
	at       time.Time
}

// SymlinkResolver resolves the symlinks along absolute paths of the real
// file system, remembering each resolved prefix for a second (a loop
// deciding thousands of calls a second reads each directory once). It is
// safe for concurrent use. Its Resolve method is
// [toolgate.Options.ResolveSymlinks].
type SymlinkResolver struct {
	mu    sync.Mutex
	cache map[string]cachedPath
	now   func() time.Time
	lstat func(string) (fs.FileInfo, error)
}

// NewSymlinkResolver returns a resolver with an empty cache.
func NewSymlinkResolver() *SymlinkResolver {
	return &SymlinkResolver{cache: map[string]cachedPath{}, now: time.Now, lstat: os.Lstat}
}

// Resolve returns p with every symlink along it resolved. The longest prefix
// that exists is resolved; the rest is appended unchanged. A symlink loop is
// an error.
func (r *SymlinkResolver) Resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", errors.New("not an absolute path")
	}
	hops := 0
	c, err := r.resolve(filepath.Clean(p), &hops, r.now())
	return c.resolved, err
}

func (r *SymlinkResolver) resolve(p string, hops *int, now time.Time) (cachedPath, error) {
	if p == "/" {
		return cachedPath{resolved: "/", exists: true}, nil
	}
	r.mu.Lock()
	c, ok := r.cache[p]
	r.mu.Unlock()
	if ok && now.Sub(c.at) < symlinkTTL {
		return c, nil
	}
	parent, err := r.resolve(filepath.Dir(p), hops, now)
	if err != nil {
		return parent, err
	}
	joined := filepath.Join(parent.resolved, filepath.Base(p))
	c = cachedPath{resolved: joined, at: now}
	if parent.exists {
		fi, err := r.lstat(joined)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			// Unreadable (permission denied, I/O error): whether a link
			// lies here is unknown, which the engine treats as unresolved.
			return c, err
		case err != nil:
			// Missing, or not a directory: the rest is appended as written.
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(joined)
			if err != nil {
				return c, err
			}
			if *hops++; *hops > maxSymlinkHops {
				return c, errors.New("too many levels of symbolic links")
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(parent.resolved, target)
			}
			t, err := r.resolve(filepath.Clean(target), hops, now)
			if err != nil {
				return c, err
			}
			c.resolved, c.exists = t.resolved, t.exists
		default:
			c.exists = true
		}
	}
	r.mu.Lock()
	if len(r.cache) >= maxCacheEntries {
		clear(r.cache)
	}
	r.cache[p] = c
	r.mu.Unlock()
	return c, nil
}
