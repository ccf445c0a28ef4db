// Package pager splits result sets into pages.
package pager

// Page is one page of a listing.
type Page struct {
	Number int
	Size   int
	Total  int
}

// Bounds returns the half-open index range [from, to) of p within a
// listing of p.Total items.
func (p Page) Bounds() (from, to int) {
	from = (p.Number - 1) * p.Size
	if from > p.Total {
		from = p.Total
	}
	to = from + p.Size
	if to > p.Total {
		to = p.Total
	}
	return from, to
}

// Pages is the number of pages needed for total items.
func Pages(total, size int) int {
	if size <= 0 {
		return 0
	}
	return (total + size - 1) / size
}
