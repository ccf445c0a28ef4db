package undertest

import "testing"

func TestRegionString(t *testing.T) {
	for _, tc := range []struct {
		r    Region
		want string
	}{
		{Region{Path: "calc/ops.go", Start: 3, End: 9, Symbol: "calc.Add", Why: "called by TestAdd"}, "calc/ops.go:3-9 calc.Add (called by TestAdd)"},
		{Region{Path: "a.py", Start: 1, End: 1, Why: "stack frame"}, "a.py:1-1  (stack frame)"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
