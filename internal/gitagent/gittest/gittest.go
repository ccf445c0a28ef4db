// Package gittest holds what the git agent's tests, client and server
// alike, share: a process isolated from the machine's git configuration,
// and a runner of the real git that fails the test when git does.
package gittest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/sandbox"
)

// Isolate prepares a test process (from TestMain): HOME and
// XDG_CONFIG_HOME point at a new empty folder, the system configuration is
// off, git never looks for a repository above that folder, and the
// variables that would point git or salve elsewhere are unset, so only the
// configuration written into each test repository applies. cleanup removes
// the folder.
func Isolate() (cleanup func(), err error) {
	home, err := os.MkdirTemp("", "gitagent-home-")
	if err != nil {
		return nil, err
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_CEILING_DIRECTORIES": filepath.Dir(home),
	} {
		os.Setenv(k, v)
	}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "SALVE_REGISTRY_DB", "XDG_DATA_HOME"} {
		os.Unsetenv(k)
	}
	return func() { os.RemoveAll(home) }, nil
}

// Git runs the real git in dir with env and returns its stdout; it fails
// tb when git fails.
func Git(tb testing.TB, env []string, dir string, args ...string) string {
	tb.Helper()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "git", Args: append([]string{"-C", dir}, args...), Env: env,
	})
	if err != nil {
		tb.Fatalf("git %v: %v", args, err)
	}
	if res.ExitCode != 0 {
		tb.Fatalf("git %v: exit %d: %s", args, res.ExitCode, res.Stderr)
	}
	return string(res.Stdout)
}
