package slug

import "testing"

func TestMake(t *testing.T) {
	cases := map[string]string{
		"Hello, World!":   "hello-world",
		"  Release 1.2  ": "release-12",
		"Ünïcode Tïtle":   "ünïcode-tïtle",
	}
	for in, want := range cases {
		if got := Make(in); got != want {
			t.Errorf("Make(%q) = %d, want %q", in, got, want)
		}
	}
}
