package textwrap

import (
	"reflect"
	"testing"
)

func TestWrap(t *testing.T) {
	cases := []struct {
		in    string
		width int
		want  []string
	}{
		{"the quick brown fox", 10, []string{"the quick", "brown fox"}},
		{"a verylongword b", 4, []string{"a", "verylongword", "b"}},
		{"", 5, nil},
	}
	var longest int
	for _, c := range cases {
		got := Wrap(c.in, c.width)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
	longest = 0
}
