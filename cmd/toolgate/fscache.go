package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

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

// symlinkResolver resolves the symlinks along absolute paths, remembering
// each resolved prefix for symlinkTTL. It is safe for concurrent use.
type symlinkResolver struct {
	mu    sync.Mutex
	cache map[string]cachedPath
	now   func() time.Time
	lstat func(string) (fs.FileInfo, error)
}

func newSymlinkResolver() *symlinkResolver {
	return &symlinkResolver{cache: map[string]cachedPath{}, now: time.Now, lstat: os.Lstat}
}

// Resolve returns p with every symlink along it resolved. The longest prefix
// that exists is resolved; the rest is appended unchanged. A symlink loop is
// an error.
func (r *symlinkResolver) Resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", errors.New("not an absolute path")
	}
	hops := 0
	c, err := r.resolve(filepath.Clean(p), &hops, r.now())
	return c.resolved, err
}

func (r *symlinkResolver) resolve(p string, hops *int, now time.Time) (cachedPath, error) {
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
