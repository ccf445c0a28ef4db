package parse

import "testing"

func TestInt(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{{"1", 1}, {"x", 0}}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			if got := Int(c.in); got != c.want {
				t.Errorf("Int(%q) = %d, want %d", c.in, got, c.want)
			}
		})
	}
}
