// Package bytesize reads and writes human byte sizes ("1.5MB", "64KiB").
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is a number of bytes.
type Size int64

var units = []struct {
	suffix string
	mult   Size
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"B", 1},
}

// ParseSize reads s, a number followed by an optional unit.
func ParseSize(s string) (Size, error) {
	s = strings.TrimSpace(s)
	mult := Size(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("bytesize: bad size %q", s)
	}
	return Size(f * float64(mult)), nil
}

// String renders the size with the largest binary unit that keeps it at
// least 1.
func (s Size) String() string {
	for _, u := range units[:3] {
		if s >= u.mult*1024 {
			continue
		}
		if s >= u.mult {
			return strconv.FormatFloat(float64(s)/float64(u.mult), 'f', 1, 64) + u.suffix
		}
	}
	if s >= 1<<30 {
		return strconv.FormatFloat(float64(s)/(1<<30), 'f', 1, 64) + "GiB"
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}
