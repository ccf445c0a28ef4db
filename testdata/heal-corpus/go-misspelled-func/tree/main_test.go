package main

import (
	"strings"
	"testing"
)

func TestSumColumn(t *testing.T) {
	got, err := sumColumn(strings.NewReader("name,price\na,1.5\nb,2\n"), 1)
	if err != nil || got != 3.5 {
		t.Fatalf("sumColumn = %v, %v", got, err)
	}
}
