package mcpgate

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/transcripts/*.txtar")

// TestTranscripts replays JSON-RPC conversations with the proxy, in front
// of the test upstream, over in-memory transports. Each archive holds:
//
//   - policy.yaml (optional): the policy; the default is testPolicy;
//   - options (optional): JSON {"pin": "enforce", "tamper": [TOOL...]}: pin
//     every upstream tool as it is, except the tampered ones, whose pins
//     are wrong (as after a rug pull);
//   - client: the messages the client sends, one JSON-RPC message a line.
//     After a request, the proxy's messages up to its response are read.
//     "# elicit: JSON" sets the client's answer to the proxy's
//     elicitation requests (default: none is expected); "# state" makes the
//     next line's "$STATE" the last requestState the proxy sent; other "#"
//     "# add-tool NAME" adds a tool to the upstream; "# await METHOD" reads
//     the proxy's messages up to a notification of METHOD; other "#" lines
//     are comments;
//   - server (golden): every message the proxy sent, keys sorted, request
//     states replaced by "<state>";
//   - upstream (golden): the calls the upstream ran.
//
// go test -run TestTranscripts -update rewrites the golden sections.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			section := func(name string) (string, bool) {
				for _, f := range ar.Files {
					if f.Name == name {
						return string(f.Data), true
					}
				}
				return "", false
			}
			policy, ok := section("policy.yaml")
			if !ok {
				policy = testPolicy
			}
			client, _ := section("client")
			optText, _ := section("options")
			server, upstream := runTranscript(t, policy, client, optText)
			if *update {
				set := func(name, data string) {
					for i := range ar.Files {
						if ar.Files[i].Name == name {
							ar.Files[i].Data = []byte(data)
							return
						}
					}
					ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
				}
				set("server", server)
				set("upstream", upstream)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want, _ := section("server"); want != server {
				t.Errorf("server messages differ (run with -update to accept):\n--- got\n%s--- want\n%s", server, want)
			}
			if want, _ := section("upstream"); want != upstream {
				t.Errorf("upstream calls differ:\n--- got\n%s--- want\n%s", upstream, want)
			}
		})
	}
}

// runTranscript plays the client's lines and returns the proxy's messages
// and the upstream's calls, normalized.
func runTranscript(t *testing.T, policy, client, optText string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	up := newTestUpstream()
	opts := Options{Engine: newEngine(t, policy), Servers: []ServerSpec{{Name: "up", Command: []string{"unused"}}},
		Connect: up.connect, Pin: PinOff, Cwd: "/work", AskTimeout: 5 * time.Second, CallTimeout: 5 * time.Second,
		StateKey: []byte("transcript key, not a secret")}
	if optText != "" {
		var o struct {
			Pin    string   `json:"pin"`
			Tamper []string `json:"tamper"`
		}
		if err := json.Unmarshal([]byte(optText), &o); err != nil {
			t.Fatalf("options: %v", err)
		}
		pin, err := ParsePinMode(o.Pin)
		if err != nil {
			t.Fatal(err)
		}
		opts.Pin = pin
		opts.Lock = lockOf(t)
		for _, name := range o.Tamper {
			opts.Lock.Servers["up"][name] = "sha256:" + strings.Repeat("0", 64)
		}
	}
	p, err := New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, b := mcp.NewInMemoryTransports()
	if _, err := p.Server().Connect(ctx, a, nil); err != nil {
		t.Fatal(err)
	}
	conn, err := b.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	msgs := make(chan map[string]any, 16)
	go func() {
		for {
			m, err := conn.Read(ctx)
			if err != nil {
				close(msgs)
				return
			}
			data, err := jsonrpc.EncodeMessage(m)
			if err != nil {
				continue
			}
			var v map[string]any
			if json.Unmarshal(data, &v) == nil {
				msgs <- v
			}
		}
	}()
	var out strings.Builder
	var elicit json.RawMessage
	lastState := ""
	useState := false
	for _, line := range strings.Split(client, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# elicit:"):
			elicit = json.RawMessage(strings.TrimSpace(strings.TrimPrefix(line, "# elicit:")))
			continue
		case line == "# state":
			useState = true
			continue
		case strings.HasPrefix(line, "# add-tool "):
			name := strings.TrimSpace(strings.TrimPrefix(line, "# add-tool "))
			up.server.AddTool(&mcp.Tool{Name: name, Description: "added later", InputSchema: objSchema(nil)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ran"}}}, nil
				})
			continue
		case strings.HasPrefix(line, "# await "):
			method := strings.TrimSpace(strings.TrimPrefix(line, "# await "))
			for {
				var m map[string]any
				select {
				case mm, ok := <-msgs:
					if !ok {
						t.Fatalf("the connection closed while awaiting %s", method)
					}
					m = mm
				case <-ctx.Done():
					t.Fatalf("no %s", method)
				}
				got, _ := m["method"].(string)
				out.WriteString(normalize(m) + "\n")
				if got == method {
					break
				}
			}
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		if useState {
			line = strings.ReplaceAll(line, "$STATE", lastState)
			useState = false
		}
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			t.Fatalf("client line %q: %v", line, err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		var sent map[string]any
		json.Unmarshal([]byte(line), &sent)
		id, isCall := sent["id"]
		if !isCall || sent["method"] == nil {
			continue
		}
		for done := false; !done; {
			var m map[string]any
			select {
			case mm, ok := <-msgs:
				if !ok {
					t.Fatalf("the connection closed while waiting for the answer to %v", id)
				}
				m = mm
			case <-ctx.Done():
				t.Fatalf("no answer to %v", id)
			}
			if res, ok := m["result"].(map[string]any); ok {
				if st, ok := res["requestState"].(string); ok {
					lastState = st
				}
			}
			method, _ := m["method"].(string)
			mid, hasID := m["id"]
			out.WriteString(normalize(m) + "\n")
			switch {
			case method != "" && hasID:
				// A request from the proxy: answer it as the script says.
				idJSON, _ := json.Marshal(mid)
				reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"not scripted"}}`, idJSON)
				if method == "elicitation/create" && elicit != nil {
					reply = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, idJSON, elicit)
				}
				rm, err := jsonrpc.DecodeMessage([]byte(reply))
				if err != nil {
					t.Fatal(err)
				}
				if err := conn.Write(ctx, rm); err != nil {
					t.Fatal(err)
				}
			case method == "" && fmt.Sprint(mid) == fmt.Sprint(id):
				done = true
			}
		}
	}
	return out.String(), strings.Join(up.ran(), "\n") + "\n"
}

// normalize renders a message with its keys sorted and its request state
// replaced.
func normalize(v any) string {
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, val := range x {
				if k == "requestState" {
					x[k] = "<state>"
					continue
				}
				x[k] = walk(val)
			}
			return x
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return x
	}
	b, _ := json.Marshal(walk(v))
	return string(bytes.TrimSpace(b))
}
