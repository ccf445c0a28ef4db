package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestApproxBasics(t *testing.T) {
	tests := []struct {
		text     string
		min, max int
	}{
		{text: "", min: 0, max: 0},
		{text: "a", min: 1, max: 2},
		{text: "hello world", min: 2, max: 3},
		{text: strings.Repeat("word ", 100), min: 90, max: 140},
		{text: "{\"a\":1}", min: 3, max: 8},
		{text: "日本語のテキスト", min: 8, max: 12},
		{text: "\xff\xfe invalid", min: 2, max: 5},
	}
	for _, tt := range tests {
		if got := (Approx{}).Count(tt.text); got < tt.min || got > tt.max {
			t.Errorf("Approx.Count(%q) = %d, want in [%d, %d]", tt.text, got, tt.min, tt.max)
		}
	}
}

// FuzzApprox feeds arbitrary text (tool outputs are untrusted) and checks
// that Approx never panics, is zero only for empty text, and grows with the
// text: splitting a text never makes the parts cost more than one token
// each above the whole.
func FuzzApprox(f *testing.F) {
	for _, s := range []string{"", "hello", "{\"a\": [1, 2]}", "日本", "\xff", "  \n\t x"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		n := Approx{}.Count(s)
		if (n == 0) != (s == "") {
			t.Fatalf("Count(%q) = %d", s, n)
		}
		if n > 3*len(s)+1 {
			t.Fatalf("Count(%q) = %d, more than 3 per byte", s, n)
		}
		if len(s) == 0 {
			return
		}
		i := (cut%len(s) + len(s)) % len(s)
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		a, b := Approx{}.Count(s[:i]), Approx{}.Count(s[i:])
		if a+b+2 < n {
			t.Fatalf("parts %d+%d cost less than the whole %d for %q at %d", a, b, n, s, i)
		}
	})
}

func benchText(b *testing.B) string {
	files := corpus(b)
	var sb strings.Builder
	for _, name := range []string{"prose_en.txt", "code_go.txt", "schema_json.txt", "log.txt"} {
		sb.WriteString(files[name])
	}
	return sb.String()
}

func BenchmarkApprox(b *testing.B) {
	text := benchText(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Approx{}.Count(text)
	}
}
