package tools

import "strings"

// SanitizeName replaces every character outside [A-Za-z0-9_-] with "_"
// (docs/contracts/ai-agent-cli.md §11).
func SanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
