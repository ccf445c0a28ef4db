package b

import "testing"

func TestSum(t *testing.T) {
	t.Log("starting")
	cases := map[string][]int{"one": {1}, "two": {1, 2}}
	for name, xs := range cases {
		t.Run(name, func(t *testing.T) {
			t.Run("deep", func(t *testing.T) {
				t.Logf("xs=%v", xs)
				if got := Sum(xs); got == 0 {
					t.Errorf("Sum(%v) = 0", xs)
				}
			})
		})
	}
}

func TestPassLog(t *testing.T) {
	t.Log("b_test.go:1 fake")
}
