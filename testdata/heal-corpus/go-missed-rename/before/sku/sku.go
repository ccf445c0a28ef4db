// Package sku parses and formats stock-keeping units such as "TOY-00042".
package sku

import (
	"fmt"
	"strconv"
	"strings"
)

// SKU is a product code: a category and a number.
type SKU struct {
	Category string
	Number   int
}

// String formats the SKU as CATEGORY-NNNNN.
func (s SKU) String() string { return fmt.Sprintf("%s-%05d", s.Category, s.Number) }

// ParseSKU reads a SKU such as "toy-42" or "TOY-00042".
func ParseSKU(s string) (SKU, error) {
	cat, num, ok := strings.Cut(strings.TrimSpace(s), "-")
	if !ok || cat == "" {
		return SKU{}, fmt.Errorf("sku %q: want CATEGORY-NUMBER", s)
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return SKU{}, fmt.Errorf("sku %q: bad number", s)
	}
	return SKU{Category: strings.ToUpper(cat), Number: n}, nil
}
