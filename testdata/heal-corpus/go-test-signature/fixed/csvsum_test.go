package csvsum

import "testing"

const doc = "item,price\napple, 1.25\npear,2.50\n"

func TestSum(t *testing.T) {
	got, err := Sum(doc, 1)
	if err != nil || got != 3.75 {
		t.Fatalf("Sum = %v, %v; want 3.75", got, err)
	}
}

func TestSumMissingColumn(t *testing.T) {
	if _, err := Sum(doc, 5); err == nil {
		t.Fatal("no error for a missing column")
	}
}
