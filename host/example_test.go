package host_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/host"
)

// An embedder passes host.EngineOptions to get the command line's checking:
// here a read through a symbolic link into a denied directory. Without the
// host's resolver the engine sees only the path as written, which an allow
// rule covers; with it, the deny rule sees the link's target.
func ExampleEngineOptions() {
	tmp, err := os.MkdirTemp("", "host-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(tmp)
	dir, _ := filepath.EvalSymlinks(tmp)
	app, secret := filepath.Join(dir, "app"), filepath.Join(dir, "secret")
	for _, d := range []string{app, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := os.WriteFile(filepath.Join(secret, "keys.txt"), []byte("k"), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	if err := os.Symlink(secret, filepath.Join(app, "docs")); err != nil {
		fmt.Println(err)
		return
	}

	layer := toolgate.Layer{Source: toolgate.SourceProject, Root: app,
		Allow: []toolgate.RuleSpec{{Text: "Read(./**)"}},
		Deny:  []toolgate.RuleSpec{{Text: "Read(/" + secret + "/**)"}}}
	in, _ := json.Marshal(map[string]string{"file_path": filepath.Join(app, "docs", "keys.txt")})
	call := toolgate.Call{Tool: "Read", Input: in, Cwd: app}
	for _, tc := range []struct {
		name string
		opts toolgate.Options
	}{
		{"without host", toolgate.Options{}},
		{"with host", *host.EngineOptions("")},
	} {
		cfg, err := toolgate.Compile([]toolgate.Layer{layer}, &tc.opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		d := cfg.Decide(call)
		fmt.Printf("%s: %s by %s rule\n", tc.name, d.Outcome, d.Reason().Effect)
	}
	// Output:
	// without host: allow by allow rule
	// with host: deny by deny rule
}
