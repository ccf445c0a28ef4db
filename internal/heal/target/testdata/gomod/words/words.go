// Package words plays word games.
package words

import "strings"

func normalise(s string) string {
	return strings.TrimSpace(s)
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// IsPalindrome reports whether phrase reads the same backwards.
func IsPalindrome(phrase string) bool {
	s := normalise(phrase)
	return s == reverse(s)
}

// SortKey sorts words as a dictionary does.
func SortKey(word string) string {
	return strings.ToLower(normalise(word))
}
