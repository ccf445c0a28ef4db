// Package inventory counts the stock of each product.
package inventory

import (
	"fmt"
	"sort"

	"example.com/stock/sku"
)

// Stock is the quantity on hand of each SKU.
type Stock map[sku.SKU]int

// Add adds qty units of the product with the given code.
func (s Stock) Add(code string, qty int) error {
	id, err := sku.Parse(code)
	if err != nil {
		return fmt.Errorf("add: %w", err)
	}
	if s[id]+qty < 0 {
		return fmt.Errorf("add: only %d of %s in stock", s[id], id)
	}
	s[id] += qty
	return nil
}

// Lines returns one "SKU qty" line per product, sorted by SKU.
func (s Stock) Lines() []string {
	out := make([]string, 0, len(s))
	for id, n := range s {
		out = append(out, fmt.Sprintf("%s %d", id, n))
	}
	sort.Strings(out)
	return out
}
