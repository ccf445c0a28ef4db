package main

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"one", 1},
		{"two  words\n", 2},
		{"a b\tc\nd", 4},
	} {
		got, err := count(strings.NewReader(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("count(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
