package reader

import "testing"

func TestLoad(t *testing.T) {
	var r Reader
	ok := r.load("echo one two")
	if !ok || len(r.Lines) != 2 {
		t.Fatalf("load = %v with lines %q, want true with 2 lines", ok, r.Lines)
	}
	failed := r.load("exit 3")
	if failed {
		t.Error("a failing command loaded")
	}
}
