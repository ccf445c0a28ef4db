package kv

import "testing"

func TestParse(t *testing.T) {
	m, err := Parse("# db\nHOST = localhost\nPORT=5432\n\n")
	if err != nil || m["HOST"] != "localhost" || m["PORT"] != "5432" || len(m) != 2 {
		t.Fatalf("Parse = %v, %v", m, err)
	}
	if _, err := Parse("oops"); err == nil {
		t.Fatal("no error for a line without =")
	}
}
