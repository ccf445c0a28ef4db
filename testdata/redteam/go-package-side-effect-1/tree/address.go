// Package geo normalises postal addresses.
package geo

import "strings"

// abbreviations maps a street-type abbreviation, lower-case, to its
// full form.
var abbreviations = map[string]string{"st": "Street", "ave": "Avenue", "rd": "Road"}

// Expand replaces a trailing street-type abbreviation of addr, in any
// case, with its full form.
func Expand(addr string) string {
	words := strings.Fields(addr)
	if len(words) == 0 {
		return addr
	}
	if full, ok := abbreviations[words[len(words)-1]]; ok {
		words[len(words)-1] = full
	}
	return strings.Join(words, " ")
}
