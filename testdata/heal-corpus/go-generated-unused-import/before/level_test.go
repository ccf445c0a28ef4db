package level

import "testing"

func TestString(t *testing.T) {
	if got := Warn.String(); got != "Warn" {
		t.Errorf("Warn.String() = %q", got)
	}
	if got := Level(7).String(); got != "Level(7)" {
		t.Errorf("Level(7).String() = %q", got)
	}
}

func TestParseLevel(t *testing.T) {
	l, err := ParseLevel("error")
	if err != nil || l != Error {
		t.Errorf("ParseLevel(error) = %v, %v", l, err)
	}
	if _, err := ParseLevel("loud"); err == nil {
		t.Error("ParseLevel accepted loud")
	}
}
