package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgate/toolgate/mcpwrap"
)

// TestMCPWrapClientsLoad wraps a stdio MCP server in each real client's
// configuration and checks, with the client's own "mcp list", that the
// client still loads the file, lists the server under its name, and (for
// Claude Code and Gemini CLI, whose "mcp list" connects) starts the
// wrapped command with exactly the proxy's arguments, the original command
// after "--" with the client's variable expansion applied. The program the
// entries run is a stand-in named toolgate that records its arguments: the
// test is about the configuration, not the proxy. Unwrap must then give
// the file back byte for byte.
func TestMCPWrapClientsLoad(t *testing.T) {
	for _, tc := range []struct {
		client mcpwrap.Client
		bin    string
		file   func(w workspace) string
		config string // the original; ARGVLOG is replaced by the log path
		// expanded is the upstream command line the client must start.
		expanded func(w workspace) []string
		connects bool
	}{{
		client: mcpwrap.Claude, bin: "claude",
		file: func(w workspace) string { return filepath.Join(w.home, ".claude.json") },
		config: `{
  "hasCompletedOnboarding": true,
  "mcpServers": {
    "files": {
      "type": "stdio",
      "command": "mcp-server-filesystem",
      "args": ["${HOME}/data", "--read-only"],
      "env": {"TOOLGATE_ARGV_LOG": "ARGVLOG"}
    }
  }
}
`,
		expanded: func(w workspace) []string { return []string{"mcp-server-filesystem", w.home + "/data", "--read-only"} },
		connects: true,
	}, {
		client: mcpwrap.Gemini, bin: "gemini",
		file: func(w workspace) string { return filepath.Join(w.home, ".gemini", "settings.json") },
		config: `{
  // Gemini CLI reads settings.json with comments.
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "mcpServers": {
    "files": {
      "command": "mcp-server-filesystem",
      "args": ["$HOME/data", "--read-only"],
      "env": {"TOOLGATE_ARGV_LOG": "ARGVLOG"},
      "trust": false
    }
  }
}
`,
		expanded: func(w workspace) []string { return []string{"mcp-server-filesystem", w.home + "/data", "--read-only"} },
		connects: true,
	}, {
		client: mcpwrap.Codex, bin: "codex",
		file: func(w workspace) string { return filepath.Join(w.home, ".codex", "config.toml") },
		config: `# Codex: comments survive
[mcp_servers.files]
command = "mcp-server-filesystem"   # the server
args = ["$HOME/data", "--read-only"]
env = { TOOLGATE_ARGV_LOG = "ARGVLOG" }
`,
		// Codex expands nothing.
		expanded: func(w workspace) []string { return []string{"mcp-server-filesystem", "$HOME/data", "--read-only"} },
	}} {
		t.Run(string(tc.client), func(t *testing.T) {
			bin := agentBin(t, tc.bin)
			w := newWorkspace(t, scenario{noHook: true})
			stand := filepath.Join(w.tmp, "bin", "toolgate")
			writeFile(t, stand, "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$TOOLGATE_ARGV_LOG.$$\"\nexit 1\n")
			if err := os.Chmod(stand, 0o755); err != nil {
				t.Fatal(err)
			}
			argvLog := filepath.Join(w.tmp, "argv")
			path := tc.file(w)
			orig := strings.ReplaceAll(tc.config, "ARGVLOG", argvLog)
			writeFile(t, path, orig)
			if tc.client == mcpwrap.Gemini {
				writeFile(t, filepath.Join(w.home, ".gemini", "trustedFolders.json"), `{`+jsonString(w.project)+`: "TRUST_FOLDER"}`)
			}
			res, err := mcpwrap.Wrap(tc.client, path, &mcpwrap.Options{Command: stand}, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			wrapped, _ := os.ReadFile(path)
			t.Logf("wrapped %s:\n%s", path, wrapped)
			if len(res.Entries) != 1 || res.Entries[0].Action != mcpwrap.Wrapped {
				t.Fatalf("entries %v", res.Entries)
			}
			env := append(baseEnv(w), "GEMINI_API_KEY=fake", "CODEX_HOME="+filepath.Join(w.home, ".codex"),
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
			want := append([]string{"mcp", "--upstream-name=files", "--"}, tc.expanded(w)...)
			r := runAgentFor(t, 90*time.Second, w, env, bin, "mcp", "list")
			if r.err != nil {
				logRun(t, r)
				t.Fatalf("%s mcp list: %v", tc.bin, r.err)
			}
			out := r.stdout + r.stderr
			if !strings.Contains(out, "files") || !strings.Contains(out, "--upstream-name=files") {
				logRun(t, r)
				t.Fatalf("%s mcp list does not list the wrapped server", tc.bin)
			}
			if tc.connects {
				logs, _ := filepath.Glob(argvLog + ".*")
				if len(logs) == 0 {
					logRun(t, r)
					t.Fatalf("%s did not start the wrapped command", tc.bin)
				}
				b, err := os.ReadFile(logs[0])
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); !slices.Equal(got, want) {
					t.Fatalf("%s started toolgate with %q, want %q", tc.bin, got, want)
				}
			} else {
				// Codex's list does not start servers: read its view.
				r := runAgentFor(t, 90*time.Second, w, env, bin, "mcp", "list", "--json")
				var list []struct {
					Name      string
					Transport struct {
						Command string
						Args    []string
					}
				}
				if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
					logRun(t, r)
					t.Fatalf("codex mcp list --json: %v", err)
				}
				if list[0].Name != "files" || list[0].Transport.Command != stand || !slices.Equal(list[0].Transport.Args, want) {
					t.Fatalf("codex reads %+v", list[0])
				}
			}
			un, err := mcpwrap.Unwrap(tc.client, path, nil, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(un.Entries) != 1 || un.Entries[0].Action != mcpwrap.Restored {
				t.Fatalf("unwrap: %v", un.Entries)
			}
			now, _ := os.ReadFile(path)
			if !un.Identical {
				// The client may have rewritten its own file meanwhile
				// (Claude Code records start-ups in ~/.claude.json): then
				// only the entry must be back.
				t.Logf("the file changed meanwhile; checking the entry only")
				if strings.Contains(string(now), "--upstream-name") || !strings.Contains(string(now), `"mcp-server-filesystem"`) {
					t.Fatalf("unwrap left:\n%s", now)
				}
			} else if string(now) != orig {
				t.Fatalf("unwrap reports identical, but the file is\n%s", now)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestMCPWrapThroughProxy runs the whole chain with real programs: the
// toolgate CLI wraps a real MCP server (@modelcontextprotocol/server-
// filesystem) in Claude Code's and Gemini CLI's user configuration, and
// each client's "mcp list" connects to it through the real toolgate proxy.
// It needs the agents (TOOLGATE_E2E_DIR) and the MCP servers
// (TOOLGATE_MCP_DIR, installed by .ci/mcp-install).
func TestMCPWrapThroughProxy(t *testing.T) {
	mcpDir := os.Getenv("TOOLGATE_MCP_DIR")
	if mcpDir == "" {
		skip(t, "TOOLGATE_MCP_DIR is not set: install the MCP servers with `bash .ci/mcp-install [DIR]` and run with TOOLGATE_MCP_DIR=DIR")
	}
	server := filepath.Join(mcpDir, "node_modules", ".bin", "mcp-server-filesystem")
	if _, err := os.Stat(server); err != nil {
		skip(t, "mcp-server-filesystem is not installed in TOOLGATE_MCP_DIR=%s (%v)", mcpDir, err)
	}
	for _, tc := range []struct {
		client, bin, file, config string
	}{
		{"claude", "claude", ".claude.json", `{"hasCompletedOnboarding": true, "mcpServers": {"files": {"type": "stdio", "command": SERVER, "args": ["${HOME}"]}}}`},
		{"gemini", "gemini", ".gemini/settings.json", `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "mcpServers": {"files": {"command": SERVER, "args": ["$HOME"]}}}`},
	} {
		t.Run(tc.client, func(t *testing.T) {
			bin := agentBin(t, tc.bin)
			w := newWorkspace(t, scenario{noHook: true})
			path := filepath.Join(w.home, tc.file)
			orig := strings.Replace(tc.config, "SERVER", jsonString(server), 1)
			writeFile(t, path, orig)
			if tc.client == "gemini" {
				writeFile(t, filepath.Join(w.home, ".gemini", "trustedFolders.json"), `{`+jsonString(w.project)+`: "TRUST_FOLDER"}`)
			}
			env := append(baseEnv(w), "GEMINI_API_KEY=fake", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
			r := runAgentFor(t, 60*time.Second, w, env, hookBin, "mcp", "wrap", tc.client, "--user")
			if r.err != nil || !strings.Contains(r.stdout, "mcpServers.files: wrapped") {
				logRun(t, r)
				t.Fatalf("toolgate mcp wrap: %v", r.err)
			}
			r = runAgentFor(t, 90*time.Second, w, env, bin, "mcp", "list")
			out := r.stdout + r.stderr
			if r.err != nil || !strings.Contains(out, hookBin+" mcp --upstream-name=files -- "+server) || !strings.Contains(out, "Connected") {
				logRun(t, r)
				t.Fatalf("%s mcp list does not connect to the wrapped server: %v", tc.bin, r.err)
			}
			if strings.Contains(out, "Disconnected") || strings.Contains(out, "Failed") {
				logRun(t, r)
				t.Fatalf("%s mcp list reports a failed server", tc.bin)
			}
			r = runAgentFor(t, 60*time.Second, w, env, hookBin, "mcp", "unwrap", tc.client, "--user")
			if r.err != nil || !strings.Contains(r.stdout, "mcpServers.files: restored") {
				logRun(t, r)
				t.Fatalf("toolgate mcp unwrap: %v", r.err)
			}
			if now, _ := os.ReadFile(path); tc.client == "gemini" && string(now) != orig {
				t.Fatalf("unwrap left\n%s", now)
			}
		})
	}
}
