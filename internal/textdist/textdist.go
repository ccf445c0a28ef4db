// Package textdist measures how far apart two short names are, for the
// "did you mean" of a mistyped flag, subcommand or configuration key, and
// for the toolchain-free guesses of a misspelt identifier.
package textdist

import "strings"

// maxLen bounds the names compared: flags, keys and identifiers are short
// by nature, and longer input is cut, so a hostile name costs little.
const maxLen = 64

// Distance is the optimal string alignment distance of a and b
// (Levenshtein with adjacent transpositions), by bytes, on their first
// 64 bytes.
func Distance(a, b string) int {
	if a == b {
		return 0
	}
	a, b = a[:min(len(a), maxLen)], b[:min(len(b), maxLen)]
	la, lb := len(a), len(b)
	prev2 := make([]int, lb+1)
	prev := make([]int, lb+1)
	cur := make([]int, lb+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[lb]
}

// Closest returns the candidate nearest to s when it is near enough to be
// a typo (at most a third of s's length, and 3), or a candidate s is a
// prefix of (3 bytes or more); "" when none is. Ties go to the first in
// byte order.
func Closest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := Distance(s, c)
		if len(s) >= 3 && strings.HasPrefix(c, s) {
			d = min(d, 1)
		}
		if d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	if bestD <= min(3, max(1, len(s)/3)) {
		return best
	}
	return ""
}
