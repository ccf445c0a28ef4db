package report_test

import (
	"testing"

	"example.com/shop/calc"
	"example.com/shop/report"
)

func TestTotal(t *testing.T) {
	if calc.Add(2, 2) != 4 {
		t.Fatal("calc is broken")
	}
	if got := report.Total([]int{1, 2}); got != 3 {
		t.Errorf("Total = %d, want 3", got)
	}
}
