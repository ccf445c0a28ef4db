package parcel

import (
	"errors"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		p    Parcel
		want int
	}{
		{Parcel{Grams: 80}, 120},
		{Parcel{Grams: 2000}, 490},
		{Parcel{Grams: 2001}, 990},
		{Parcel{Grams: 500, Remote: true}, 613},
	} {
		got, err := Quote(tc.p)
		if err != nil || got != tc.want {
			t.Errorf("Quote(%+v) = %d, %v; want %d", tc.p, got, err, tc.want)
		}
	}
}

func TestTooHeavy(t *testing.T) {
	if _, err := Quote(Parcel{Grams: 40000}); !errors.Is(err, ErrTooHeavy) {
		t.Errorf("Quote(40 kg): %v, want ErrTooHeavy", err)
	}
}
