package logparse

import (
	"strings"
	"testing"
)

// TestNeedleAgreesWithContains: the mask is only a prefilter, so a
// needle is found exactly where strings.Contains finds it, whether the
// mask is the string's own or the whole line's.
func TestNeedleAgreesWithContains(t *testing.T) {
	lines := []string{
		"", "x", "Traceback (most recent call last):", "  File \"a.py\", line 3",
		"/usr/bin/ld: b.o: multiple definition of `x'; a.o: first defined here",
		"ok  \texample.com/x\t0.1s", "not ok 1 - adds", "\x1b[31merror\x1b[0m\r",
		"ERROR: ExceptionGroup", "java.lang.Throwable", "Failure: 2", "über ✖ fail",
	}
	needles := []string{"Traceback (", `File "`, "multiple definition of ", ": line ", "ok ", "rror", "xception", "Failure", "Throwable", "✖", "\r", "\x1b["}
	for _, line := range lines {
		for _, n := range needles {
			nd := newNeedle(n)
			want := strings.Contains(line, n)
			if got := nd.in(line, maskOf(line)); got != want {
				t.Errorf("needle %q in %q = %v, want %v", n, line, got, want)
			}
			// A substring of the line, tested with the line's mask.
			for _, sub := range []string{strings.TrimSpace(line), line[len(line)/2:]} {
				if got, want := nd.in(sub, maskOf(line)), strings.Contains(sub, n); got != want {
					t.Errorf("needle %q in %q (line mask) = %v, want %v", n, sub, got, want)
				}
			}
		}
	}
}

// TestMaskOfEveryLength covers the unrolled loop's tail at each length.
func TestMaskOfEveryLength(t *testing.T) {
	s := "abcdefghij:(["
	for n := 0; n <= len(s); n++ {
		var want byteMask
		for i := 0; i < n; i++ {
			want |= 1 << (s[i] & 63)
		}
		if got := maskOf(s[:n]); got != want {
			t.Errorf("maskOf(%q) = %x, want %x", s[:n], got, want)
		}
	}
}

func FuzzNeedle(f *testing.F) {
	f.Add("Traceback (most recent call last):", "Traceback (")
	f.Add("a.o: multiple definition of `x'", "definition")
	f.Fuzz(func(t *testing.T, line, n string) {
		if got, want := newNeedle(n).in(line, maskOf(line)), strings.Contains(line, n); got != want {
			t.Fatalf("needle %q in %q = %v, want %v", n, line, got, want)
		}
		if got, want := isBlank(line), strings.TrimSpace(line) == ""; got != want {
			t.Fatalf("isBlank(%q) = %v", line, got)
		}
		if got, want := trimIndent(line), strings.TrimLeft(line, " \t"); got != want {
			t.Fatalf("trimIndent(%q) = %q", line, got)
		}
		// The mask only spares work: with every bit set, nothing is skipped.
		if got, want := cleanMasked(line, maskOf(line)), cleanMasked(line, ^byteMask(0)); got != want {
			t.Fatalf("cleanMasked(%q) = %q, unmasked %q", line, got, want)
		}
	})
}
