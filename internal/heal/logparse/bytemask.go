package logparse

import (
	"strings"

	"github.com/salve-dev/salve/internal/lazyre"
)

// A byte mask is a 64-bit summary of the bytes a line holds: bit b&63 is
// set for every byte b. A needle can only occur in a line whose mask
// covers the needle's, so one pass over the line lets most substring
// searches be skipped: a line without an 'x' has no "xception".
type byteMask uint64

// maskOf returns the byte mask of s.
func maskOf(s string) byteMask {
	// Four accumulators, so that the ORs do not wait on each other.
	var m0, m1, m2, m3 byteMask
	i := 0
	for ; i+4 <= len(s); i += 4 {
		b := s[i : i+4]
		m0 |= 1 << (b[0] & 63)
		m1 |= 1 << (b[1] & 63)
		m2 |= 1 << (b[2] & 63)
		m3 |= 1 << (b[3] & 63)
	}
	for ; i < len(s); i++ {
		m0 |= 1 << (s[i] & 63)
	}
	return m0 | m1 | m2 | m3
}

// needle is a substring with its mask, computed once.
type needle struct {
	s string
	m byteMask
}

func newNeedle(s string) needle { return needle{s: s, m: maskOf(s)} }

// in reports whether the needle occurs in s, whose mask (or a superset of
// it, such as the whole line's) is m.
func (n needle) in(s string, m byteMask) bool {
	return n.m&m == n.m && strings.Contains(s, n.s)
}

// anyIn reports whether one of ns occurs in s, whose mask is m.
func anyIn(ns []needle, s string, m byteMask) bool {
	for _, n := range ns {
		if n.in(s, m) {
			return true
		}
	}
	return false
}

// Needles searched on every line.
var (
	ndTraceback  = newNeedle("Traceback (")
	ndPyFile     = newNeedle(`File "`)
	ndMultiDef   = newNeedle("multiple definition of ")
	ndLineWord   = newNeedle(": line ")
	ndOK         = newNeedle("ok ")
	ndGoFile     = newNeedle(".go:")
	ndErrorTrace = newNeedle("Error Trace:")
	ndColon      = newNeedle(":")
)

// matchNeedle runs re on s only when s holds n; m is s's mask.
func matchNeedle(s string, n needle, m byteMask, re *lazyre.Regexp) []string {
	if !n.in(s, m) {
		return nil
	}
	return re.FindStringSubmatch(s)
}

// Masks of single bytes.
const (
	maskColon   byteMask = 1 << (':' & 63)
	maskParen   byteMask = 1 << ('(' & 63)
	maskBracket byteMask = 1 << ('[' & 63)
	maskCR      byteMask = 1 << ('\r' & 63)
	maskESC     byteMask = 1 << (0x1b & 63)
)
