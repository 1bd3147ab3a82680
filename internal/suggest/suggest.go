// Package suggest finds the known name closest to a misspelt one, for "did
// you mean" hints in diagnostics.
package suggest

import (
	"sort"
	"strings"
)

// Distance is the edit distance between a and b, counted in bytes: the
// fewest insertions, deletions, substitutions and swaps of two adjacent
// bytes ("evn" for "env" is one edit) that turn a into b. Strings longer
// than 64 bytes are never close: the distance is then 99.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	// Three rows of the (optimal string alignment) table: i-2, i-1, i.
	pprev := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pprev[j-2]+1)
			}
		}
		pprev, prev, cur = prev, cur, pprev
	}
	return prev[len(b)]
}

// Closest returns the candidate closest to name, compared case-insensitively,
// when it is at most two edits away and closer than half of name; "" when
// none is. Ties go to the candidate first in sorted order.
func Closest(name string, candidates []string) string {
	cs := append([]string(nil), candidates...)
	sort.Strings(cs)
	best, bestD := "", 3
	ln := strings.ToLower(name)
	for _, c := range cs {
		if d := Distance(ln, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD >= len(name)/2+1 {
		return ""
	}
	return best
}
