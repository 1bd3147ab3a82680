//go:build linux

package bashdiff

import "testing"

// BenchmarkRun measures one trivial command through the sandbox.
func BenchmarkRun(b *testing.B) {
	s := sandbox(b)
	for b.Loop() {
		tr := s.Run("true")
		if tr.Err != "" {
			b.Fatal(tr.Err)
		}
		b.Log(tr.Timing)
	}
}

// BenchmarkRunCompound measures a compound command with a pipeline, a
// substitution and a redirection.
func BenchmarkRunCompound(b *testing.B) {
	s := sandbox(b)
	for b.Loop() {
		if tr := s.Run("git status | grep x > out.txt && echo $(ls src) && timeout 5 rm -f build.log"); tr.Err != "" {
			b.Fatal(tr.Err)
		}
	}
}
