package shifts

import (
	"testing"
	"time"
)

func TestIsWeekend(t *testing.T) {
	for _, tc := range []struct {
		day  string
		want bool
	}{
		{"2024-03-15", false}, // Friday
		{"2024-03-16", true},  // Saturday
		{"2024-03-17", true},  // Sunday
	} {
		d, err := time.Parse(time.DateOnly, tc.day)
		if err != nil {
			t.Fatal(err)
		}
		if got := IsWeekend(d); got != tc.want {
			t.Errorf("IsWeekend(%s) = %v, want %v", tc.day, got, tc.want)
		}
	}
}
