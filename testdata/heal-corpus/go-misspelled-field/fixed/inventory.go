// Package inventory keeps stock levels.
package inventory

import "fmt"

// Item is one stock keeping unit.
type Item struct {
	SKU      string
	Quantity int
	Reorder  int
}

// Store holds items by SKU.
type Store struct {
	items map[string]*Item
}

// New returns an empty store.
func New() *Store { return &Store{items: map[string]*Item{}} }

// Add records n more units of sku.
func (s *Store) Add(sku string, n int) {
	it, ok := s.items[sku]
	if !ok {
		it = &Item{SKU: sku, Reorder: 5}
		s.items[sku] = it
	}
	it.Quantity += n
}

// Take removes n units of sku, refusing to go below zero.
func (s *Store) Take(sku string, n int) error {
	it, ok := s.items[sku]
	if !ok || it.Quantity < n {
		return fmt.Errorf("inventory: not enough %s", sku)
	}
	it.Quantity -= n
	return nil
}

// Low lists the SKUs at or under their reorder level.
func (s *Store) Low() []string {
	var out []string
	for sku, it := range s.items {
		if it.Quantity <= it.Reorder {
			out = append(out, sku)
		}
	}
	return out
}
