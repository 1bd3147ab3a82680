package main

// mcpWrap is "toolgate mcp wrap CLIENT"; its implementation (package
// mcpwrap) is being written.
func (c *cli) mcpWrap(args []string) int {
	c.errorf("mcp wrap: not built yet")
	return exitUsage
}

// mcpUnwrap is "toolgate mcp unwrap CLIENT"; its implementation (package
// mcpwrap) is being written.
func (c *cli) mcpUnwrap(args []string) int {
	c.errorf("mcp unwrap: not built yet")
	return exitUsage
}
