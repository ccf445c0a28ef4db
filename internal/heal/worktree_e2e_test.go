package heal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/gitagent/gittest"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/testrepo"
)

// TestWorktreeAddAtListedHead is how a heal makes its worktree: the
// listing gives the user's HEAD, the add starts there and answers with the
// worktree's git directory, which is the one the repository's records
// name (what GitDir finds); no request reads either again.
func TestWorktreeAddAtListedHead(t *testing.T) {
	repo := testrepo.Example(t, "go-broken")
	gitAgent, _ := heal.Binaries()
	w := adapter.Worktrees{Git: adapter.Git{Bin: gitAgent}}
	ctx := context.Background()
	list, err := w.List(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(gitIn(t, repo, "rev-parse", "HEAD"))
	if len(list) != 1 || list[0].Head != head {
		t.Fatalf("listing %+v, want the main worktree at %s", list, head)
	}
	// A later commit of the user's: the worktree still starts where the
	// listing said.
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "later")
	wt := filepath.Join(t.TempDir(), "wt")
	gd, err := w.Add(ctx, repo, wt, list[0].Head, "salve heal test")
	if err != nil {
		t.Fatal(err)
	}
	want, err := w.GitDir(ctx, repo, wt)
	if err != nil {
		t.Fatal(err)
	}
	if gd == "" || gd != want {
		t.Errorf("add answered git directory %q, the records name %q", gd, want)
	}
	if got := strings.TrimSpace(gitIn(t, wt, "rev-parse", "HEAD")); got != head {
		t.Errorf("worktree at %s, want the listed %s", got, head)
	}
	if err := w.Remove(ctx, repo, wt); err != nil {
		t.Fatal(err)
	}
}

// gitIn runs the real git in dir, as a user with an identity.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid"}
	return gittest.Git(t, env, dir, args...)
}
