package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMCPRemoteScripts runs testdata/mcp_remote*.txtar: "toolgate mcp
// --server" in front of a real MCP server over stdio, deciding with a real
// "toolgate serve". The upstream server and the MCP client are this test
// binary run as helpers: "$HELPER -test.run=TestMCPHelper -- upstream"
// or "... -- client ..." (see TestMCPHelper).
func TestMCPRemoteScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/mcp_remote*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"status": cmdStatus},
		Setup: func(e *testscript.Env) error {
			if err := scriptHome(e); err != nil {
				return err
			}
			e.Setenv("HELPER", self)
			e.Setenv("TOOLGATE_MCP_HELPER", "1")
			return nil
		},
	})
}

// TestMCPHelper is not a test: run by the scripts with
// TOOLGATE_MCP_HELPER=1 and the arguments after "--", it is an MCP server
// ("upstream") or client ("client"), then exits.
func TestMCPHelper(t *testing.T) {
	args := flag.Args()
	if os.Getenv("TOOLGATE_MCP_HELPER") != "1" || len(args) == 0 {
		t.Skip("a helper process of TestMCPRemoteScripts")
	}
	var err error
	switch args[0] {
	case "upstream":
		err = helperUpstream()
	case "client":
		err = helperClient(args[1:])
	default:
		err = fmt.Errorf("unknown helper %q", args[0])
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcp helper: %v\n", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helperUpstream is a file MCP server on stdio, in its working directory:
// read_file, write_file (which really writes) and delete_file.
func helperUpstream() error {
	s := mcp.NewServer(&mcp.Implementation{Name: "helper-fs"}, nil)
	type pathArgs struct {
		Path    string `json:"path"`
		Content string `json:"content,omitempty"`
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(s, &mcp.Tool{Name: "read_file", Description: "reads a file"},
		func(_ context.Context, _ *mcp.CallToolRequest, a pathArgs) (*mcp.CallToolResult, any, error) {
			return text("contents of " + a.Path), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "write_file", Description: "writes a file"},
		func(_ context.Context, _ *mcp.CallToolRequest, a pathArgs) (*mcp.CallToolResult, any, error) {
			if err := os.WriteFile(a.Path, []byte(a.Content), 0o644); err != nil {
				return nil, nil, err
			}
			return text("wrote " + a.Path), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_file", Description: "deletes a file"},
		func(_ context.Context, _ *mcp.CallToolRequest, a pathArgs) (*mcp.CallToolResult, any, error) {
			return text("deleted " + a.Path), nil, os.Remove(a.Path)
		})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// helperClient runs "client STEP... -- COMMAND...": it starts COMMAND (the
// proxy) as an MCP server on stdio and runs the steps, printing one line
// each:
//
//	list                 tools: NAME...
//	call TOOL JSON       call TOOL: ok|denied: TEXT, or call TOOL: error: ERR
//	await FILE           (waits up to 30 s for FILE to exist; prints nothing)
func helperClient(args []string) error {
	i := slices.Index(args, "--")
	if i < 0 || i == len(args)-1 {
		return fmt.Errorf("usage: client STEP... -- COMMAND...")
	}
	steps, command := args[:i], args[i+1:]
	ctx := context.Background()
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "helper-client"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for len(steps) > 0 {
		switch steps[0] {
		case "list":
			var names []string
			for t, err := range cs.Tools(ctx, nil) {
				if err != nil {
					return err
				}
				names = append(names, t.Name)
			}
			slices.Sort(names)
			fmt.Printf("tools: %s\n", strings.Join(names, " "))
			steps = steps[1:]
		case "call":
			if len(steps) < 3 {
				return fmt.Errorf("call needs TOOL and JSON")
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(steps[2]), &in); err != nil {
				return fmt.Errorf("call %s: %v", steps[1], err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: steps[1], Arguments: in})
			switch {
			case err != nil:
				fmt.Printf("call %s: error: %v\n", steps[1], err)
			default:
				var parts []string
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						parts = append(parts, tc.Text)
					}
				}
				what := "ok"
				if res.IsError {
					what = "denied"
				}
				fmt.Printf("call %s: %s: %s\n", steps[1], what, strings.Join(parts, " | "))
			}
			steps = steps[3:]
		case "await":
			if len(steps) < 2 {
				return fmt.Errorf("await needs FILE")
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				if _, err := os.Stat(steps[1]); err == nil {
					break
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("await %s: it did not appear", steps[1])
				}
				time.Sleep(20 * time.Millisecond)
			}
			steps = steps[2:]
		default:
			return fmt.Errorf("unknown step %q", steps[0])
		}
	}
	return nil
}
