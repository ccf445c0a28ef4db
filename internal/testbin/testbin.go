// Package testbin runs a package's tests with a folder for the programs
// they build and with the user's data folders out of reach. It is test
// support: only _test.go files import it.
package testbin

import (
	"fmt"
	"os"
	"testing"

	"github.com/salve-dev/salve/internal/testdirs"
)

// Main is a TestMain: it makes a fresh temporary folder (its name starting
// with prefix) for the programs the tests build and sets *binDir to it,
// isolates the data folders as testdirs.Isolate does, runs the tests,
// removes both, and exits with the tests' code.
func Main(m *testing.M, prefix string, binDir *string) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*binDir = dir
	clean := testdirs.Isolate()
	code := m.Run()
	clean()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
