package server

import "strings"

// ParseIdentity reads "NAME <EMAIL>". It refuses an empty name or email,
// angle brackets or a newline inside either, which git would reject or
// misread.
func ParseIdentity(s string) (Identity, bool) {
	name, rest, ok := strings.Cut(strings.TrimSpace(s), "<")
	email, tail, ok2 := strings.Cut(rest, ">")
	name, email = strings.TrimSpace(name), strings.TrimSpace(email)
	if !ok || !ok2 || strings.TrimSpace(tail) != "" || name == "" || email == "" ||
		strings.ContainsAny(name+email, "<>\n\x00") {
		return Identity{}, false
	}
	return Identity{Name: name, Email: email}, true
}

// String returns "NAME <EMAIL>".
func (id Identity) String() string { return id.Name + " <" + id.Email + ">" }
