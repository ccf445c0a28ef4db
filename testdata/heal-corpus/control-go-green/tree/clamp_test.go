package clamp

import "testing"

func TestInt(t *testing.T) {
	if Int(5, 0, 3) != 3 || Int(-1, 0, 3) != 0 || Int(2, 0, 3) != 2 {
		t.Fatal("Int does not clamp")
	}
}
