package sandbox

import (
	"errors"
	"testing"
)

func TestBwrapSystem(t *testing.T) {
	for _, tc := range []struct {
		goos string
		ok   bool
	}{
		{"linux", true},
		{"darwin", false},
		{"windows", false},
		{"freebsd", false},
	} {
		err := bwrapSystem(tc.goos)
		if tc.ok != (err == nil) {
			t.Errorf("bwrapSystem(%q) = %v, want ok %v", tc.goos, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBackendUnavailable) {
			t.Errorf("bwrapSystem(%q) = %v, does not wrap ErrBackendUnavailable", tc.goos, err)
		}
	}
}
