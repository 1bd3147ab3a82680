package main

// approvals is "toolgate approvals"; its implementation is being written.
func (c *cli) approvals(args []string) int {
	c.errorf("approvals: not built yet")
	return exitUsage
}
