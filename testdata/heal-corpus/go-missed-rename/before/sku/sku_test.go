package sku

import "testing"

func TestParseSKU(t *testing.T) {
	for in, want := range map[string]string{"toy-42": "TOY-00042", " BOOK-7 ": "BOOK-00007"} {
		s, err := ParseSKU(in)
		if err != nil || s.String() != want {
			t.Errorf("ParseSKU(%q) = %v, %v; want %s", in, s, err, want)
		}
	}
	for _, bad := range []string{"", "toy", "-1", "toy-x", "toy--3"} {
		if _, err := ParseSKU(bad); err == nil {
			t.Errorf("ParseSKU(%q) accepted", bad)
		}
	}
}
