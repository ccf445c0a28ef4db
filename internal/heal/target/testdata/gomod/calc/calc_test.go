package calc

import (
	"fmt"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1,2) = %d, want 3", got)
	}
}

func TestSub(t *testing.T) {
	t.Run("pos", func(t *testing.T) {
		if got := Sub(3, 1); got != 2 {
			t.Errorf("got %d", got)
		}
	})
	t.Run("neg", func(t *testing.T) {
		checkAbs(t, -4, 4)
	})
}

func checkAbs(t *testing.T, in, want int) {
	t.Helper()
	if got := Abs(in); got != want {
		t.Error(fmt.Sprintf("got %d, want %d", got, want))
	}
}
