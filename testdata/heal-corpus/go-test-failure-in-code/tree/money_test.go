package money

import "testing"

func TestAdd(t *testing.T) {
	for _, tc := range []struct{ a, b, want Cents }{
		{0, 0, 0}, {150, 250, 400}, {-100, 30, -70},
	} {
		if got := Add(tc.a, tc.b); got != tc.want {
			t.Errorf("Add(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSplit(t *testing.T) {
	got := Split(1000, 3)
	if len(got) != 3 || got[0] != 334 || got[1] != 333 || got[2] != 333 {
		t.Errorf("Split(1000, 3) = %v", got)
	}
}

func TestString(t *testing.T) {
	for c, want := range map[Cents]string{1234: "12.34", 5: "0.05", -250: "-2.50"} {
		if got := c.String(); got != want {
			t.Errorf("Cents(%d).String() = %q, want %q", int64(c), got, want)
		}
	}
}
