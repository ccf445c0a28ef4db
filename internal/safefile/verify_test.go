package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSameRegular checks the guard Windows relies on (it runs everywhere):
// the opened file must be regular and the one the check by name saw.
func TestSameRegular(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte(p), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stA, err := os.Lstat(a)
	if err != nil {
		t.Fatal(err)
	}
	stB, err := os.Lstat(b)
	if err != nil {
		t.Fatal(err)
	}
	stDir, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		open   string
		before os.FileInfo
		ok     bool
	}{
		{"the file checked", a, stA, true},
		{"no check by name", a, nil, true},
		{"another file took the name", a, stB, false},
		{"a directory", dir, stDir, false},
		{"a directory, no check by name", dir, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(tc.open)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			err = sameRegular(tc.open, tc.before, f)
			if tc.ok != (err == nil) {
				t.Fatalf("sameRegular = %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrNotRegular) {
				t.Fatalf("sameRegular = %v, does not wrap ErrNotRegular", err)
			}
		})
	}
}
