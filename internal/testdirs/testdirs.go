// Package testdirs keeps the tests that run salve from writing into the
// user's data and state folders: heals keep their worktrees under
// $XDG_DATA_HOME/salve and their records under $XDG_STATE_HOME/salve.
package testdirs

import (
	"fmt"
	"os"
)

// Isolate points XDG_DATA_HOME and XDG_STATE_HOME at a new temporary folder
// for the whole test binary (and the salve processes it starts, which
// inherit them), and returns the function that removes it. Call it from
// TestMain.
func Isolate() (cleanup func()) {
	dir, err := os.MkdirTemp("", "salve-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testdirs:", err)
		return func() {}
	}
	for k, sub := range map[string]string{"XDG_DATA_HOME": "data", "XDG_STATE_HOME": "state"} {
		p := dir + "/" + sub
		_ = os.MkdirAll(p, 0o755)
		_ = os.Setenv(k, p)
	}
	return func() { _ = os.RemoveAll(dir) }
}
