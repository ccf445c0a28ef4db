// Package testrepo gives tests a copy of a sample project, and a git
// repository holding one of the example projects under examples/testdata,
// committed on branch main, with the hash of what a heal must leave alone
// in it. It is test support: only _test.go files import it.
package testrepo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Example copies examples/testdata/NAME into DIR/NAME, DIR a fresh
// temporary directory of t, as Copy does, makes it a git repository on
// branch main with one commit ("broken") of every file, and returns its
// path. The examples folder is found by walking up from the test's working
// directory.
func Example(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	Copy(t, exampleDir(t, name), dir)
	output(t, dir, "init", "-q", "-b", "main")
	output(t, dir, "add", "-A")
	output(t, dir, "commit", "-qm", "broken")
	return dir
}

// Copy copies the tree at src into dst, making the folders it needs. A
// file named X.go.input becomes X.go: deliberately unformatted Go sources
// are kept under that name, as gofmt's own tests do, so gofmt -l over this
// module stays clean.
func Copy(t testing.TB, src, dst string) {
	t.Helper()
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
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
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

// output runs git in dir with a fixed identity and no system
// configuration, so what it does does not hang on the machine's git
// set-up, and returns what git printed, trimmed.
func output(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=salve", "GIT_AUTHOR_EMAIL=salve@localhost",
		"GIT_COMMITTER_NAME=salve", "GIT_COMMITTER_EMAIL=salve@localhost", "GIT_CONFIG_NOSYSTEM=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// State hashes everything of the checkout at repo that a heal must leave
// alone: every file outside .git, the index, HEAD, git status, and every
// ref but those named with one of the prefixes in salveRefs (the heal
// branches, say, and the remote-tracking refs a push leaves for them). Two
// equal States mean the user's side of the repository did not change.
func State(t testing.TB, repo string, salveRefs ...string) string {
	t.Helper()
	// git status refreshes the index's stat cache: run it first, so that
	// the index is hashed as git itself leaves it.
	status := output(t, repo, "status", "--porcelain=v2", "--branch")
	h := sha256.New()
	// What cannot be walked is left out of the hash, as it is of the
	// checkout git sees.
	_ = filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			// A file that cannot be read (a dangling link a hostile
			// project planted) hashes as empty, not as a failure.
			b, _ := os.ReadFile(p)
			fmt.Fprintf(h, "%s %x\n", p, sha256.Sum256(b))
		}
		return nil
	})
	for _, f := range []string{"index", "HEAD"} {
		b, _ := os.ReadFile(filepath.Join(repo, ".git", f))
		fmt.Fprintf(h, "%s %x\n", f, sha256.Sum256(b))
	}
	var refs []string
	for _, l := range strings.Split(output(t, repo, "for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		if !hasAnyPrefix(l, salveRefs) {
			refs = append(refs, l)
		}
	}
	sort.Strings(refs)
	fmt.Fprintf(h, "%s\n%s\n", strings.Join(refs, "\n"), status)
	return hex.EncodeToString(h.Sum(nil))
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
