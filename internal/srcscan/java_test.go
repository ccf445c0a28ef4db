package srcscan

import "testing"

func TestStripJava(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"int a; // List b\nint c;", "int a;          \nint c;"},
		{"x /* Map\n y */ z", "x       \n      z"},
		{`s = "a \" List"; c = 'x';`, `s = "         "; c = ' ';`},
		{"no comments", "no comments"},
	} {
		if got := StripJava(tc.in); got != tc.want || len(got) != len(tc.in) {
			t.Errorf("StripJava(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
