package textstat

import "testing"

func TestWordCount(t *testing.T) {
	for s, want := range map[string]int{
		"":                    0,
		"one":                 1,
		"  two  words ":       2,
		"tabs\tand\nnewlines": 3,
	} {
		if got := WordCount(s); got != want {
			t.Errorf("WordCount(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestChars(t *testing.T) {
	if got := Chars("héllo"); got != 5 {
		t.Errorf("Chars = %d, want 5", got)
	}
}
