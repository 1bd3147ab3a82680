package main

// serve is "toolgate serve"; its implementation is being written.
func (c *cli) serve(args []string) int {
	c.errorf("serve: not built yet")
	return exitUsage
}
