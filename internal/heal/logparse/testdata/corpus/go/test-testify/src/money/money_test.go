package money

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCents(t *testing.T) {
	assert.Equal(t, 150, Cents(1.5), "cents of 1.5")
}
