// Package golden compares a test's output with a file under testdata.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Equal fails t when got differs from testdata/name.golden.
func Equal(t testing.TB, name, got string) {
	path := filepath.Join("testdata", name+".golden")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file: %v", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from its golden file:\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}
