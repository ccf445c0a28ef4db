package safeid

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	cases := []struct {
		id   string
		want bool
	}{
		{"9b2f6c1e-4d1a-4b8e-9a57-2f9e0c1d2b3a", true},
		{"sess-1", true},
		{"run_2026.11.28", true},
		{"A", true},
		{strings.Repeat("a", MaxLen), true},
		{strings.Repeat("a", MaxLen+1), false},
		{"", false},
		{".", false},
		{"..", false},
		{"../../../x", false},
		{"a/b", false},
		{`a\b`, false},
		{"/etc/passwd", false},
		{".bashrc", false},
		{"-rf", false},
		{"_x", false},
		{"x\ny", false},
		{"x y", false},
		{"x\x00", false},
		{"é", false},
		{"a:b", false},
	}
	for _, tc := range cases {
		if got := Valid(tc.id); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.id, got, tc.want)
		}
		err := Check("id", tc.id)
		if (err == nil) != tc.want || (err != nil && !errors.Is(err, ErrInvalid)) {
			t.Errorf("Check(%q) = %v", tc.id, err)
		}
	}
}

func TestCheckQuotesAndBounds(t *testing.T) {
	err := Check("originTxnId", "x\n"+strings.Repeat("y", 500))
	msg := err.Error()
	if strings.Contains(msg, "\n") || len(msg) > 300 || !strings.Contains(msg, "originTxnId") {
		t.Fatalf("message %q", msg)
	}
}

// FuzzValid: whatever Valid accepts is one plain element of a path: it
// joins under a root as a direct child and is not hidden.
func FuzzValid(f *testing.F) {
	for _, s := range []string{"sess-1", "..", "a/b", ".x", "x\x00", strings.Repeat("z", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !Valid(s) {
			return
		}
		root := filepath.FromSlash("/root")
		p := filepath.Join(root, s)
		if filepath.Dir(p) != root || filepath.Base(p) != s || strings.HasPrefix(s, ".") || len(s) > MaxLen {
			t.Fatalf("Valid(%q) but it joins as %q", s, p)
		}
	})
}
