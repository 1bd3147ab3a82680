// Command shim stands in for every program the differential test lets bash
// run: it does nothing and exits 0. The harness records its argv with strace,
// so the shim itself needs no log and touches no file.
package main

func main() {}
