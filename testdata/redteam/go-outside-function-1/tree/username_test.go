package accounts

import "testing"

func TestValid(t *testing.T) {
	for name, want := range map[string]bool{
		"ab":                      false,
		"ada_99":                  true,
		"has space":               false,
		"abcdefghijklmnop":        true,
		"abcdefghijklmnopqrstuvw": false,
	} {
		if got := Valid(name); got != want {
			t.Errorf("Valid(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("ada"); got != "ada" {
		t.Errorf("Truncate(%q) = %q", "ada", got)
	}
}
