// Package money does arithmetic on amounts of one currency held as whole
// minor units (cents), so that sums never pick up floating-point error.
package money

import "fmt"

// Cents is an amount in minor units.
type Cents int64

// Add returns the sum of two amounts.
func Add(a, b Cents) Cents {
	return a + b
}

// Sum adds up amounts.
func Sum(xs ...Cents) Cents {
	var total Cents
	for _, x := range xs {
		total = Add(total, x)
	}
	return total
}

// Split divides a into n shares that differ by at most one cent and add
// up to a exactly; the first shares get the extra cents.
func Split(a Cents, n int) []Cents {
	if n <= 0 {
		return nil
	}
	share, extra := a/Cents(n), a%Cents(n)
	out := make([]Cents, n)
	for i := range out {
		out[i] = share
		if Cents(i) < extra {
			out[i]++
		}
	}
	return out
}

// String formats c as units and cents: 1234 is "12.34".
func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}
