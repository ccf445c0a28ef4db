package slug

import (
	"fmt"
	"testing"
)

func TestMake(t *testing.T) {
	cases := map[string]string{"Hello World": "hello-world", "  Go  1.22 ": "go-1.22"}
	for in, want := range cases {
		if got := Make(in); got != want {
			t.Errorf("Make(%q) = %d, want %q", in, got, want)
		}
	}
}

func Testempty(t *testing.T) {
	if Make("") != "" {
		t.Error("empty title")
	}
}

func ExampleMakes() {
	fmt.Println(Make("Release Notes"))
	// Output: release-notes
}
