package sku

import "testing"

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"toy-42": "TOY-00042", " BOOK-7 ": "BOOK-00007"} {
		s, err := Parse(in)
		if err != nil || s.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, s, err, want)
		}
	}
	for _, bad := range []string{"", "toy", "-1", "toy-x", "toy--3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
