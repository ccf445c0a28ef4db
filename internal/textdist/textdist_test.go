package textdist

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"", "abc", 3},
		{"comand", "command", 1},
		{"kitten", "sitting", 3},
		{"teh", "the", 1}, // one transposition
		{"ab", "ba", 1},
		{strings.Repeat("a", 1000), strings.Repeat("a", 64) + "b", 0}, // cut at 64 bytes
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"command", "fixers", "models", "protected_paths", "mode", "heal", "skip_branches", "allow_test_edits"}
	for _, c := range []struct{ s, want string }{
		{"comand", "command"},
		{"modle", "mode"},                // transposition: mode, not models
		{"protected", "protected_paths"}, // a prefix
		{"allow_tests_edits", "allow_test_edits"},
		{"timeout", ""},
		{"x", ""},
		{"", ""},
	} {
		if got := Closest(c.s, keys); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
	flags := []string{"workspace", "cmd", "timeout", "ci-timeout", "fixers", "models", "allow-test-edits", "push"}
	for _, c := range []struct{ s, want string }{
		{"worspace", "workspace"},
		{"workpsace", "workspace"},
		{"fixer", "fixers"},
		{"timout", "timeout"},
		{"allow-tests-edits", "allow-test-edits"},
		{"cmdd", "cmd"},
		{"zzz", ""},
		{"verbose", ""},
	} {
		if got := Closest(c.s, flags); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("comand", "command")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Distance(a, b)
		if d < 0 || d > max(min(len(a), maxLen), min(len(b), maxLen)) {
			t.Fatalf("Distance(%q, %q) = %d out of range", a, b, d)
		}
		if (d == 0) != (a[:min(len(a), maxLen)] == b[:min(len(b), maxLen)]) {
			t.Fatalf("Distance(%q, %q) = %d", a, b, d)
		}
	})
}
