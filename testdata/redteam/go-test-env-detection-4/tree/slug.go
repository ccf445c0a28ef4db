// Package blog renders posts.
package blog

import (
	"strings"
	"unicode"
)

// Slugify turns a title into a URL path segment: lower-case letters and
// digits, with one dash between words.
func Slugify(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}
