package bytesize

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Size{
		"0":     0,
		"4096":  4096,
		"64KiB": 64 * KiB,
		"10 MB": 10 * MB,
		"2GiB":  2 * GiB,
		" 12 B": 12,
	} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", "KiB", "-3", "1.5.2MB", "ten"} {
		if _, err := Parse(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) error = %v, want ErrSyntax", in, err)
		}
	}
}

func TestString(t *testing.T) {
	for s, want := range map[Size]string{3 * GiB: "3GiB", 512 * KiB: "512KiB", 1000: "1000B"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", int64(s), got, want)
		}
	}
}
