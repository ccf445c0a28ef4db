package invoice

import (
	"testing"

	"example.com/invoice/internal/golden"
)

func TestRenderReceipt(t *testing.T) {
	got := Render([]Line{{"coffee", 350}, {"bagel", 205}})
	golden.Equal(t, "receipt", got)
}
