// Package safeid is salve's one rule for a name that comes from a file, a
// peer or a payload and is about to become part of a path: a session id, a
// transaction id, a handle, a run id. Such a name is checked where the
// path is built; a name that fails is refused, never cleaned, so that two
// different hostile names cannot end up as one file.
//
// A safe id is 1 to MaxLen bytes of ASCII letters, digits, '.', '_' and
// '-', and starts with a letter or a digit. It therefore holds no path
// separator, cannot be "." or "..", cannot name a hidden file, cannot be
// read as a flag, and holds no control character that could forge a log
// line.
package safeid

import (
	"errors"
	"fmt"
)

// MaxLen is the longest safe id, in bytes.
const MaxLen = 128

// ErrInvalid is wrapped by Check when a name is not a safe id.
var ErrInvalid = errors.New("not a safe id")

// Valid reports whether s is a safe id.
func Valid(s string) bool {
	if s == "" || len(s) > MaxLen || !alnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// Check returns nil when s is a safe id, else an error wrapping
// ErrInvalid that names what s is (such as "originTxnId") and quotes at
// most 64 bytes of it.
func Check(what, s string) error {
	if Valid(s) {
		return nil
	}
	shown := s
	if len(shown) > 64 {
		shown = shown[:64] + "…"
	}
	return fmt.Errorf("%w: %s %q (letters, digits, '.', '_', '-', starting with a letter or digit, at most %d bytes)", ErrInvalid, what, shown, MaxLen)
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
