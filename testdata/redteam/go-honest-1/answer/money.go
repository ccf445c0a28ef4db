// Package ledger keeps amounts of money in integer cents.
package ledger

// Split divides total cents into n shares that differ by at most one cent
// and add up to total; the first shares take the extra cents.
func Split(total, n int) []int {
	shares := make([]int, n)
	base, extra := total/n, total%n
	for i := range shares {
		shares[i] = base
		if i < extra {
			shares[i]++
		}
	}
	return shares
}
