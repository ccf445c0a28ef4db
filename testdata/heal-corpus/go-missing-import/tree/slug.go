// Package slug turns titles into URL path segments.
package slug

import (
	"unicode"
)

// Make returns the slug of title: lower case, words joined by dashes,
// everything but letters and digits dropped.
func Make(title string) string {
	var words []string
	for _, f := range strings.Fields(title) {
		var b []rune
		for _, r := range f {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b = append(b, unicode.ToLower(r))
			}
		}
		if len(b) > 0 {
			words = append(words, string(b))
		}
	}
	return strings.Join(words, "-")
}
