package shell

import (
	"strings"
	"testing"
	"time"
)

// TestSlowInputs guards against super-linear blow-ups on inputs up to the
// 1 MiB request limit.
func TestSlowInputs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large inputs")
	}
	const mib = 1 << 20
	for name, src := range map[string]string{
		"subst":  strings.Repeat("$(", 5000) + strings.Repeat(")", 5000),
		"subsh":  strings.Repeat("( ", 20000) + "ls" + strings.Repeat(" )", 20000),
		"cmds":   strings.Repeat("rm -rf x; ", mib/10),
		"braces": "rm " + strings.Repeat("{a,b}", 2000),
		"bashc":  strings.Repeat("bash -c '", 1) + strings.Repeat("a ", mib/2) + "'",
		"pipes":  strings.Repeat("a | ", mib/4) + "b",
		"forms":  strings.Repeat("sudo env timeout 1 nice ", 5000) + "ls",
		"eval":   "eval " + strings.Repeat("eval ", 1000) + "ls",
		"words":  "echo " + strings.Repeat("x=@:y ", mib/6),
	} {
		start := time.Now()
		a := Analyze(src, testOpts)
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %v (%d commands)", name, d, len(a.Commands))
		} else {
			t.Logf("%s: %v (%d commands)", name, d, len(a.Commands))
		}
	}
}
