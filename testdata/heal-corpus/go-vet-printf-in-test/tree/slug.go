// Package slug turns titles into URL slugs.
package slug

import (
	"strings"
	"unicode"
)

// Make lowercases title, drops punctuation and joins its words with dashes.
func Make(title string) string {
	clean := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, title)
	return strings.Join(strings.Fields(clean), "-")
}
