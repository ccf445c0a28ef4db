// Package testdirs keeps the tests that run salve from writing into the
// user's data, state and cache folders: heals keep their worktrees under
// $XDG_DATA_HOME/salve, their records under $XDG_STATE_HOME/salve and their
// builds' cache layers under the user cache folder ($XDG_CACHE_HOME/salve).
package testdirs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Isolate points XDG_DATA_HOME, XDG_STATE_HOME and XDG_CACHE_HOME at a new
// temporary folder for the whole test binary (and the salve processes it
// starts, which inherit them), and returns the function that removes it.
// GOCACHE is pinned first to the Go build cache the user already has, so
// the builds the tests run stay warm. Call it from TestMain.
func Isolate() (cleanup func()) {
	dir, err := os.MkdirTemp("", "salve-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testdirs:", err)
		return func() {}
	}
	if os.Getenv("GOCACHE") == "" {
		if c, err := os.UserCacheDir(); err == nil {
			_ = os.Setenv("GOCACHE", filepath.Join(c, "go-build"))
		}
	}
	for k, sub := range map[string]string{"XDG_DATA_HOME": "data", "XDG_STATE_HOME": "state", "XDG_CACHE_HOME": "cache"} {
		p := dir + "/" + sub
		_ = os.MkdirAll(p, 0o755)
		_ = os.Setenv(k, p)
	}
	return func() { _ = os.RemoveAll(dir) }
}

// Main is the whole TestMain of a package whose tests run salve: it runs
// m's tests under [Isolate], removes the folder, and exits with their
// status.
func Main(m *testing.M) {
	clean := Isolate()
	code := m.Run()
	clean()
	os.Exit(code)
}
