package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// suggestFlag adds "did you mean --x?" to cobra's unknown-flag error,
// naming the command's closest flag.
func suggestFlag(c *cobra.Command, err error) error {
	msg := err.Error()
	const unknown = "unknown flag: --"
	i := strings.Index(msg, unknown)
	if i < 0 {
		return err
	}
	given := strings.Fields(msg[i+len(unknown):])
	if len(given) == 0 {
		return err
	}
	var names []string
	collect := func(f *pflag.Flag) { names = append(names, f.Name) }
	c.Flags().VisitAll(collect)
	c.InheritedFlags().VisitAll(collect)
	if best := closest(given[0], names); best != "" {
		return fmt.Errorf("%w; did you mean --%s? (see salve %s --help)", err, best, c.Name())
	}
	return fmt.Errorf("%w (see salve %s --help)", err, c.Name())
}

// closest returns the candidate nearest to s by edit distance, when it is
// near enough to be a typo (at most a third of its length, and 3), or a
// candidate that s is a prefix of; "" when none is.
func closest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(s, c)
		if strings.HasPrefix(c, s) && len(s) >= 3 {
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

// editDistance is the Levenshtein distance of a and b, in bytes; inputs
// are flag and key names, short by nature, and longer ones are cut.
func editDistance(a, b string) int {
	const maxLen = 64
	a, b = a[:min(len(a), maxLen)], b[:min(len(b), maxLen)]
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
