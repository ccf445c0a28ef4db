// Package invoice renders invoices as plain text.
package invoice

import (
	"fmt"
	"strings"
)

// Line is one billed item.
type Line struct {
	Item  string
	Cents int
}

// Render lists the lines, then their total, in euros.
func Render(lines []Line) string {
	var b strings.Builder
	total := 0
	for _, l := range lines {
		fmt.Fprintf(&b, "%-10s %8s\n", l.Item, euros(l.Cents))
		total += l.Cents
	}
	fmt.Fprintf(&b, "%-10s %8s\n", "TOTAL", euros(total))
	return b.String()
}

// euros formats cents as euros with two decimals.
func euros(cents int) string {
	return fmt.Sprintf("%d.%d", cents/100, cents%100)
}
