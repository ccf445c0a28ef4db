package heal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// bwrapUsable reports whether bubblewrap is installed and can make a
// sandbox here (containers often forbid user namespaces).
func bwrapUsable() bool {
	if _, err := exec.LookPath("bwrap"); err != nil {
		return false
	}
	return exec.Command("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true").Run() == nil
}

// attackScript is a hostile build step, committed in the repository as a
// stranger's pull request could: it makes a git directory of its own with
// an fsmonitor hook and a hooks folder that write to marker, then points
// the worktree's .git file at it. Any git command that trusts the .git
// file runs the hooks, outside the sandbox.
// With asDir, the build replaces .git by that git directory itself.
func attackScript(marker string, asDir bool) string {
	// Inside a sandbox the swap fails (.git is read-only there): quietly,
	// so that the build's log stays a build log.
	swap := `{ printf 'gitdir: %s\n' "$top/evil/.git" > "$top/.git"; } 2>/dev/null`
	if asDir {
		swap = `[ -d "$top/.git" ] || { rm -f "$top/.git" && cp -R "$top/evil/.git" "$top/.git"; } 2>/dev/null`
	}
	return fmt.Sprintf(`#!/bin/sh
top=$(pwd)
if [ ! -d "$top/evil/.git" ]; then
  git init -q "$top/evil" || exit 9
  mkdir -p "$top/evil/hooks"
  printf '#!/bin/sh\necho escaped "$0" >> %[1]q\nexit 0\n' > "$top/evil/hook.sh"
  chmod +x "$top/evil/hook.sh"
  for h in pre-commit prepare-commit-msg commit-msg post-commit post-index-change pre-push reference-transaction post-checkout; do
    cp "$top/evil/hook.sh" "$top/evil/hooks/$h"
  done
  git -C "$top/evil" config core.fsmonitor "$top/evil/hook.sh"
  git -C "$top/evil" config core.hooksPath "$top/evil/hooks"
  git -C "$top/evil" config diff.external "$top/evil/hook.sh"
fi
%[2]s
exit 0
`, marker, swap)
}

// TestGitEscapeThroughWorktree runs the real salve binary on a repository
// whose build rewrites the heal worktree's .git file to a git directory
// with hooks (issue 11, finding 1): the hooks must never run, heal must not
// report a commit that is not on the heal branch of the user's repository,
// and the user's checkout must stay byte-identical.
func TestGitEscapeThroughWorktree(t *testing.T) {
	need(t, "sh", "cc", "make")
	gitIdentity(t)
	for _, tc := range []struct {
		iso   string
		asDir bool
	}{{"none", false}, {"bwrap", false}, {"none", true}, {"bwrap", true}} {
		iso := tc.iso
		name := iso + "/gitfile"
		if tc.asDir {
			name = iso + "/gitdir"
		}
		t.Run(name, func(t *testing.T) {
			if iso == "bwrap" && !bwrapUsable() {
				t.Skip("bwrap is not installed or cannot create a sandbox here")
			}
			marker := filepath.Join(t.TempDir(), "escaped")
			repo := testrepo.Example(t, "c-broken")
			if err := os.WriteFile(filepath.Join(repo, "attack.sh"), []byte(attackScript(marker, tc.asDir)), 0o755); err != nil {
				t.Fatal(err)
			}
			run(t, repo, "git", "add", "attack.sh")
			run(t, repo, "git", "commit", "-qm", "a hostile build step")
			before := userState(t, repo)
			res, out := healJSON(t, repo, "--isolation", iso, "--cmd", "sh attack.sh && make")
			if b, err := os.ReadFile(marker); err == nil {
				t.Fatalf("a hook planted by the build ran outside the sandbox: %s\nstderr: %s", b, out)
			}
			if after := userState(t, repo); after != before {
				t.Error("the user's work tree, index or branches changed")
			}
			checkCommitsOnBranch(t, repo, res)
			// The rewritten .git was put back and never used: the fix
			// is committed on the user's heal branch, and the run says
			// what the build did.
			if res == nil || res.Outcome != results.OutcomeGreen || len(res.Commits) != 1 {
				t.Fatalf("want green with 1 commit on the user's branch, got %+v\nstderr: %s", res, out)
			}
			// Without a sandbox the build rewrote .git and the run says
			// so; in one, .git is read-only and the rewrite failed.
			if iso == "none" && !strings.Contains(strings.Join(res.Warnings, "\n"), ".git") {
				t.Errorf("no warning about the rewritten .git: %q", res.Warnings)
			}
			// The heal's worktree is gone from the repository: only the
			// user's own remains (the heal branch is free to check out).
			if list := worktreeList(repo); strings.Count(list, "worktree ") != 1 || strings.Contains(list, "salve") {
				t.Errorf("worktrees after the heal:\n%s", list)
			}
		})
	}
}

// healCLI runs `salve heal --json` on repo with args and returns the
// decoded results (nil when none were printed) and stderr.
func healJSON(t *testing.T, repo string, args ...string) (*results.Results, string) {
	t.Helper()
	gitAgent, salve := heal.Binaries()
	env := sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM"),
		map[string]string{"SALVE_GIT_AGENT": gitAgent, "TMPDIR": t.TempDir(), "SALVE_LOG_FORMAT": "json", "XDG_DATA_HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir()})
	full := append([]string{"heal", "--workspace", repo, "--no-store", "--json", "--results", filepath.Join(t.TempDir(), "results.json")}, args...)
	r, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: full, Env: env, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatalf("salve heal: %v", err)
	}
	res, _ := decodeResults(r.Stdout)
	return res, string(r.Stderr)
}

// decodeResults decodes results.json as printed by --json.
func decodeResults(b []byte) (*results.Results, error) {
	var res results.Results
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// checkCommitsOnBranch fails when res reports a commit that is not on the
// heal branch of the user's repository, or a head that is not the branch's.
func checkCommitsOnBranch(t *testing.T, repo string, res *results.Results) {
	t.Helper()
	if res == nil || len(res.Commits) == 0 {
		return
	}
	tip, err := exec.Command("git", "-C", repo, "rev-parse", "--verify", "refs/heads/"+res.Branch).Output()
	if err != nil {
		t.Fatalf("heal reports %d commits but the branch %s is not in the user's repository (outcome %s)", len(res.Commits), res.Branch, res.Outcome)
	}
	if got := strings.TrimSpace(string(tip)); got != res.HeadCommit {
		t.Errorf("heal reports head %s, the user's branch %s is at %s", res.HeadCommit, res.Branch, got)
	}
	for _, c := range res.Commits {
		if err := exec.Command("git", "-C", repo, "merge-base", "--is-ancestor", c.Hash, "refs/heads/"+res.Branch).Run(); err != nil {
			t.Errorf("reported commit %s is not on %s of the user's repository", c.Hash, res.Branch)
		}
	}
}
