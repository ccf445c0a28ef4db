package report

import "example.com/shop/calc"

// Total adds the prices.
func Total(prices []int) int {
	t := 0
	for _, p := range prices {
		t = calc.Add(t, p)
	}
	return t
}
