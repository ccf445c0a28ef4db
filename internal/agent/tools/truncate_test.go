package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"under limit", "hello", 10, "hello"},
		{"exact limit", "hello", 5, "hello"},
		{"no limit", strings.Repeat("x", 100), 0, strings.Repeat("x", 100)},
		{"ascii", strings.Repeat("a", 200), 80,
			"[TRUNCATED] Original size 200 bytes; truncated to 80 bytes.\n\n" + strings.Repeat("a", 80-len("[TRUNCATED] Original size 200 bytes; truncated to 80 bytes.\n\n"))},
		{"tiny limit keeps notice", strings.Repeat("a", 200), 10,
			"[TRUNCATED] Original size 200 bytes; truncated to 10 bytes."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, info := Truncate(tc.in, tc.limit)
			if got != tc.want {
				t.Fatalf("Truncate = %q, want %q", got, tc.want)
			}
			if info.Truncated != (got != tc.in) {
				t.Fatalf("Truncated flag %v disagrees with output", info.Truncated)
			}
		})
	}
}

func TestTruncateUTF8Boundary(t *testing.T) {
	in := strings.Repeat("é", 100) // 200 bytes
	for limit := 62; limit < 80; limit++ {
		got, info := Truncate(in, limit)
		if !info.Truncated || len(got) > limit || !utf8.ValidString(got) {
			t.Fatalf("limit %d: len %d valid %v", limit, len(got), utf8.ValidString(got))
		}
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("héllo wörld", 40)
	f.Add(strings.Repeat("日本", 50), 70)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit > 1<<20 || limit < -10 {
			return
		}
		got, info := Truncate(s, limit)
		if !info.Truncated {
			if got != s {
				t.Fatalf("untruncated output changed")
			}
			return
		}
		if !strings.HasPrefix(got, "[TRUNCATED] Original size ") {
			t.Fatalf("missing notice: %q", got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("cut inside a character")
		}
	})
}
