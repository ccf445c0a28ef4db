package server

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// buildGitAgent builds cmd/git_agent into a temporary folder.
func buildGitAgent(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "git_agent")
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "go", Args: []string{"build", "-o", bin, "github.com/salve-dev/salve/cmd/git_agent"},
		Env: os.Environ(), Combined: true, Timeout: 10 * time.Minute,
	})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("build git_agent: %v %s", err, res.Stdout)
	}
	return bin
}

// plantedSubmodule makes a repository with a submodule "sub" whose own
// configuration (.git/modules/sub/config) defines filter.evil.clean as a
// command that creates the returned marker file, and whose work tree has
// a .gitattributes applying that filter to every file. The superproject's
// .gitmodules says "ignore = none", which overrides a diff.ignoreSubmodules
// setting. The superproject also has a branch "other".
func plantedSubmodule(t *testing.T) (top, marker string) {
	t.Helper()
	base := t.TempDir()
	marker = filepath.Join(base, "filter-ran")
	sub := filepath.Join(base, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, sub, "init", "-q", "-b", "main")
	git(t, sub, "config", "user.name", "Salve Test")
	git(t, sub, "config", "user.email", "test@salve.invalid")
	writeFile(t, sub, "f.txt", "x\n")
	git(t, sub, "add", "--", "f.txt")
	git(t, sub, "commit", "-q", "-m", "sub")
	top = newRepo(t)
	git(t, top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "--", sub, "sub")
	git(t, top, "config", "-f", ".gitmodules", "submodule.sub.ignore", "none")
	git(t, top, "add", "--", ".gitmodules")
	git(t, top, "commit", "-q", "-m", "add sub")
	git(t, top, "branch", "other")
	in := filepath.Join(top, "sub")
	git(t, in, "config", "filter.evil.clean", "touch '"+marker+"'; cat")
	writeFile(t, in, ".gitattributes", "* filter=evil\n")
	return top, marker
}

// touchSub gives the submodule's tracked file a new modification time (its
// content and size unchanged), so a status in the submodule must read it
// again through the clean filter.
func touchSub(t *testing.T, top string, n int) {
	t.Helper()
	when := time.Date(2001, 1, 1, 0, 0, n, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(top, "sub", "f.txt"), when, when); err != nil {
		t.Fatal(err)
	}
}

func exists(t *testing.T, p string) bool {
	t.Helper()
	_, err := os.Lstat(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// TestSubmoduleFilterNeverRuns plants a submodule whose own configuration
// defines a clean filter (a program of the repository's choosing) and runs
// git_status, git_diff and git_branch through the real git_agent binary,
// plain and pinned with --git-dir and --work-tree: the filter never runs.
// A plain "git status" runs it, which shows the trap is armed.
//
// On main before the fix, git_status and git_diff ran the filter: git's
// check of a submodule's work tree runs a status inside the submodule,
// which reads the submodule's configuration.
func TestSubmoduleFilterNeverRuns(t *testing.T) {
	bin := buildGitAgent(t)
	top, marker := plantedSubmodule(t)
	touchSub(t, top, 0)
	git(t, top, "status")
	if !exists(t, marker) {
		t.Fatal("plain git status did not run the planted filter: the test shows nothing on this git")
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	n := 1
	for _, pin := range []struct {
		name string
		args []string
	}{
		{"plain", []string{"-C", top}},
		{"pinned", []string{"--git-dir", filepath.Join(top, ".git"), "--work-tree", top}},
	} {
		for _, tc := range []struct{ action, payload string }{
			{"git_status", `{}`},
			{"git_diff", `{}`},
			{"git_diff", `{"files":["sub"]}`},
			{"git_branch", `{"branch":"other"}`},
			{"git_branch", `{"branch":"main"}`},
		} {
			t.Run(pin.name+"/"+tc.action+tc.payload, func(t *testing.T) {
				touchSub(t, top, n)
				n++
				defer os.Remove(marker) // each action shows its own result
				res, err := sandbox.Run(context.Background(), sandbox.Cmd{
					Path: bin, Args: append(append([]string{}, pin.args...), "--no-register"),
					Env: GitEnv(), Stdin: strings.NewReader(request(tc.action, tc.payload)),
				})
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("git_agent: %v, exit %d: %s", err, res.ExitCode, res.Stderr)
				}
				var resp contract.ActionResponse
				if err := json.Unmarshal(res.Stdout, &resp); err != nil || resp.Status != contract.StatusSuccess {
					t.Fatalf("response %s (%v)", res.Stdout, err)
				}
				if exists(t, marker) {
					t.Fatalf("%s ran the submodule's clean filter", tc.action)
				}
			})
		}
	}
}
