// Package parcel quotes the price of shipping a parcel: a base price by
// weight tier, a surcharge for remote destinations, and rounding to whole
// cents.
package parcel

import (
	"errors"
	"fmt"
)

// ErrTooHeavy is returned for a parcel above the heaviest tier.
var ErrTooHeavy = errors.New("parcel too heavy")

// Parcel is what is shipped.
type Parcel struct {
	// Grams is the parcel's weight.
	Grams int
	// Remote is true for islands and other remote destinations.
	Remote bool
}

// Quote returns the price of shipping p, in cents.
func Quote(p Parcel) (int, error) {
	t, ok := tierFor(p.Grams)
	if !ok {
		return 0, fmt.Errorf("%d g: %w", p.Grams, ErrTooHeavy)
	}
	price := t.Cents
	if p.Remote {
		price += remoteSurcharge(price)
	}
	return price, nil
}

// remoteSurcharge is a quarter of the base price, rounded up to a cent.
func remoteSurcharge(base int) int {
	return (base + 3) / 4
}
