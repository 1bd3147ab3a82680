package e2e

// Codex CLI 0.171.0 and Gemini CLI 0.61.0 as MCP clients of "toolgate mcp",
// each driven by a scripted model, calling the real
// @modelcontextprotocol/server-filesystem through the proxy. The client's
// configuration is written with the server started directly — the control
// runs use it as it is — and then put behind the proxy by "toolgate mcp wrap
// CLIENT", as a user would.
//
// Observed on the pinned versions:
//
//   - Codex offers a server's tools to the model as one Responses API tool
//     of type "namespace" named mcp__<server>, holding a function per tool
//     under the tool's own name; the model calls one with a function_call
//     carrying "namespace": "mcp__fs" and "name": "read_text_file". A
//     function_call named "mcp__fs__read_text_file" without a namespace is
//     answered "unsupported call". Through the proxy the namespace holds
//     only the tools the policy shows; its description is the proxy's
//     server instructions ("Tools of the MCP server \"fs\", each call checked
//     by toolgate's policy.") where the server started directly gets Codex's
//     own "Tools in the mcp__fs namespace.".
//   - Without "required = true" in [mcp_servers.fs], codex exec does not wait
//     for the server: in about half the runs the first model request came
//     without the namespace, the scripted call was answered "unsupported
//     call: mcp__fsread_text_file", and the run took 4–7 s instead of ~2 s
//     (sequential runs without -race; Gemini CLI runs take 4–9 s).
//   - A tool result with isError reaches the model as the function_call_output
//     text (the item's status is "failed"); a successful one as
//     "Wall time: … Output:" and the structured content.
//   - Codex declares the elicitation capability (form and url), and codex
//     exec — here with --dangerously-bypass-approvals-and-sandbox — declines
//     the proxy's elicitation at once: the ask is denied as "the person
//     declined", and nothing runs.
//   - Gemini CLI names an MCP tool mcp_<server>_<tool> (single underscores)
//     for the model. A tool error reaches the model as the functionResponse
//     {"error": "MCP tool 'write_file' reported tool error … with response:
//     [… toolgate's reason …]"}; a result as {"output": "<untrusted_context>
//     … </untrusted_context>"}.
//   - Gemini CLI declares no elicitation capability: an ask is denied with
//     toolgate's "this MCP client cannot be asked". So neither client can
//     approve a call offline; that path is tested with the TypeScript SDK
//     client in mcp_test.go.
//   - A hidden tool never reaches the proxy: both clients refuse the call
//     themselves, since the tool was never listed.
//   - Gemini CLI declares the roots capability (Codex does not). Started
//     directly, server-filesystem then serves the client's roots (the
//     project folder) instead of the directories on its command line; behind
//     the proxy, which does not relay roots, it serves its command line. The
//     served directory here is inside the project, so both agree.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// mcpCall is one tool call a scripted model makes through a real MCP client
// of the server "fs" (server-filesystem serving the directory WS).
type mcpCall struct {
	name   string
	tool   string         // the filesystem server's own tool name
	args   map[string]any // "WS" in a string value is the served directory
	direct bool           // the control: the server runs without the proxy
	// want are texts that must all be in one tool result the model
	// receives; "POLICY" is the policy file's path.
	want []string
	// clientWant are more such texts for one client ("codex", "gemini").
	clientWant map[string][]string
	// outcome is the proxy's audit outcome for the call, "" for no event.
	outcome string
	check   func(t *testing.T, ws string)
}

// mcpNotes is WS/notes.txt before the run.
const mcpNotes = "original notes\n"

// mcpCalls are the runs each client makes (fsPolicy decides them).
func mcpCalls() []mcpCall {
	notesAre := func(want string) func(t *testing.T, ws string) {
		return func(t *testing.T, ws string) {
			t.Helper()
			if got := readFile(t, filepath.Join(ws, "notes.txt")); got != want {
				t.Errorf("notes.txt is %q, want %q", got, want)
			}
		}
	}
	moved := func(want bool) func(t *testing.T, ws string) {
		return func(t *testing.T, ws string) {
			t.Helper()
			from, to := filepath.Join(ws, "notes.txt"), filepath.Join(ws, "moved.txt")
			if want {
				from, to = to, from
			}
			if got := readFile(t, from); got != mcpNotes {
				t.Errorf("%s is %q, want %q", from, got, mcpNotes)
			}
			if _, err := os.Stat(to); err == nil {
				t.Errorf("%s exists", to)
			}
		}
	}
	write := map[string]any{"path": "WS/notes.txt", "content": "overwritten by the model"}
	move := map[string]any{"source": "WS/notes.txt", "destination": "WS/moved.txt"}
	return []mcpCall{
		{name: "allowed read returns the file", tool: "read_text_file", args: map[string]any{"path": "WS/notes.txt"},
			want: []string{"original notes"}, outcome: "allow"},
		{name: "denied write leaves the file", tool: "write_file", args: write,
			want:    []string{"toolgate denied the call", `deny rule "mcp__fs__write_file(path:*.txt)"`, "POLICY:8:5"},
			outcome: "deny", check: notesAre(mcpNotes)},
		{name: "ask is refused", tool: "create_directory", args: map[string]any{"path": "WS/newdir"},
			want: []string{"toolgate denied the call", `ask rule "mcp__fs__create_directory"`, "POLICY:10:5"},
			clientWant: map[string][]string{
				"codex":  {"the person declined"},
				"gemini": {"this MCP client cannot be asked"},
			},
			outcome: "deny",
			check: func(t *testing.T, ws string) {
				if _, err := os.Stat(filepath.Join(ws, "newdir")); err == nil {
					t.Error("SAFETY: the asked-about directory was created")
				}
			}},
		{name: "hidden tool is not called", tool: "move_file", args: move, check: moved(false),
			clientWant: map[string][]string{
				"codex":  {"unsupported call: mcp__fsmove_file"},
				"gemini": {`Tool "mcp_fs_move_file" not found`},
			}},
		{name: "control write without the proxy", tool: "write_file", args: write, direct: true,
			want: []string{"Successfully wrote"}, check: notesAre("overwritten by the model")},
		{name: "control move without the proxy", tool: "move_file", args: move, direct: true,
			want: []string{"Successfully moved"}, check: moved(true)},
	}
}

// mcpRun is one client run's fixture: the served directory, the policy,
// the proxy's audit log, and the command lines of the server.
type mcpRun struct {
	w                 workspace
	ws, policy, audit string
	server            []string // the upstream server, started directly
}

func newMCPRun(t *testing.T, e mcpEnv) *mcpRun {
	t.Helper()
	w := newWorkspace(t, scenario{noHook: true})
	r := &mcpRun{w: w, ws: filepath.Join(w.project, "ws"),
		policy: filepath.Join(w.home, "policy.yaml"), audit: filepath.Join(w.home, "audit.jsonl")}
	writeFile(t, filepath.Join(r.ws, "notes.txt"), mcpNotes)
	writeFile(t, r.policy, fsPolicy)
	r.server = []string{e.bin("mcp-server-filesystem"), r.ws}
	return r
}

// args is the call's arguments with WS replaced.
func (r *mcpRun) args(c mcpCall) map[string]any {
	out := map[string]any{}
	for k, v := range c.args {
		if s, ok := v.(string); ok {
			v = strings.ReplaceAll(s, "WS", r.ws)
		}
		out[k] = v
	}
	return out
}

// wrap puts the client's configuration file behind the proxy with
// "toolgate mcp wrap", the proxy reading the run's policy and writing its
// audit log, and checks that the file now starts toolgate.
func (r *mcpRun) wrap(t *testing.T, e mcpEnv, client, file string, env []string) {
	t.Helper()
	res := runAgentFor(t, runTimeout, r.w, env, e.tg, "mcp", "wrap", client, "--file", file,
		"--proxy-arg=--config="+r.policy, "--proxy-arg=--audit="+r.audit)
	// It reports "mcpServers.fs: wrapped" (Gemini), "[mcp_servers.fs]: wrapped" (Codex).
	if res.err != nil || !strings.Contains(res.stdout, "fs: wrapped") && !strings.Contains(res.stdout, "fs]: wrapped") {
		logRun(t, res)
		t.Fatalf("toolgate mcp wrap %s: %v", client, res.err)
	}
	if b := readFile(t, file); !strings.Contains(b, e.tg) || !strings.Contains(b, "--upstream-name=fs") {
		t.Fatalf("the wrapped %s does not start the proxy:\n%s", file, b)
	}
}

// checkCall asserts a call's outcome: the model received a tool result
// holding every wanted text, the files on disk, and the proxy's audit log.
func (r *mcpRun) checkCall(t *testing.T, client string, c mcpCall, results []string) {
	t.Helper()
	for i, res := range results {
		t.Logf("tool result %d the model received: %s", i, clip(res, 2000))
	}
	want := append(slices.Clone(c.want), c.clientWant[client]...)
	for i := range want {
		want[i] = strings.ReplaceAll(want[i], "POLICY", r.policy)
	}
	if len(results) == 0 {
		t.Errorf("the model received no tool result: the call of %s was never made or never answered", c.tool)
	} else if !slices.ContainsFunc(results, func(s string) bool { return containsAll(unescapeQuotes(s), want) }) {
		t.Errorf("no tool result the model received holds all of %q", want)
	}
	if c.check != nil {
		c.check(t, r.ws)
	}
	if c.direct {
		return
	}
	var outcomes []string
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, r.audit)), "\n") {
		if line == "" {
			continue
		}
		var ev struct{ Tool, Server, Outcome string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if ev.Tool != "mcp__fs__"+c.tool || ev.Server != "fs" {
			t.Errorf("audit event for another tool or server: %s", line)
		}
		outcomes = append(outcomes, ev.Outcome)
	}
	var wantOutcomes []string
	if c.outcome != "" {
		wantOutcomes = []string{c.outcome}
	}
	if !slices.Equal(outcomes, wantOutcomes) {
		t.Errorf("the proxy's audit outcomes are %q, want %q", outcomes, wantOutcomes)
	}
}

// unescapeQuotes turns \" into ": Gemini CLI quotes the server's result as
// JSON inside its error text, so the quotes around a rule arrive escaped.
func unescapeQuotes(s string) string {
	return strings.ReplaceAll(s, `\"`, `"`)
}

// mcpClient makes one run of a client: the model calls c's tool, and the
// tool results the model received are returned. e.tg is the proxy, bin the
// client.
type mcpClient func(t *testing.T, e mcpEnv, bin string, r *mcpRun, c mcpCall) []string

// testMCPClient makes every run of mcpCalls with the agent and checks each.
func testMCPClient(t *testing.T, agent string, run mcpClient) {
	t.Parallel()
	bin := agentBin(t, agent)
	e := needMCP(t)
	for _, c := range mcpCalls() {
		t.Run(c.name, func(t *testing.T) {
			r := newMCPRun(t, e)
			r.checkCall(t, agent, c, run(t, e, bin, r, c))
		})
	}
}

// TestMCPCodex has Codex CLI call the filesystem server's tools through the
// proxy, configured in $CODEX_HOME/config.toml, with Codex's own approvals
// and sandbox off so that the proxy is the only gate.
func TestMCPCodex(t *testing.T) {
	testMCPClient(t, "codex", func(t *testing.T, e mcpEnv, bin string, r *mcpRun, c mcpCall) []string {
		rec := &recorder{}
		args, _ := json.Marshal(r.args(c))
		ns := &codexNamespaces{}
		srv := httptest.NewServer(ns.handler(codexMock(t, rec, map[string]any{"type": "function_call", "id": "fc_e2e_1",
			"call_id": "call_e2e_1", "namespace": "mcp__fs", "name": c.tool, "arguments": string(args)})))
		t.Cleanup(srv.Close)
		codexHome := filepath.Join(r.w.home, ".codex")
		serverArgs, _ := json.Marshal(r.server[1:])
		config := filepath.Join(codexHome, "config.toml")
		// JSON strings and arrays of strings are TOML too. Without
		// required, codex exec may ask the model before the server is up.
		writeFile(t, config, codexMockConfig("e2e-mock", srv.URL)+fmt.Sprintf(`
[mcp_servers.fs]
command = %s
args = %s
required = true
`, jsonString(r.server[0]), serverArgs))
		env := append(baseEnv(r.w), "CODEX_HOME="+codexHome, "TOOLGATE_E2E_KEY=toolgate-e2e-fake-key")
		if !c.direct {
			r.wrap(t, e, "codex", config, env)
		}
		res := runAgent(t, r.w, env, bin, "exec", "--skip-git-repo-check",
			"--dangerously-bypass-approvals-and-sandbox", "--json", "Use the tool.")
		if res.err != nil {
			t.Errorf("codex: %v", res.err)
		}
		offered := ns.first("mcp__fs")
		t.Logf("the first model request offered mcp__fs %q", offered)
		if c.direct {
			if !slices.Contains(offered, "move_file") || !slices.Contains(offered, "write_file") {
				t.Errorf("the server started directly offers %q: want every tool, move_file and write_file among them", offered)
			}
		} else if want := []string{"create_directory", "list_directory", "read_text_file", "write_file"}; !slices.Equal(offered, want) {
			t.Errorf("through the proxy Codex offers mcp__fs %q, want exactly the tools the policy shows, %q", offered, want)
		}
		logOnFailure(t, res, config)
		_, results := rec.snapshot()
		return results
	})
}

// logOnFailure logs the run and the client's configuration file when the
// test has failed by its end.
func logOnFailure(t *testing.T, res runResult, config string) {
	t.Cleanup(func() {
		if t.Failed() {
			logRun(t, res)
			t.Logf("%s:\n%s", config, readFile(t, config))
		}
	})
}

// codexNamespaces records, for each request to the Codex mock, the tool
// names inside each "namespace" tool offered (Codex's MCP servers).
type codexNamespaces struct {
	mu       sync.Mutex
	requests []map[string][]string
}

// handler records the request's namespaces and passes it on to next.
func (n *codexNamespaces) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := readBody(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var msg struct {
			Tools []struct {
				Type, Name string
				Tools      []struct{ Name string }
			}
		}
		got := map[string][]string{}
		if json.Unmarshal(body, &msg) == nil {
			for _, tl := range msg.Tools {
				if tl.Type != "namespace" {
					continue
				}
				for _, sub := range tl.Tools {
					got[tl.Name] = append(got[tl.Name], sub.Name)
				}
				slices.Sort(got[tl.Name])
			}
		}
		n.mu.Lock()
		n.requests = append(n.requests, got)
		n.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, req)
	})
}

// first returns the tools of namespace name in the first request.
func (n *codexNamespaces) first(name string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.requests) == 0 {
		return nil
	}
	return n.requests[0][name]
}

// TestMCPGemini has Gemini CLI call the filesystem server's tools through
// the proxy, configured in the user's ~/.gemini/settings.json, in a trusted
// folder and in yolo mode so that the proxy is the only gate.
func TestMCPGemini(t *testing.T) {
	testMCPClient(t, "gemini", func(t *testing.T, e mcpEnv, bin string, r *mcpRun, c mcpCall) []string {
		var settings map[string]any
		if err := json.Unmarshal([]byte(geminiSettings), &settings); err != nil {
			t.Fatal(err)
		}
		settings["mcpServers"] = map[string]any{"fs": map[string]any{"command": r.server[0], "args": r.server[1:]}}
		b, _ := json.MarshalIndent(settings, "", "  ")
		config := filepath.Join(r.w.home, ".gemini", "settings.json")
		writeFile(t, config, string(b))
		writeFile(t, filepath.Join(r.w.home, ".gemini", "trustedFolders.json"), `{`+jsonString(r.w.project)+`: "TRUST_FOLDER"}`)
		env := append(baseEnv(r.w), "GEMINI_API_KEY=toolgate-e2e-fake-key")
		if !c.direct {
			r.wrap(t, e, "gemini", config, env)
		}
		script := filepath.Join(filepath.Dir(r.w.tmp), "model.jsonl")
		writeFile(t, script, geminiCallScript(t, "mcp_fs_"+c.tool, r.args(c)))
		res := runAgent(t, r.w, env, bin, "--skip-trust", "--fake-responses-non-strict", script,
			"--approval-mode", "yolo", "-o", "json", "-p", "Use the tool.")
		if res.err != nil {
			t.Errorf("gemini: %v", res.err)
		}
		logOnFailure(t, res, config)
		return geminiFunctionResponses(t, r.w.home)
	})
}

// geminiCallScript is geminiScript with the proposed call replaced by a
// call of the tool name with args.
func geminiCallScript(t *testing.T, name string, args map[string]any) string {
	t.Helper()
	var out strings.Builder
	for _, line := range strings.SplitAfter(geminiScript(t, "PLACEHOLDER"), "\n") {
		if !strings.Contains(line, `"functionCall"`) {
			out.WriteString(line)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		replaceFunctionCall(v, name, args)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.String()
}

// replaceFunctionCall sets the name and args of every functionCall in v.
func replaceFunctionCall(v any, name string, args map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		if fc, ok := v["functionCall"].(map[string]any); ok {
			fc["name"], fc["args"] = name, args
		}
		for _, x := range v {
			replaceFunctionCall(x, name, args)
		}
	case []any:
		for _, x := range v {
			replaceFunctionCall(x, name, args)
		}
	}
}
