package toolgate_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The layering of the module's packages, enforced the way Go's own
// go/build/deps_test.go does: dependencies point one way — cmd → adapters
// (hook, gate, config, host…) → the root → rule and internal — and only the
// edges touch the operating system.

const module = "github.com/toolgate/toolgate"

// osPackages are the imports that touch the operating system: files,
// processes, the network.
var osPackages = []string{"os", "os/exec", "os/signal", "syscall", "net", "net/http", "database/sql"}

// mayTouchOS lists, with the reason, the packages allowed to import
// osPackages (an entry covers the packages below it). cmd/toolgate and host
// are the intended ones; every other entry says why it cannot take what it
// needs as arguments.
var mayTouchOS = map[string]string{
	"cmd/toolgate":                 "the command line: flags, environment, stdio, files and exit codes",
	"host":                         "the operating system's side of the engine: symlinks, directories, globs",
	"hook":                         "installs its entry in an agent's settings files (OSFS) and proves it live by running the agent's own commands (status)",
	"audit":                        "creates JSON Lines audit files (CreateJSONL)",
	"audit/sqlite":                 "opens the SQLite audit database",
	"store":                        "a database-backed store of approvals and session rules",
	"serve":                        "the HTTP decision service listens on the network",
	"mcpgate":                      "the MCP proxy runs the upstream server as a process and speaks HTTP",
	"mcpwrap":                      "rewrites MCP client configuration files in place",
	"e2e":                          "drives real agents end to end",
	"internal/shell/bashdiff":      "the differential test runs real bash",
	"internal/shell/bashdiff/shim": "the differential test's shim is a program bash runs",
}

// forbidden lists imports a package must not have, directly.
var forbidden = map[string][]string{
	// The engine decides from values: no loader, no sinks, no processes,
	// no adapters of its own; the shell is read only through internal/shell.
	".": {module + "/config", module + "/audit", module + "/gate", module + "/hook", module + "/host", module + "/seed", "os/exec",
		"mvdan.cc/sh/v3/syntax", "mvdan.cc/sh/v3/expand", "mvdan.cc/sh/v3/interp"},
	// The gate and the loader build on the engine, not on the edges.
	"gate":   {module + "/config", module + "/hook", module + "/host"},
	"config": {module + "/audit", module + "/gate", module + "/hook", module + "/host"},
	"rule":   {module},
	// The seed's builder is a thin layer over the root, nothing more.
	"seed": {module + "/config", module + "/audit", module + "/gate", module + "/hook", module + "/host"},
	"host": {module + "/config", module + "/audit", module + "/gate", module + "/hook"},
}

func TestDependencies(t *testing.T) {
	pkgs := modulePackages(t)
	if len(pkgs) < 8 {
		t.Fatalf("found only %d packages: is the test running at the module root?", len(pkgs))
	}
	for _, rel := range sortedKeys(pkgs) {
		imports := pkgs[rel]
		for _, imp := range imports {
			if slices.Contains(osPackages, imp) {
				if !listed(rel) {
					t.Errorf("%s imports %s: only cmd/toolgate and host touch the operating system (list a package with its reason in mayTouchOS if it truly must)", name(rel), imp)
				}
			}
			if strings.HasPrefix(rel, "internal/") && (imp == module || strings.HasPrefix(imp, module+"/") && !strings.HasPrefix(imp, module+"/internal/") && imp != module+"/rule") {
				t.Errorf("%s imports %s: internal packages never import the root or the adapters", name(rel), imp)
			}
			if slices.Contains(forbidden[rel], imp) {
				t.Errorf("%s imports %s, which the layering forbids", name(rel), imp)
			}
		}
	}
	for rel := range mayTouchOS {
		if _, ok := pkgs[rel]; !ok {
			t.Errorf("mayTouchOS lists %s, which is not a package of the module", rel)
		}
	}
}

// TestNoDatabaseBehindTheGate: an embedder importing the gate, the engine
// or the audit sinks gets no database driver (the SQLite sink is package
// audit/sqlite).
func TestNoDatabaseBehindTheGate(t *testing.T) {
	pkgs := modulePackages(t)
	for _, start := range []string{".", "gate", "audit", "config", "host"} {
		seen := map[string]bool{}
		var walk func(rel string)
		walk = func(rel string) {
			if seen[rel] {
				return
			}
			seen[rel] = true
			for _, imp := range pkgs[rel] {
				if imp == "database/sql" || strings.HasPrefix(imp, "modernc.org/sqlite") || strings.HasPrefix(imp, "github.com/jackc/pgx") {
					t.Errorf("%s reaches %s through %s", name(start), imp, name(rel))
				}
				if imp == module {
					walk(".")
				} else if r, ok := strings.CutPrefix(imp, module+"/"); ok {
					walk(r)
				}
			}
		}
		walk(start)
	}
}

// modulePackages returns the non-test imports of every package of the
// module (nested modules and testdata excluded), by path relative to the
// module root ("." for the root).
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		base := d.Name()
		if p != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		if p != "." && fileExists(filepath.Join(p, "go.mod")) {
			return filepath.SkipDir // another module
		}
		bp, err := build.ImportDir(p, 0)
		if err != nil {
			return nil // no buildable Go files here
		}
		out[filepath.ToSlash(p)] = bp.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// listed reports whether mayTouchOS covers package rel.
func listed(rel string) bool {
	for k := range mayTouchOS {
		if rel == k || strings.HasPrefix(rel, k+"/") {
			return true
		}
	}
	return false
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func name(rel string) string {
	if rel == "." {
		return module
	}
	return module + "/" + rel
}

func sortedKeys(m map[string][]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
