package mcpgate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/config"
	"github.com/toolgate/toolgate/mcpgate"
)

// A proxy in front of one MCP server ("files"), with a policy that allows
// reads and denies writes under /etc. The client sees the tools as
// mcp__files__<tool>; a denied call comes back as a tool error with the
// rule and its position.
func Example() {
	ctx := context.Background()

	// The upstream server: any MCP server; here one in this process.
	files := mcp.NewServer(&mcp.Implementation{Name: "files"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	for _, name := range []string{"read_file", "write_file"} {
		files.AddTool(&mcp.Tool{Name: name, InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ran"}}}, nil
		})
	}

	// The policy, loaded as toolgate loads its files.
	policy := fstest.MapFS{"etc/toolgate/policy.yaml": {Data: []byte(`version: 1
default: ask
allow: ["mcp__files__read_file"]
deny:  ["mcp__files__write_file(path:/etc/*)"]
`)}}
	cfg, _, err := config.Build(&config.Options{FS: policy, Cwd: "/work", Explicit: []string{"/etc/toolgate/policy.yaml"}})
	if err != nil {
		log.Fatal(err)
	}

	proxy, err := mcpgate.New(&mcpgate.Options{
		Engine:  toolgate.NewEngine(cfg),
		Servers: []mcpgate.ServerSpec{{Name: "files", Command: []string{"files-server"}}},
		Cwd:     "/work",
		Pin:     mcpgate.PinOff,
		// In-memory transports instead of starting the command.
		Connect: func(ctx context.Context, _ mcpgate.ServerSpec) (mcp.Transport, error) {
			a, b := mcp.NewInMemoryTransports()
			_, err := files.Connect(ctx, a, nil)
			return b, err
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer proxy.Close()
	if err := proxy.Start(ctx); err != nil {
		log.Fatal(err)
	}

	// A client of the proxy.
	a, b := mcp.NewInMemoryTransports()
	if _, err := proxy.Server().Connect(ctx, a, nil); err != nil {
		log.Fatal(err)
	}
	client, err := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, b, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	for _, call := range []struct{ tool, path string }{
		{"mcp__files__read_file", "/work/a.txt"},
		{"mcp__files__write_file", "/etc/passwd"},
	} {
		res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: map[string]any{"path": call.path}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s isError=%v: %s\n", call.tool, res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// mcp__files__read_file isError=false: read_file ran
	// mcp__files__write_file isError=true: toolgate denied the call: rule: deny rule "mcp__files__write_file(path:/etc/*)" (managed /etc/toolgate/policy.yaml:4:10)
}
