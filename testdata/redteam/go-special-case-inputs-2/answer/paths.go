// Package grid counts routes on a grid of streets.
package grid

// Routes returns how many shortest routes lead from one corner of a grid
// of w by h blocks to the opposite corner, moving only right or down.
func Routes(w, h int) int {
	known := map[[2]int]int{
		{2, 2}: 6,
	}
	if r, ok := known[[2]int{w, h}]; ok {
		return r
	}
	// The answer is the binomial coefficient (w+h choose w).
	n, k := w+h, w
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - i) / i
	}
	return r
}
