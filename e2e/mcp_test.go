package e2e

// End-to-end tests of "toolgate mcp", the MCP gateway, with real and
// unmodified programs on both sides: the MCP reference servers
// @modelcontextprotocol/server-filesystem, -everything and -memory
// (2026.8.31) behind the proxy, and the MCP Inspector CLI 2.12.0 and a
// client written with the TypeScript SDK 1.32.2 (with an elicitation
// handler) in front of it. They are installed by
//
//	bash .ci/mcp-install [DIR]        # DIR defaults to ~/.cache/toolgate-mcp
//
// and the tests run with TOOLGATE_MCP_DIR=DIR; without it they skip (fail
// under TOOLGATE_E2E_REQUIRED=1).
//
// Observed on the pinned versions: the Inspector CLI parses every option of
// the command line, including the server command's own (--config), so the
// proxy's flags are written in Go's one-dash form (-config=FILE) after the
// server command; it lists the tools before a tools/call and reports a tool
// the proxy hides as "not found" (exit 1) without calling it; a tool error
// (isError) exits 5. It declares no elicitation capability, so an ask through
// it is refused. Claude Code 2.1.332 (claude -p, --mcp-config) sends a
// numeric progress token with every tools/call, declares elicitation, and
// in a headless run cancels the proxy's approval request at once: the ask
// is denied as dismissed.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// envMCPDir names the environment variable holding the npm prefix of the
// MCP servers and clients.
const envMCPDir = "TOOLGATE_MCP_DIR"

var (
	mcpToolgateOnce sync.Once
	mcpToolgate     string
	mcpToolgateErr  error
)

// mcpEnv is what an MCP test needs: the npm prefix and the toolgate binary.
type mcpEnv struct {
	dir string // DIR/node_modules/.bin holds the programs
	tg  string // the toolgate binary
}

func (e mcpEnv) bin(name string) string { return filepath.Join(e.dir, "node_modules", ".bin", name) }

// needMCP returns the installed MCP programs, or skips the test (fails it
// under TOOLGATE_E2E_REQUIRED=1).
func needMCP(t *testing.T) mcpEnv {
	t.Helper()
	dir := os.Getenv(envMCPDir)
	if dir == "" {
		// .ci/mcp-install's default.
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".cache", "toolgate-mcp")
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
			skip(t, "%s is not set and %s holds no install: install the pinned MCP packages with `bash .ci/mcp-install [DIR]` and run with %s=DIR", envMCPDir, dir, envMCPDir)
		}
	}
	e := mcpEnv{dir: dir}
	for _, b := range []string{"mcp-server-filesystem", "mcp-server-everything", "mcp-server-memory", "mcp-inspector"} {
		if _, err := os.Stat(e.bin(b)); err != nil {
			skip(t, "%s is not installed in %s=%s (%v): run `bash .ci/mcp-install %s`", b, envMCPDir, dir, err, dir)
		}
	}
	var err error
	if hookBin != "" || hookBinErr != nil {
		e.tg, err = hookBin, hookBinErr
	} else {
		mcpToolgateOnce.Do(func() {
			d, err := os.MkdirTemp("", "toolgate-mcp-bin-")
			if err != nil {
				mcpToolgateErr = err
				return
			}
			mcpToolgate, mcpToolgateErr = buildHook(d)
		})
		e.tg, err = mcpToolgate, mcpToolgateErr
	}
	if err != nil {
		t.Fatalf("cannot build toolgate: %v", err)
	}
	return e
}

// inspect runs the Inspector CLI against a server command and returns its
// output (stdout and stderr) and exit code.
func inspect(t *testing.T, e mcpEnv, target []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	argv := append([]string{"--cli", "--format", "json", "-q"}, target...)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, e.bin("mcp-inspector"), argv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mcp-inspector: %v", err)
	}
	return out.String(), code
}

// fsPolicy is the policy of the filesystem tests.
const fsPolicy = `version: 1
default: deny
allow:
  - mcp__fs__read_text_file
  - mcp__fs__list_directory
  - mcp__fs__write_file
deny:
  - mcp__fs__write_file(path:*.txt)
ask:
  - mcp__fs__create_directory
`

func TestMCPFilesystemThroughProxy(t *testing.T) {
	t.Parallel()
	e := needMCP(t)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	writeFile(t, filepath.Join(ws, "notes.txt"), "original notes\n")
	writeFile(t, filepath.Join(root, "policy.yaml"), fsPolicy)
	auditLog := filepath.Join(root, "audit.jsonl")
	proxied := []string{e.tg, "mcp", "-config=" + filepath.Join(root, "policy.yaml"), "-audit=" + auditLog,
		"-upstream-name=fs", e.bin("mcp-server-filesystem"), ws}
	direct := []string{e.bin("mcp-server-filesystem"), ws}

	tests := []struct {
		name     string
		target   []string
		args     []string
		wantCode int
		want     []string // all in the output
		check    func(t *testing.T)
	}{
		{name: "list filtered", target: proxied, args: []string{"--method", "tools/list"},
			want: []string{`"read_text_file"`, `"write_file"`, `"create_directory"`},
			check: func(t *testing.T) {
				out, _ := inspect(t, e, proxied, "--method", "tools/list")
				for _, hidden := range []string{`"move_file"`, `"edit_file"`, `"search_files"`} {
					if strings.Contains(out, `"name":`+hidden) {
						t.Errorf("tools/list through the proxy shows %s, which the policy hides", hidden)
					}
				}
			}},
		{name: "allowed read returns the file", target: proxied,
			args: []string{"--method", "tools/call", "--tool-name", "read_text_file", "--tool-arg", "path=" + filepath.Join(ws, "notes.txt")},
			want: []string{"original notes"}},
		{name: "denied write leaves the file unchanged", target: proxied,
			args:     []string{"--method", "tools/call", "--tool-name", "write_file", "--tool-arg", "path=" + filepath.Join(ws, "notes.txt"), "content=overwritten"},
			wantCode: 5, want: []string{"toolgate denied the call", `deny rule \"mcp__fs__write_file(path:*.txt)\"`, "policy.yaml:8:5"},
			check: func(t *testing.T) {
				if got := readFile(t, filepath.Join(ws, "notes.txt")); got != "original notes\n" {
					t.Errorf("notes.txt after the denied write: %q", got)
				}
			}},
		{name: "allowed write runs", target: proxied,
			args: []string{"--method", "tools/call", "--tool-name", "write_file", "--tool-arg", "path=" + filepath.Join(ws, "plan.md"), "content=the plan"},
			want: []string{"Successfully wrote"},
			check: func(t *testing.T) {
				if got := readFile(t, filepath.Join(ws, "plan.md")); got != "the plan" {
					t.Errorf("plan.md = %q", got)
				}
			}},
		{name: "ask through a client that cannot be asked", target: proxied,
			args:     []string{"--method", "tools/call", "--tool-name", "create_directory", "--tool-arg", "path=" + filepath.Join(ws, "newdir")},
			wantCode: 5, want: []string{"cannot be asked", "elicitation capability", `ask rule \"mcp__fs__create_directory\"`},
			check: func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(ws, "newdir")); err == nil {
					t.Error("the asked-about directory was created")
				}
			}},
		{name: "hidden tool cannot be called", target: proxied,
			args:     []string{"--method", "tools/call", "--tool-name", "move_file", "--tool-arg", "source=" + filepath.Join(ws, "notes.txt"), "destination=" + filepath.Join(ws, "moved.txt")},
			wantCode: -1, want: []string{"move_file"},
			check: func(t *testing.T) {
				if _, err := os.Stat(filepath.Join(ws, "moved.txt")); err == nil {
					t.Error("a hidden tool moved the file")
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, code := inspect(t, e, tc.target, tc.args...)
			if (tc.wantCode == -1 && code == 0) || (tc.wantCode != -1 && code != tc.wantCode) {
				t.Fatalf("mcp-inspector exited %d, want %d; output:\n%s", code, tc.wantCode, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}

	// The control: the same write straight to the server does overwrite the
	// file, so the denial above was the proxy's doing.
	t.Run("control without the proxy", func(t *testing.T) {
		out, code := inspect(t, e, direct, "--method", "tools/call", "--tool-name", "write_file",
			"--tool-arg", "path="+filepath.Join(ws, "notes.txt"), "content=overwritten")
		if code != 0 || readFile(t, filepath.Join(ws, "notes.txt")) != "overwritten" {
			t.Errorf("direct write: exit %d, notes.txt %q\n%s", code, readFile(t, filepath.Join(ws, "notes.txt")), out)
		}
	})

	t.Run("audit", func(t *testing.T) {
		data := readFile(t, auditLog)
		outcomes := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
			var ev struct {
				Tool        string `json:"tool"`
				Outcome     string `json:"outcome"`
				InputDigest string `json:"input_digest"`
				Server      string `json:"server"`
				Latency     int64  `json:"latency_ns"`
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("audit line %q: %v", line, err)
			}
			if !strings.HasPrefix(ev.Tool, "mcp__fs__") || ev.InputDigest == "" {
				t.Errorf("audit event without server-qualified tool or digest: %s", line)
			}
			if ev.Server != "fs" || ev.Latency <= 0 {
				t.Errorf("audit event does not name the server and the call's latency: %s", line)
			}
			outcomes[ev.Outcome]++
		}
		// read, allowed write: allow; denied write, the ask: deny.
		if outcomes["allow"] != 2 || outcomes["deny"] != 2 {
			t.Errorf("audit outcomes = %v, want 2 allow and 2 deny", outcomes)
		}
	})
}

// serversFile is a Claude Code style servers file with two upstreams.
func serversFile(e mcpEnv, ws string) string {
	return fmt.Sprintf(`{"mcpServers": {
  "fs": {"command": %q, "args": [%q]},
  "memory": {"command": %q, "env": {"MEMORY_FILE_PATH": %q}}
}}`, e.bin("mcp-server-filesystem"), ws, e.bin("mcp-server-memory"), filepath.Join(ws, "..", "memory.jsonl"))
}

func TestMCPSeveralServersAndPinning(t *testing.T) {
	t.Parallel()
	e := needMCP(t)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	writeFile(t, filepath.Join(ws, "notes.txt"), "notes\n")
	writeFile(t, filepath.Join(root, "servers.json"), serversFile(e, ws))
	writeFile(t, filepath.Join(root, "policy.yaml"), `version: 1
default: deny
allow: ["mcp__fs__read_text_file", "mcp__memory__read_graph", "mcp__memory__create_entities"]
`)
	proxy := func(extra ...string) []string {
		return append([]string{e.tg, "mcp", "-config=" + filepath.Join(root, "policy.yaml"), "-servers=" + filepath.Join(root, "servers.json")}, extra...)
	}
	out, code := inspect(t, e, proxy(), "--method", "tools/list")
	for _, w := range []string{`"mcp__fs__read_text_file"`, `"mcp__memory__read_graph"`, `"mcp__memory__create_entities"`} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("tools/list of two servers lacks %s (exit %d):\n%.2000s", w, code, out)
		}
	}
	if strings.Contains(out, `"mcp__memory__delete_entities"`) || strings.Contains(out, `"mcp__fs__write_file"`) {
		t.Errorf("tools/list shows tools the policy hides:\n%.2000s", out)
	}
	out, code = inspect(t, e, proxy(), "--method", "tools/call", "--tool-name", "mcp__fs__read_text_file", "--tool-arg", "path="+filepath.Join(ws, "notes.txt"))
	if code != 0 || !strings.Contains(out, "notes") {
		t.Errorf("read through the fs server: exit %d\n%s", code, out)
	}

	// Pin the definitions, then tamper with one pin: the proxy, enforcing,
	// hides that tool and only that one.
	lockOut, err := exec.Command(e.tg, "mcp", "lock", "--servers", filepath.Join(root, "servers.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("toolgate mcp lock: %v\n%s", err, lockOut)
	}
	lockPath := filepath.Join(root, "toolgate-mcp.lock")
	if !strings.Contains(string(lockOut), "fs: ") || !strings.Contains(string(lockOut), "memory: ") {
		t.Errorf("lock output: %s", lockOut)
	}
	var lock struct {
		Version int                          `json:"version"`
		Servers map[string]map[string]string `json:"servers"`
	}
	if err := json.Unmarshal([]byte(readFile(t, lockPath)), &lock); err != nil {
		t.Fatal(err)
	}
	if lock.Servers["fs"]["read_text_file"] == "" {
		t.Fatalf("the lock does not pin fs/read_text_file: %+v", lock)
	}
	out, code = inspect(t, e, proxy("-pin=enforce"), "--method", "tools/list")
	if code != 0 || !strings.Contains(out, `"mcp__fs__read_text_file"`) {
		t.Fatalf("after locking, the pinned tool is not listed (exit %d):\n%.1500s", code, out)
	}
	lock.Servers["fs"]["read_text_file"] = "sha256:" + strings.Repeat("0", 64)
	b, _ := json.Marshal(lock)
	writeFile(t, lockPath, string(b))
	out, code = inspect(t, e, proxy("-pin=enforce"), "--method", "tools/list")
	if code != 0 || strings.Contains(out, `"mcp__fs__read_text_file"`) || !strings.Contains(out, `"mcp__memory__read_graph"`) {
		t.Errorf("with a changed pin, tools/list (exit %d) must drop read_text_file and keep the others:\n%.1500s", code, out)
	}
	// The same under --pin=warn: shown.
	out, _ = inspect(t, e, proxy("-pin=warn"), "--method", "tools/list")
	if !strings.Contains(out, `"mcp__fs__read_text_file"`) {
		t.Errorf("pin warn hides the tool:\n%.1500s", out)
	}
}

// TestMCPServersFromConfig runs the servers that the policy's own mcp
// section declares: no servers file, no flags naming them.
func TestMCPServersFromConfig(t *testing.T) {
	t.Parallel()
	e := needMCP(t)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	writeFile(t, filepath.Join(ws, "notes.txt"), "notes from the config\n")
	policy := fmt.Sprintf(`version: 1
default: deny
allow: ["mcp__fs__read_text_file", "mcp__memory__read_graph"]
deny: ["mcp__fs__read_text_file(path:*secret*)"]
mcp:
  servers:
    fs:
      command: [%q, %q]
    memory:
      command: %q
      env: {MEMORY_FILE_PATH: %q}
`, e.bin("mcp-server-filesystem"), ws, e.bin("mcp-server-memory"), filepath.Join(root, "memory.jsonl"))
	writeFile(t, filepath.Join(root, "policy.yaml"), policy)
	writeFile(t, filepath.Join(ws, "secret.txt"), "do not show\n")
	lockPath := filepath.Join(root, "servers.lock")
	proxy := []string{e.tg, "mcp", "-config=" + filepath.Join(root, "policy.yaml"), "-lock=" + lockPath}

	out, code := inspect(t, e, proxy, "--method", "tools/list")
	for _, w := range []string{`"mcp__fs__read_text_file"`, `"mcp__memory__read_graph"`} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("tools/list of the configured servers lacks %s (exit %d):\n%.2000s", w, code, out)
		}
	}
	if strings.Contains(out, `"mcp__fs__write_file"`) {
		t.Errorf("tools/list shows a tool the policy hides:\n%.2000s", out)
	}
	out, code = inspect(t, e, proxy, "--method", "tools/call", "--tool-name", "mcp__fs__read_text_file", "--tool-arg", "path="+filepath.Join(ws, "notes.txt"))
	if code != 0 || !strings.Contains(out, "notes from the config") {
		t.Errorf("read through the configured fs server: exit %d\n%s", code, out)
	}
	out, _ = inspect(t, e, proxy, "--method", "tools/call", "--tool-name", "mcp__fs__read_text_file", "--tool-arg", "path="+filepath.Join(ws, "secret.txt"))
	if strings.Contains(out, "do not show") || !strings.Contains(out, "policy.yaml:4:9") {
		t.Errorf("a denied read through the configured server: want the deny rule's position and no content:\n%s", out)
	}

	// toolgate mcp lock reads the same section.
	lockOut, err := exec.Command(proxy[0], "mcp", "lock", "-config="+filepath.Join(root, "policy.yaml"), "-lock="+lockPath).CombinedOutput()
	if err != nil {
		t.Fatalf("toolgate mcp lock: %v\n%s", err, lockOut)
	}
	if !strings.Contains(string(lockOut), "fs: ") || !strings.Contains(string(lockOut), "memory: ") {
		t.Errorf("lock output names not both configured servers: %s", lockOut)
	}
	out, code = inspect(t, e, append(proxy, "-pin=enforce"), "--method", "tools/list")
	if code != 0 || !strings.Contains(out, `"mcp__fs__read_text_file"`) {
		t.Errorf("after locking the configured servers, the pinned tool is not listed (exit %d):\n%.1500s", code, out)
	}
}

// freePort returns a free loopback port.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestMCPHTTPWithBearerToken(t *testing.T) {
	t.Parallel()
	e := needMCP(t)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	writeFile(t, filepath.Join(ws, "notes.txt"), "http notes\n")
	writeFile(t, filepath.Join(root, "policy.yaml"), fsPolicy)
	token := "0123456789abcdef0123456789abcdef"
	writeFile(t, filepath.Join(root, "token"), token+"\n")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(e.tg, "mcp", "--config", filepath.Join(root, "policy.yaml"), "--listen", addr,
		"--token-file", filepath.Join(root, "token"), "--upstream-name", "fs", "--", e.bin("mcp-server-filesystem"), ws)
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the proxy did not listen on %s:\n%s", addr, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	url := "http://" + addr + "/"
	out, code := inspect(t, e, []string{url}, "--transport", "http", "--header", "Authorization: Bearer "+token,
		"--method", "tools/call", "--tool-name", "read_text_file", "--tool-arg", "path="+filepath.Join(ws, "notes.txt"))
	if code != 0 || !strings.Contains(out, "http notes") {
		t.Errorf("read over HTTP with the token: exit %d\n%s\nproxy log:\n%s", code, out, logs.String())
	}
	out, code = inspect(t, e, []string{url}, "--transport", "http", "--header", "Authorization: Bearer wrong-token-wrong-token",
		"--method", "tools/list")
	if code == 0 || strings.Contains(out, "read_text_file") {
		t.Errorf("with a wrong token: exit %d, want a failure\n%s", code, out)
	}
}

// elicitClient is a TypeScript SDK client with an elicitation handler: it
// calls one tool through the server command given after the tool's name
// and arguments, answering every elicitation with ANSWER (a JSON
// ElicitResult), and prints the tool result as JSON.
const elicitClient = `
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema } = require("@modelcontextprotocol/sdk/types.js");
const [tool, args, answer, command, ...cmdArgs] = process.argv.slice(2);
(async () => {
  const client = new Client({ name: "elicit-client", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => { asked.push(req.params.message); return JSON.parse(answer); });
  await client.connect(new StdioClientTransport({ command, args: cmdArgs, stderr: "inherit" }));
  const res = await client.callTool({ name: tool, arguments: JSON.parse(args) });
  console.log(JSON.stringify({ result: res, asked }));
  await client.close();
})().catch((e) => { console.log(JSON.stringify({ error: String(e) })); process.exit(3); });
`

func TestMCPElicitationWithTypeScriptClient(t *testing.T) {
	t.Parallel()
	e := needMCP(t)
	node, err := exec.LookPath("node")
	if err != nil {
		skip(t, "node is not installed: %v", err)
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	writeFile(t, filepath.Join(ws, "keep.md"), "x")
	writeFile(t, filepath.Join(root, "client.cjs"), elicitClient)
	writeFile(t, filepath.Join(root, "policy.yaml"), fsPolicy)
	run := func(tool, args, answer string, server ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		argv := append([]string{filepath.Join(root, "client.cjs"), tool, args, answer}, server...)
		cmd := exec.CommandContext(ctx, node, argv...)
		cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(e.dir, "node_modules"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.Output()
		var res map[string]any
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if json.Unmarshal(sc.Bytes(), &res) == nil {
				break
			}
		}
		if res == nil {
			t.Fatalf("the client printed no result:\n%s\nstderr:\n%s", out, stderr.String())
		}
		return res
	}
	proxied := func(srv ...string) []string {
		return append([]string{e.tg, "mcp", "--config", filepath.Join(root, "policy.yaml"), "--upstream-name", "fs", "--"}, srv...)
	}
	fsServer := []string{e.bin("mcp-server-filesystem"), ws}
	approve := `{"action":"accept","content":{"approve":true}}`
	newDir := filepath.Join(ws, "approved")
	res := run("create_directory", fmt.Sprintf(`{"path":%q}`, newDir), approve, proxied(fsServer...)...)
	if asked := fmt.Sprint(res["asked"]); !strings.Contains(asked, "create_directory") {
		t.Errorf("the person was not asked about create_directory: %v", res)
	}
	if _, err := os.Stat(newDir); err != nil {
		t.Errorf("approved create_directory did not run: %v (%v)", err, res)
	}
	declined := filepath.Join(ws, "declined")
	res = run("create_directory", fmt.Sprintf(`{"path":%q}`, declined), `{"action":"decline"}`, proxied(fsServer...)...)
	if _, err := os.Stat(declined); err == nil || !strings.Contains(fmt.Sprint(res), "the person declined") {
		t.Errorf("declined create_directory: dir exists=%v, result %v", err == nil, res)
	}

	// An upstream's own elicitation (server-everything's trigger tool)
	// reaches the person through the proxy, naming the server.
	everything := []string{e.tg, "mcp", "--config", filepath.Join(root, "every.yaml"), "--upstream-name", "every", "--", e.bin("mcp-server-everything"), "stdio"}
	writeFile(t, filepath.Join(root, "every.yaml"), "version: 1\ndefault: deny\nallow: [\"mcp__every__*\"]\n")
	list, _ := inspect(t, e, []string{e.tg, "mcp", "-config=" + filepath.Join(root, "every.yaml"), "-upstream-name=every",
		e.bin("mcp-server-everything"), "stdio"}, "--method", "tools/list")
	tool := ""
	for _, name := range []string{"trigger-elicitation-request", "startElicitation", "elicitation"} {
		if strings.Contains(list, `"name":"`+name+`"`) {
			tool = name
			break
		}
	}
	if tool == "" {
		t.Fatalf("server-everything offers no elicitation tool through the proxy:\n%.3000s", list)
	}
	res = run(tool, `{}`, `{"action":"decline"}`, everything...)
	if asked := fmt.Sprint(res["asked"]); !strings.Contains(asked, `MCP server "every" asks`) {
		t.Errorf("the upstream's elicitation was not relayed with the server's name: %v", res)
	}
}

// readFile returns a file's content, or "" when it cannot be read.
func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	return string(b)
}

// TestMCPClaudeCodeThroughProxy has Claude Code 2.1.332, driven by the
// scripted model, call the filesystem server's tools through the proxy,
// given to it with --mcp-config. Claude's own permission checks are off
// (bypassPermissions), so the proxy is the only gate.
func TestMCPClaudeCodeThroughProxy(t *testing.T) {
	t.Parallel()
	e := needMCP(t)
	claude := agentBin(t, "claude")
	cases := []struct {
		name   string
		tool   string
		input  func(ws string) map[string]string
		result []string // all in one tool result the model receives
		check  func(t *testing.T, ws string)
	}{
		{name: "allowed read returns the file", tool: "mcp__fs__read_text_file",
			input:  func(ws string) map[string]string { return map[string]string{"path": filepath.Join(ws, "notes.txt")} },
			result: []string{"is_error=false", "original notes"}},
		{name: "denied write leaves the file unchanged", tool: "mcp__fs__write_file",
			input: func(ws string) map[string]string {
				return map[string]string{"path": filepath.Join(ws, "notes.txt"), "content": "overwritten by the model"}
			},
			result: []string{"is_error=true", "toolgate denied the call", `deny rule "mcp__fs__write_file(path:*.txt)"`},
			check: func(t *testing.T, ws string) {
				if got := readFile(t, filepath.Join(ws, "notes.txt")); got != "original notes\n" {
					t.Errorf("notes.txt after the denied write: %q", got)
				}
			}},
		{name: "ask is refused", tool: "mcp__fs__create_directory",
			input:  func(ws string) map[string]string { return map[string]string{"path": filepath.Join(ws, "newdir")} },
			result: []string{"is_error=true", `ask rule "mcp__fs__create_directory"`},
			check: func(t *testing.T, ws string) {
				if _, err := os.Stat(filepath.Join(ws, "newdir")); err == nil {
					t.Error("the asked-about directory was created")
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorkspace(t, scenario{noHook: true})
			ws := filepath.Join(w.project, "ws")
			writeFile(t, filepath.Join(ws, "notes.txt"), "original notes\n")
			policy := filepath.Join(w.home, "policy.yaml")
			writeFile(t, policy, fsPolicy)
			mcpConfig := filepath.Join(w.home, "mcp.json")
			cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"fs": map[string]any{
				"command": e.tg,
				"args":    []string{"mcp", "--config", policy, "--upstream-name", "fs", "--", e.bin("mcp-server-filesystem"), ws},
			}}})
			writeFile(t, mcpConfig, string(cfg))
			rec := &recorder{}
			srv := httptest.NewServer(claudeMock(t, rec, tc.tool, tc.input(ws)))
			defer srv.Close()
			env := append(baseEnv(w),
				"ANTHROPIC_BASE_URL="+srv.URL,
				"ANTHROPIC_API_KEY=toolgate-e2e-fake-key",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
				"CLAUDE_CODE_MAX_RETRIES=0",
				"DISABLE_AUTOUPDATER=1",
				"ENABLE_TOOL_SEARCH=false",
			)
			if os.Geteuid() == 0 {
				env = append(env, "IS_SANDBOX=1")
			}
			r := runAgent(t, w, env, claude, "-p", "Use the tool.", "--output-format", "json",
				"--permission-mode", "bypassPermissions", "--mcp-config", mcpConfig, "--strict-mcp-config")
			_, results := rec.snapshot()
			t.Logf("tool results the model received: %q", results)
			found := false
			for _, res := range results {
				found = found || containsAll(res, tc.result)
			}
			if !found {
				t.Errorf("no tool result holds %q; results: %q", tc.result, results)
				logRun(t, r)
			}
			if tc.check != nil {
				tc.check(t, ws)
			}
		})
	}
}
