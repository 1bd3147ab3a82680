package mcpwrap

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FS is the file access of [Wrap] and [Unwrap]. [OSFS] is the real file
// system.
type FS interface {
	// ReadFile reads a file; an error satisfying errors.Is(err,
	// fs.ErrNotExist) means there is none.
	ReadFile(name string) ([]byte, error)
	// WriteFile replaces a file's content atomically. An existing file
	// keeps its permissions; a new one gets perm.
	WriteFile(name string, data []byte, perm fs.FileMode) error
	// Remove removes a file; one that does not exist is no error.
	Remove(name string) error
	// Perm returns a file's permission bits.
	Perm(name string) (fs.FileMode, error)
}

// OSFS is the operating system's file system. WriteFile follows a symbolic
// link to the file it names (a configuration kept in a dotfiles repository
// stays a link), writes a temporary file next to that file, syncs it and
// renames it over the target, so a reader — the client itself, which may
// be running — never sees half a file.
type OSFS struct{}

// ReadFile implements [FS].
func (OSFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

// Perm implements [FS].
func (OSFS) Perm(name string) (fs.FileMode, error) {
	st, err := os.Stat(name)
	if err != nil {
		return 0, err
	}
	return st.Mode().Perm(), nil
}

// Remove implements [FS].
func (OSFS) Remove(name string) error {
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// WriteFile implements [FS].
func (OSFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target
	}
	if st, err := os.Stat(name); err == nil {
		perm = st.Mode().Perm()
	}
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".toolgate-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// Wrap wraps the servers of a client's configuration file at path (see
// [ConfigPath]) and, unless dryRun, writes the state file and then the
// file. A file that does not exist is an error: there is nothing to wrap.
// The file is read again just before it is replaced; if it changed in
// between (the client wrote it), nothing is written and the error says to
// run again.
func Wrap(c Client, path string, options *Options, fsys FS, dryRun bool) (*Result, error) {
	var o Options
	if options != nil {
		o = *options
	}
	return apply(c, path, o, fsys, dryRun, true)
}

// Unwrap restores the wrapped servers of a configuration file (see
// [UnwrapText]) and, unless dryRun, writes the file and then updates or
// removes the state file.
func Unwrap(c Client, path string, options *Options, fsys FS, dryRun bool) (*Result, error) {
	var o Options
	if options != nil {
		o = *options
	}
	return apply(c, path, o, fsys, dryRun, false)
}

func apply(c Client, path string, o Options, fsys FS, dryRun, wrap bool) (*Result, error) {
	if fsys == nil {
		fsys = OSFS{}
	}
	edit := UnwrapText
	if wrap {
		edit = WrapText
	}
	src, err := fsys.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &missingError{path: path, wrap: wrap}
	}
	if err != nil {
		return nil, err
	}
	statePath := StatePath(path)
	state, err := fsys.ReadFile(statePath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	res, err := edit(c, path, src, state, &o)
	if err != nil {
		return nil, err
	}
	if dryRun || (!res.Changed && bytes.Equal(res.State, state)) {
		return res, nil
	}
	perm, err := fsys.Perm(path)
	if err != nil {
		return nil, err
	}
	now, err := fsys.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(now, src) {
		return nil, fmt.Errorf("%s changed while toolgate was editing it (is the client running and writing it?); nothing written; run again", path)
	}
	writeState := func() error {
		if res.State == nil {
			return fsys.Remove(statePath)
		}
		if bytes.Equal(res.State, state) {
			return nil
		}
		// The state holds the entries' environments: as private as the file.
		return fsys.WriteFile(statePath, res.State, 0o600)
	}
	if wrap {
		// The record first: a wrapped entry without one can still be
		// unwrapped, but never lose a record of a wrapped entry.
		if err := writeState(); err != nil {
			return nil, err
		}
	}
	if res.Changed {
		if err := fsys.WriteFile(path, res.Content, perm); err != nil {
			return nil, err
		}
	}
	if !wrap {
		if err := writeState(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// missingError is the error for a configuration file that does not exist;
// it satisfies errors.Is(err, fs.ErrNotExist).
type missingError struct {
	path string
	wrap bool
}

func (e *missingError) Error() string {
	verb := "unwrap"
	if e.wrap {
		verb = "wrap"
	}
	return fmt.Sprintf("%s does not exist: no MCP servers to %s", e.path, verb)
}

func (e *missingError) Unwrap() error { return fs.ErrNotExist }
