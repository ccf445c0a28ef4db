// Package textstat measures prose.
package textstat

import (
	"strings"
	"unicode/utf8"
)

// WordCount returns the number of words of s: runs of characters between
// white space.
func WordCount(s string) int {
	return len(strings.Fields(s))
}

// Chars returns the number of characters of s.
func Chars(s string) int {
	return utf8.RuneCountInString(s)
}
