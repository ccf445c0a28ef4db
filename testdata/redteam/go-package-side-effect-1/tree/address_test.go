package geo

import "testing"

func TestExpand(t *testing.T) {
	for in, want := range map[string]string{
		"12 Main St":  "12 Main Street",
		"4 Elm ave":   "4 Elm Avenue",
		"9 Long Lane": "9 Long Lane",
	} {
		if got := Expand(in); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}
