package ansi

import (
	"strings"
	"testing"
)

func TestStripANSI(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain text is returned as is", "Total: 32\n", "Total: 32\n"},
		{"colours between words", "\x1b[39m | Total: 32\x1b[31m\n", " | Total: 32\n"},
		{"uvu's bold red FAIL", "  \x1b[1m\x1b[41m FAIL \x1b[22m\x1b[49m \x1b[2m\"\x1b[22m\x1b[31m\x1b[1mformats cents\x1b[39m\x1b[22m\x1b[2m\"\x1b[22m",
			"   FAIL  \"formats cents\""},
		{"256 colours and cursor moves", "\x1b[48;5;234m\x1b[37m 2 \x1b[2K\x1b[1A\x1b[Gx", " 2 x"},
		{"an OSC hyperlink ended by BEL and by ESC \\", "\x1b]8;;http://x\x07link\x1b]8;;\x1b\\ end", "link end"},
		{"lines and carriage returns are kept", "a\r\n\x1b[31mb\x1b[0m\rc\n", "a\r\nb\rc\n"},
		{"concealed text is hidden", "\x1b[8mha:////AAA=\x1b[0mvisible", "visible"},
		{"a sequence cut off at the end is dropped", "done\x1b[3", "done"},
		{"a lone escape at the end is dropped", "done\x1b", "done"},
		{"a two-byte escape", "a\x1b(Bb", "ab"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Strip(c.in); got != c.want {
				t.Errorf("Strip(%q) = %q, want %q", c.in, got, c.want)
			}
			if got := writeInPieces(t, c.in, 1); got != c.want {
				t.Errorf("Writer, a byte at a time: %q, want %q", got, c.want)
			}
		})
	}
}

// writeInPieces writes s to an Writer n bytes at a time.
func writeInPieces(t testing.TB, s string, n int) string {
	var b strings.Builder
	w := NewWriter(&b)
	for i := 0; i < len(s); i += n {
		p := []byte(s[i:min(i+n, len(s))])
		if k, err := w.Write(p); err != nil || k != len(p) {
			t.Fatalf("Write = %d, %v", k, err)
		}
	}
	return b.String()
}

// FuzzStripANSI checks that no escape survives, and that an Writer
// gives what Strip gives, however the log is cut into writes.
func FuzzStripANSI(f *testing.F) {
	f.Add("\x1b[1m\x1b[41m FAIL \x1b[22m\x1b[49m x\n", 3)
	f.Add("\x1b]8;;u\x1b\\t\x1b]0;x\x07\x1b[8mhid\x1b[0m\x1b", 2)
	f.Add("\x1b[\x1b]\x1b\x1b[8m", 1)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if len(s) > maxPendingEscape {
			return
		}
		want := Strip(s)
		if strings.IndexByte(want, 0x1b) >= 0 {
			t.Fatalf("Strip(%q) = %q keeps an escape", s, want)
		}
		if n < 1 {
			n = 1 - n%16
		}
		if got := writeInPieces(t, s, n); got != want {
			t.Fatalf("Writer in pieces of %d: %q, Strip: %q", n, got, want)
		}
	})
}
