// Package csvsum totals a numeric column of a CSV document.
package csvsum

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// Sum adds the values of column col (0-based) of every record after the
// header.
func Sum(doc string, col int) (float64, error) {
	recs, err := csv.NewReader(strings.NewReader(doc)).ReadAll()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for i, rec := range recs {
		if i == 0 {
			continue
		}
		if col >= len(rec) {
			return 0, fmt.Errorf("csvsum: record %d has no column %d", i, col)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64)
		if err != nil {
			return 0, fmt.Errorf("csvsum: record %d: %w", i, err)
		}
		total += v
	}
	return total, nil
}
