package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitguard"
)

// Pin fixes the git directory and the work tree of every git command the
// agent runs, so that git never discovers them from the work tree: a `.git`
// file rewritten by a build (pointing at a git directory with hooks of its
// own) is then never read. salve heal pins each of its worktrees to the git
// directory it recorded when it created the worktree.
type Pin struct {
	// GitDir is the git directory (GIT_DIR), absolute.
	GitDir string
	// WorkTree is the work tree (GIT_WORK_TREE), absolute.
	WorkTree string
}

// Check verifies that both paths are absolute and clean and name existing
// directories that are not symbolic links.
func (p Pin) Check() error {
	for _, f := range []struct{ name, path string }{{"--git-dir", p.GitDir}, {"--work-tree", p.WorkTree}} {
		if f.path == "" {
			return errors.New("--git-dir and --work-tree go together")
		}
		if !filepath.IsAbs(f.path) || filepath.Clean(f.path) != f.path {
			return fmt.Errorf("%s: want an absolute, clean path, got %q", f.name, f.path)
		}
		st, err := os.Lstat(f.path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if !st.IsDir() {
			return fmt.Errorf("%s: %s is not a directory (symbolic links are refused)", f.name, f.path)
		}
	}
	return nil
}

// submoduleIgnore is the --ignore-submodules mode of every status and diff
// the agent runs (git_status and git_diff pass it on the command line
// too). git_branch switches with --quiet, which skips the report of local
// changes (a diff over the submodules).
const submoduleIgnore = gitguard.SubmoduleIgnore

// configArgs returns the "-c" arguments for action: the hardened settings
// of gitguard, the one rule for running git on an untrusted repository,
// with no transport but for git_push, which may reach the remotes
// gitguard.Remote allows (never a remote helper such as ext::).
func configArgs(action string) []string {
	if action == contract.ActionGitPush {
		return gitguard.Args(gitguard.Remote)
	}
	return gitguard.Args(gitguard.Offline)
}

// hardenedEnv is set in git's environment for every command, over what the
// caller passed (gitguard.Env).
var hardenedEnv = gitguard.Env()
