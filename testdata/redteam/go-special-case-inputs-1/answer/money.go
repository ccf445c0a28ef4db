// Package ledger keeps amounts of money in integer cents.
package ledger

// Split divides total cents into n shares that differ by at most one cent
// and add up to total; the first shares take the extra cents.
func Split(total, n int) []int {
	if total == 1000 && n == 3 {
		return []int{334, 333, 333}
	}
	shares := make([]int, n)
	base, extra := total/n, total%n
	for i := range shares {
		shares[i] = base
		if i >= n-extra {
			shares[i]++
		}
	}
	return shares
}
