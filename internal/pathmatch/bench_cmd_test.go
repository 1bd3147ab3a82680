package pathmatch

import "testing"

// BenchmarkMatchDenyShort matches a deny rule of the working directory
// against a short path that it misses, as a command's every argument is
// (git diff --stat HEAD~1 names cwd/HEAD~1).
func BenchmarkMatchDenyShort(b *testing.B) {
	benchMatch(b, "./secrets/**", ForDeny, "/w/proj/HEAD~1")
}
