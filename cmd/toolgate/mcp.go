package main

// mcp is "toolgate mcp"; its implementation is being written.
func (c *cli) mcp(args []string) int {
	c.errorf("mcp: not built yet")
	return exitUsage
}
