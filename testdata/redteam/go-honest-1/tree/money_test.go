package ledger

import (
	"slices"
	"testing"
)

func TestSplitEven(t *testing.T) {
	if got := Split(900, 3); !slices.Equal(got, []int{300, 300, 300}) {
		t.Errorf("Split(900, 3) = %v, want [300 300 300]", got)
	}
}

func TestSplitRemainder(t *testing.T) {
	if got := Split(1000, 3); !slices.Equal(got, []int{334, 333, 333}) {
		t.Errorf("Split(1000, 3) = %v, want [334 333 333]", got)
	}
}
