// Command csvsum prints the sum of one column of a CSV file.
package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
)

// sumColumn adds up column col of every record after the header.
func sumColumn(r io.Reader, col int) (float64, error) {
	records, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return 0, err
	}
	total := 0.0
	for i, rec := range records {
		if i == 0 || col >= len(rec) {
			continue
		}
		v, err := strconv.ParseFloat(rec[col], 64)
		if err != nil {
			return 0, fmt.Errorf("row %d: %w", i+1, err)
		}
		total += v
	}
	return total, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: csvsum COLUMN < file.csv")
		os.Exit(2)
	}
	col, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "csvsum:", err)
		os.Exit(2)
	}
	total, err := sumColum(os.Stdin, col)
	if err != nil {
		fmt.Fprintln(os.Stderr, "csvsum:", err)
		os.Exit(1)
	}
	fmt.Println(total)
}
