// Package paginate splits result lists into pages.
package paginate

// Pages returns how many pages of size per are needed for n items.
func Pages(n, per int) int {
	if per <= 0 || n <= 0 {
		return 0
	}
	return n / per
}

// Slice returns the items of page p (1-based) of xs.
func Slice[T any](xs []T, p, per int) []T {
	start := (p - 1) * per
	if p < 1 || start >= len(xs) {
		return nil
	}
	return xs[start:min(start+per, len(xs))]
}
