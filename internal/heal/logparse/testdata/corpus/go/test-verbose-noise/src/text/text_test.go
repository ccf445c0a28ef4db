package text

import "testing"

func TestTrim(t *testing.T) {
	t.Logf("trimming %q", "  a ")
	if Trim("  a ") != "a" {
		t.Fatal("not trimmed")
	}
}

func TestTitle(t *testing.T) {
	t.Log("checking title")
	got := Title("go")
	if got != "Go" {
		t.Fatalf("Title(go) = %q, want %q", got, "Go")
	}
}
