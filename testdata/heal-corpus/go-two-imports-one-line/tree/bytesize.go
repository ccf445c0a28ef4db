// Package bytesize reads and writes human-readable byte sizes such as
// "512", "64KiB" or "10 MB", as configuration files spell them.
package bytesize

import (
	"errors"
	"fmt"
)

// Size is a number of bytes.
type Size int64

// Decimal and binary units.
const (
	B   Size = 1
	KB       = 1000 * B
	MB       = 1000 * KB
	GB       = 1000 * MB
	KiB      = 1024 * B
	MiB      = 1024 * KiB
	GiB      = 1024 * MiB
)

// units are tried longest suffix first, so "KiB" is not read as "B".
var units = []struct {
	suffix string
	size   Size
}{
	{"KiB", KiB}, {"MiB", MiB}, {"GiB", GiB},
	{"KB", KB}, {"MB", MB}, {"GB", GB},
	{"B", B},
}

// ErrSyntax is returned (wrapped) for a size that cannot be read.
var ErrSyntax = errors.New("bytesize: invalid size")

// Parse reads a whole number of units, with an optional unit suffix:
// "4096", "64KiB", "10 MB".
func Parse(s string) (Size, error) {
	num, unit := s, B
	for _, u := range units {
		if len(s) > len(u.suffix) && s[len(s)-len(u.suffix):] == u.suffix {
			num, unit = s[:len(s)-len(u.suffix)], u.size
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %q", ErrSyntax, s)
	}
	return Size(n) * unit, nil
}

// String formats s with the largest binary unit that divides it.
func (s Size) String() string {
	for _, u := range []struct {
		suffix string
		size   Size
	}{{"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}} {
		if s >= u.size && s%u.size == 0 {
			return fmt.Sprintf("%d%s", s/u.size, u.suffix)
		}
	}
	return fmt.Sprintf("%dB", int64(s))
}
