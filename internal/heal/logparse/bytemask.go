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

// needle is a substring with its mask, computed once, and the place of
// its rarest byte.
type needle struct {
	s    string
	m    byteMask
	rare int // index in s of the byte searched first, or -1 to use strings.Contains
}

func newNeedle(s string) needle {
	n := needle{s: s, m: maskOf(s), rare: -1}
	for i := 0; i < len(s); i++ {
		if byteRank[s[i]] >= rareRank && (n.rare < 0 || byteRank[s[i]] > byteRank[s[n.rare]]) {
			n.rare = i
		}
	}
	return n
}

// in reports whether the needle occurs in s, whose mask (or a superset of
// it, such as the whole line's) is m.
func (n needle) in(s string, m byteMask) bool {
	if n.m&m != n.m {
		return false
	}
	if n.rare < 0 {
		return strings.Contains(s, n.s)
	}
	// The vectorised search for one byte that few lines hold turns most
	// lines down faster than a search for the whole needle; each place it
	// finds is checked in full.
	c := n.s[n.rare]
	for i := n.rare; i < len(s); i++ {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return false
		}
		i += j
		if start := i - n.rare; start+len(n.s) <= len(s) && s[start:start+len(n.s)] == n.s {
			return true
		}
	}
	return false
}

// byteOrder lists the bytes of build logs from the most common to the
// less common, roughly (English letter frequencies, then the punctuation
// of paths and messages); bytes not listed are rarer still. A needle is
// searched by its rarest byte when that byte ranks rareRank or beyond:
// searching for a very common byte stops at nearly every place.
const byteOrder = " \teatoinsrlcdhupm.:/-gfb0y1w2v_k3=5x4\"'9(8)67,[]ETSARINOCLDPFMUGBHWVYK#>*<j+q;zQJXZ$@%&!?|{}~^`\\"

var byteRank = func() (r [256]byte) {
	for i := range r {
		r[i] = 255
	}
	for i := 0; i < len(byteOrder); i++ {
		r[byteOrder[i]] = byte(i)
	}
	return r
}()

// rareRank is the rank of 'g': "gofmt" and ".go:" are searched by their
// 'g', "rror" as a whole.
var rareRank = byteRank['g']

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
	ndMultiDef   = newNeedle("multiple definition of ")
	ndLineWord   = newNeedle(": line ")
	ndError      = newNeedle("Error")
	ndException  = newNeedle("Exception")
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
