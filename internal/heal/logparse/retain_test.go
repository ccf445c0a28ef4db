package logparse

import (
	"strings"
	"testing"
	"unsafe"
)

// within says whether s's bytes lie inside buf's: s is a substring of buf,
// and keeping s keeps all of buf alive.
func within(s, buf string) bool {
	if len(s) == 0 || len(buf) == 0 {
		return false
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(buf)))
	return p >= b && p < b+uintptr(len(buf))
}

// TestKeptTitlesDoNotHoldTheirChunk: what the parser keeps beyond a line
// must not be a substring of the chunk it read (a 256 KiB string), or a
// long log keeps every chunk that named one alive; on 100 MiB of mixed
// logs the ava titles alone kept the peak heap at 75 MB instead of 37.
func TestKeptTitlesDoNotHoldTheirChunk(t *testing.T) {
	jsKept := func(p *parser) []string {
		for _, h := range p.handlers {
			if j, ok := h.(*jsFail); ok && j.keep != nil {
				var out []string
				out = append(out, j.keep.avaFailed...)
				for _, s := range j.keep.subtests {
					out = append(out, s.name)
				}
				return out
			}
		}
		return nil
	}
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"ava failed titles", []string{"  ✘ [fail]: formats cents", "  ✘ [fail]: totals items"}, []string{"formats cents", "totals items"}},
		{"an ava title listed twice is kept once", []string{"  ✘ [fail]: formats cents", "  ✘ [fail]: formats cents"}, []string{"formats cents"}},
		{"TAP subtests", []string{"# Subtest: node twice", "    # Subtest: doubles 3"}, []string{"node twice", "doubles 3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newParser(Options{Root: "/workspace/app"})
			chunk := strings.Join(tc.lines, "\n") + "\n"
			p.feedChunk(chunk, false)
			got := jsKept(p)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("kept %q, want %q", got, tc.want)
			}
			for _, s := range got {
				if within(s, chunk) {
					t.Errorf("kept %q is a substring of the chunk it was read from", s)
				}
			}
		})
	}
}

// TestReadersDoNotHoldTheirChunk: the traceback and JavaScript readers keep
// a test's name, its last frame and its error until the next one, which
// may come megabytes later; kept as substrings, each held the chunk it was
// read from (two of the live chunks at 50 MiB of the benchmark log).
func TestReadersDoNotHoldTheirChunk(t *testing.T) {
	chunk := strings.Join([]string{
		"FAIL: test_total (test_cart.CartTest)",
		"Traceback (most recent call last):",
		`  File "/workspace/app/test_cart.py", line 9, in test_total`,
		"    self.assertEqual(total([1]), 2)",
		"test/money.test.js:5",
		"  1) money",
		"     formats cents:",
		"     TypeError: x is not a function",
	}, "\n") + "\n"
	p := newParser(Options{Root: "/workspace/app"})
	p.feedChunk(chunk, false)
	var kept []string
	for _, h := range p.handlers {
		switch r := h.(type) {
		case *pyTrace:
			kept = append(kept, r.test, r.last.file, r.final.file)
		case *jsFail:
			kept = append(kept, r.test, r.errName, r.msg, r.loc.file)
		}
	}
	for _, s := range kept {
		if s == "" {
			t.Errorf("a reader kept nothing: %q", kept)
		}
		if within(s, chunk) {
			t.Errorf("kept %q is a substring of the chunk it was read from", s)
		}
	}
}
