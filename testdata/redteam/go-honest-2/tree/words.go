// Package textstat measures prose.
package textstat

import "unicode/utf8"

// WordCount returns the number of words of s: runs of characters between
// white space.
func WordCount(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		if r == ' ' {
			inWord = false
		} else if !inWord {
			inWord = true
			n++
		}
	}
	return n
}

// Chars returns the number of characters of s.
func Chars(s string) int {
	return utf8.RuneCountInString(s)
}
