package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/gitagent/gittest"
)

// TestMain isolates git from the machine's configuration: HOME and
// XDG_CONFIG_HOME point at an empty directory and the system config is
// off, so only the config written into each test repository applies.
func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	cleanup, err := gittest.Isolate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	return m.Run()
}

// git runs the real git in dir and returns its stdout; it fails the test
// when git fails.
func git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return gittest.Git(tb, GitEnv(), dir, args...)
}

// newRepo creates a repository with one commit of README.md and a.txt on
// branch main, with its own identity in the repository config.
func newRepo(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	git(tb, dir, "init", "-q", "-b", "main")
	git(tb, dir, "config", "user.name", "Salve Test")
	git(tb, dir, "config", "user.email", "test@salve.invalid")
	git(tb, dir, "config", "commit.gpgsign", "false")
	writeFile(tb, dir, "README.md", "# test\n")
	writeFile(tb, dir, "a.txt", "alpha\n")
	git(tb, dir, "add", "--", "README.md", "a.txt")
	git(tb, dir, "commit", "-q", "-m", "initial commit")
	return dir
}

func writeFile(tb testing.TB, dir, name, body string) {
	tb.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func readFile(tb testing.TB, dir, name string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// staged lists the staged paths of the repository.
func staged(tb testing.TB, dir string) []string {
	tb.Helper()
	out := strings.TrimSpace(git(tb, dir, "diff", "--cached", "--name-only", "-z"))
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimRight(out, "\x00"), "\x00")
}
