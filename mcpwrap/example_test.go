package mcpwrap_test

import (
	"fmt"
	"log"

	"github.com/toolgate/toolgate/mcpwrap"
)

// ExampleWrapText wraps the servers of a project's .mcp.json and puts the
// file back.
func ExampleWrapText() {
	src := []byte(`{
  "mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]}
  }
}
`)
	o := mcpwrap.Options{Command: "/usr/local/bin/toolgate"}
	w, err := mcpwrap.WrapText(mcpwrap.Claude, "/p/.mcp.json", src, nil, &o)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(w.Content))
	for _, e := range w.Entries {
		fmt.Println(e)
	}
	u, err := mcpwrap.UnwrapText(mcpwrap.Claude, "/p/.mcp.json", w.Content, w.State, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("restored exactly:", string(u.Content) == string(src), u.Identical)
	// Output:
	// {
	//   "mcpServers": {
	//     "fs": {"command": "/usr/local/bin/toolgate", "args": ["mcp", "--upstream-name=fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv"]}
	//   }
	// }
	// mcpServers.fs: wrapped
	// restored exactly: true true
}
