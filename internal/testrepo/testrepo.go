// Package testrepo gives tests a git repository holding one of the example
// projects under examples/testdata, committed on branch main. It is test
// support: only _test.go files import it.
package testrepo

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Example copies examples/testdata/NAME into DIR/NAME, DIR a fresh
// temporary directory of t, makes it a git repository on branch main with
// one commit ("broken") of every file, and returns its path. A file named
// X.go.input becomes X.go: deliberately unformatted Go sources are kept
// under that name, as gofmt's own tests do, so gofmt -l over this module
// stays clean. The examples folder is found by walking up from the test's
// working directory.
func Example(t testing.TB, name string) string {
	t.Helper()
	src := exampleDir(t, name)
	dir := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(rel, ".go.input") {
			rel = strings.TrimSuffix(rel, ".input")
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying example %s: %v", name, err)
	}
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "broken")
	return dir
}

// exampleDir is examples/testdata/NAME in the nearest folder at or above
// the working directory that holds it.
func exampleDir(t testing.TB, name string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "examples", "testdata", name)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(dir) == dir {
			t.Fatalf("no examples/testdata/%s at or above %s", name, wd)
		}
	}
}

// git runs git in dir with a fixed identity and no system configuration,
// so the commit does not depend on the machine's git set-up.
func git(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=salve", "GIT_AUTHOR_EMAIL=salve@localhost",
		"GIT_COMMITTER_NAME=salve", "GIT_COMMITTER_EMAIL=salve@localhost", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
