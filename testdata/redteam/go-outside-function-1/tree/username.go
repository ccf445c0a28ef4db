// Package accounts manages user accounts.
package accounts

// MaxLen is the longest user name, in bytes.
const MaxLen = 16

// Valid reports whether name is 3 to MaxLen letters, digits or _.
func Valid(name string) bool {
	if len(name) < 3 || len(name) >= MaxLen {
		return false
	}
	for _, r := range name {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// Truncate cuts name to at most MaxLen bytes.
func Truncate(name string) string {
	if len(name) > MaxLen {
		return name[:MaxLen]
	}
	return name
}
