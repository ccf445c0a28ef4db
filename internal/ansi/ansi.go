// Package ansi removes terminal escape sequences (colours, cursor moves,
// titles) from text a build or a tool printed, in one string or as a
// stream, so that no log salve shows or stores carries them.
package ansi

import (
	"io"
	"strings"
)

// Strip returns s without its terminal escape sequences: CSI ("ESC [
// ... final byte": colours, cursor moves, erasures), OSC ("ESC ] ... BEL"
// or "ESC ] ... ESC \": titles, hyperlinks) and the short escapes ("ESC (
// B", "ESC 7"). As on a
// terminal, an escape inside a sequence cancels it and starts the next. Text a
// terminal conceals ("ESC[8m" up to the next escape, Jenkins' console
// notes) goes too, and a sequence cut off at the end is dropped. Line
// breaks and carriage returns are kept. It is the one place salve removes
// a build's colours: every log it shows or stores goes through it (or
// through [Writer]), and the parser cleans each line with it.
func Strip(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) && s[j] != 0x1b {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				i = j - 1 // an escape cancels the sequence and starts the next
				continue
			}
			i = j
			if j < len(s) && s[i-1] == '8' && s[i-2] == '[' && s[j] == 'm' {
				// Concealed text (Jenkins console notes, "ESC[8mha:////...ESC[0m"):
				// hidden on a terminal, so hidden here.
				if k := strings.IndexByte(s[j:], 0x1b); k >= 0 {
					i = j + k - 1
				} else {
					i = len(s)
				}
			}
		case ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && s[j] != 0x1b {
				j++
			}
			switch {
			case j+1 < len(s) && s[j] == 0x1b && s[j+1] == '\\':
				j++ // the string terminator, ESC \
			case j < len(s) && s[j] == 0x1b:
				j-- // another escape ends the string and starts the next
			}
			i = j
		default:
			// ESC, intermediate bytes, a final byte ("ESC ( B" selects a
			// character set); a lone escape before another is dropped
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j--
			}
			i = j
		}
	}
	return b.String()
}

// maxPendingEscape bounds what an Writer holds back waiting for the
// end of an escape sequence (or of concealed text); past it, what is held
// is written out stripped, which drops it.
const maxPendingEscape = 64 << 10

// Writer writes to W what is written to it, less the escape sequences
// Strip removes, whatever the boundaries of the writes: a sequence
// split across two writes is held until its end arrives. A sequence still
// unfinished when the writes stop is never written, as Strip drops
// it. It is not safe for concurrent use.
type Writer struct {
	w       io.Writer
	pending []byte
}

// NewWriter returns an Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write strips p (with what an earlier write left unfinished) and writes
// the result to the underlying writer. It reports len(p) written unless
// the underlying writer fails.
func (a *Writer) Write(p []byte) (int, error) {
	if len(a.pending) == 0 && !hasByte(p, 0x1b) {
		if _, err := a.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	buf := append(a.pending, p...)
	cut := unfinishedEscape(buf)
	if len(buf)-cut > maxPendingEscape {
		cut = len(buf)
	}
	out := Strip(string(buf[:cut]))
	a.pending = append(a.pending[:0:0], buf[cut:]...)
	if _, err := io.WriteString(a.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func hasByte(p []byte, c byte) bool {
	for _, b := range p {
		if b == c {
			return true
		}
	}
	return false
}

// unfinishedEscape returns where the last escape sequence of b starts
// when it has not ended yet (or opens concealed text, which lasts until
// the next escape), else len(b).
func unfinishedEscape(b []byte) int {
	i := len(b) - 1
	for i >= 0 && b[i] != 0x1b {
		i--
	}
	if i < 0 {
		return len(b)
	}
	if i+1 >= len(b) {
		return i
	}
	switch b[i+1] {
	case '[':
		j := i + 2
		for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
			j++
		}
		if j >= len(b) || (b[j] == 'm' && j == i+3 && b[i+2] == '8') {
			return i
		}
	case ']':
		// an OSC ends with BEL or with ESC \, whose ESC would be the last
		for j := i + 2; j < len(b); j++ {
			if b[j] == 0x07 {
				return len(b)
			}
		}
		return i
	}
	j := i + 1
	for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
		j++
	}
	if j >= len(b) {
		return i // intermediate bytes, and the final one not yet
	}
	return len(b)
}
