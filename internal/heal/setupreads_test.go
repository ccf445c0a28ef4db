package heal

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// countingGit counts the setup's reads of the user's repository.
type countingGit struct {
	Git
	mu       sync.Mutex
	diffs    int
	branches []string // the refs/heads/ names asked for
	exists   string   // a branch that exists
}

func (g *countingGit) Diff(ctx context.Context, dir string) (string, error) {
	g.mu.Lock()
	g.diffs++
	g.mu.Unlock()
	return g.Git.Diff(ctx, dir)
}

func (g *countingGit) RevParse(ctx context.Context, dir, ref string) (string, error) {
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		g.mu.Lock()
		g.branches = append(g.branches, b)
		g.mu.Unlock()
		if b == g.exists {
			return "c1", nil
		}
	}
	return g.Git.RevParse(ctx, dir, ref)
}

type countingWorktrees struct {
	Worktrees
	mu    sync.Mutex
	lists int
}

func (w *countingWorktrees) List(ctx context.Context, repo string) ([]Worktree, error) {
	w.mu.Lock()
	w.lists++
	w.mu.Unlock()
	return w.Worktrees.List(ctx, repo)
}

// TestSetupTakesReadsHandedIn: reads a caller started (Options.Reads) are
// the setup's own when they are of its repository; of another branch,
// only the branch is asked again; of another repository, all are. Each
// read of a run is made once (the worktree's removal lists the
// worktrees once more: lists counts it).
func TestSetupTakesReadsHandedIn(t *testing.T) {
	const branch = "salve/heal-reads"
	for _, tc := range []struct {
		name          string
		readsRepo     string // "" : the run's; "other": another repository
		readsBranch   string
		exists        string
		lists, diffs  int
		branches      []string
		alreadyExists bool
	}{
		{name: "the run's own", readsBranch: branch, lists: 2, diffs: 1, branches: []string{branch}},
		{name: "another branch", readsBranch: "salve/heal-other", lists: 2, diffs: 1, branches: []string{"salve/heal-other", branch}},
		{name: "the branch unknown then", readsBranch: "", lists: 2, diffs: 1, branches: []string{branch}},
		{name: "another repository", readsRepo: "other", readsBranch: branch, lists: 3, diffs: 2, branches: []string{branch, branch}},
		{name: "the branch exists", readsBranch: branch, exists: branch, lists: 1, diffs: 1, branches: []string{branch}, alreadyExists: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := newRepo(t, map[string]string{"a.x": "fine\n"})
			o, fg := baseOptions(t, repo)
			g := &countingGit{Git: fg, exists: tc.exists}
			w := &countingWorktrees{Worktrees: gitWorktrees{fg}}
			o.Git, o.Worktrees, o.Branch = g, w, branch
			readsRepo := repo
			if tc.readsRepo == "other" {
				readsRepo = newRepo(t, map[string]string{"b.x": "fine\n"})
			}
			o.Reads = StartSetupReads(context.Background(), g, w, readsRepo, tc.readsBranch)
			_, err := Run(context.Background(), o)
			if tc.alreadyExists {
				if err == nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "already exists") {
					t.Fatalf("a heal onto an existing branch: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if w.lists != tc.lists || g.diffs != tc.diffs || strings.Join(g.branches, " ") != strings.Join(tc.branches, " ") {
				t.Errorf("lists %d, diffs %d, branches %q; want %d, %d, %q", w.lists, g.diffs, g.branches, tc.lists, tc.diffs, tc.branches)
			}
		})
	}
}
