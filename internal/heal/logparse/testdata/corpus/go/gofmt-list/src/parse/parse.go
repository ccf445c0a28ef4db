// Package parse reads sizes like "10MiB".
package parse

import (
	"strconv"
	"strings"
)

var suffixes = map[string]int64{
	"KiB": 1 << 10,
	"MiB": 1 << 20,
	"GiB":1 << 30,
}

// Size parses a number with an optional binary suffix.
func Size(s string) (int64, error) {
	for suf, mult := range suffixes {
		if num, ok := strings.CutSuffix(s, suf); ok {
			n, err := strconv.ParseInt(num, 10, 64)
			return n * mult, err
		}
	}
	return strconv.ParseInt(s, 10, 64)
}
