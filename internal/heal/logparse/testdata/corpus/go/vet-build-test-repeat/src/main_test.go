package main

import "testing"

func TestLabel(t *testing.T) {
	if got := label(7); got != "7" {
		t.Errorf("label(7) = %q, want \"7\"", got)
	}
}
