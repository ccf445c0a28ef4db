package gitagent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/gitagent/gittest"
	"github.com/salve-dev/salve/internal/gitagent/server"
	"github.com/salve-dev/salve/internal/sandbox"
)

// TestMain plays a fake agent when asked to (see fakeAgents), and otherwise
// isolates git from the machine's configuration: only the config written
// into each test repository applies.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if code, ok := runHelper(); ok {
		return code
	}
	// Build before HOME changes, so go finds its build and module caches.
	bin, err := buildAgent()
	if err != nil {
		fmt.Fprintln(os.Stderr, "build git_agent:", err)
		return 1
	}
	defer os.RemoveAll(filepath.Dir(bin))
	agentBin = bin
	cleanup, err := gittest.Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	return m.Run()
}

// agentBin is the git_agent binary built by TestMain.
var agentBin string

// buildAgent builds cmd/git_agent into a new temporary directory.
func buildAgent() (string, error) {
	dir, err := os.MkdirTemp("", "gitagent-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "git_agent")
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "go", Args: []string{"build", "-o", bin, "github.com/salve-dev/salve/cmd/git_agent"},
		Env: os.Environ(), Combined: true,
	})
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("go build: exit %d: %s", res.ExitCode, res.Stdout)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return bin, nil
}

// git runs the real git in dir and returns its stdout; it fails the test
// when git fails.
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return gittest.Git(tb, server.GitEnv(), dir, args...)
}

// newRepo creates a repository with one commit of a.txt on branch main,
// with its own identity in the repository config.
func newRepo(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "repo")
	git(tb, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	git(tb, dir, "config", "user.name", "Salve Test")
	git(tb, dir, "config", "user.email", "test@salve.invalid")
	git(tb, dir, "config", "commit.gpgsign", "false")
	writeFile(tb, dir, "a.txt", "alpha\n")
	git(tb, dir, "add", "--", "a.txt")
	git(tb, dir, "commit", "-q", "-m", "initial commit")
	return dir
}

func writeFile(tb testing.TB, dir, name, body string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func readFile(tb testing.TB, dir, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
