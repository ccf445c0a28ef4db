package r

import "testing"

func TestCount(t *testing.T) {
	if Count() != 2 {
		t.Fatal("bad")
	}
}
