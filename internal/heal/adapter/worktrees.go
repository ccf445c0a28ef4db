package adapter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent"
	"github.com/salve-dev/salve/internal/heal"
)

// Worktrees implements heal.Worktrees through the git agent's git_worktree
// action (salve's documented v1 extension), so heal never runs git itself.
type Worktrees struct {
	Git Git
}

var _ heal.Worktrees = Worktrees{}

func (w Worktrees) do(ctx context.Context, repo, ref string, cmd contract.GitAgentCommandV1) (string, error) {
	out, err := w.Git.worktree(ctx, repo, ref, cmd)
	if err != nil {
		return "", fmt.Errorf("worktree %s: %w", ref, err)
	}
	return out, nil
}

// Add creates a locked worktree at path, detached at start (empty: HEAD),
// and returns its git directory as the agent found it in the repository's
// records right after the add ("" when it did not say).
func (w Worktrees) Add(ctx context.Context, repo, path, start, reason string) (string, error) {
	if start == "" {
		start = "HEAD"
	}
	cmd := contract.GitAgentCommandV1{Type: gitagent.ActionGitWorktree, Ref: gitagent.WorktreeAdd, Files: []string{path}, StartPoint: start, Message: &reason}
	resp, err := w.Git.client(repo).Do(ctx, cmd)
	if errors.Is(err, gitagent.ErrAgentUnavailable) {
		err = fmt.Errorf("%w: %w", heal.ErrEnvironment, err)
	}
	if err != nil {
		return "", fmt.Errorf("worktree %s: %w", gitagent.WorktreeAdd, err)
	}
	gd, _ := resp.Result.Metadata[gitagent.MetaGitDir].(string)
	return gd, nil
}

// GitDir returns the git directory of the worktree at path, found from the
// repository's records (git_worktree gitdir), never from path/.git.
func (w Worktrees) GitDir(ctx context.Context, repo, path string) (string, error) {
	out, err := w.do(ctx, repo, gitagent.WorktreeGitDir, contract.GitAgentCommandV1{Files: []string{path}})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(out, "\r\n"), nil
}

// Pin returns the Git of the worktree at workTree whose git directory is
// gitDir: every action pinned to both (git_agent --git-dir/--work-tree).
func (w Worktrees) Pin(workTree, gitDir string) heal.WorktreeGit {
	g := w.Git
	g.GitDir, g.WorkTree = gitDir, workTree
	return g
}

// Remove removes the worktree at path, even locked; when its folder had
// already gone, it prunes the stale entry instead. A .git file that a
// build rewrote is put back first, so git recognises its own worktree.
func (w Worktrees) Remove(ctx context.Context, repo, path string) error {
	gd, _ := w.GitDir(ctx, repo, path)
	return w.RemoveKnown(ctx, repo, path, gd)
}

// RemoveKnown is Remove of the worktree at path whose git directory is
// gitDir (empty: unknown, the .git file is left as it is).
func (w Worktrees) RemoveKnown(ctx context.Context, repo, path, gitDir string) error {
	if gitDir != "" {
		_, _ = heal.RestoreGitFile(path, gitDir)
	}
	_, err := w.do(ctx, repo, gitagent.WorktreeRemove, contract.GitAgentCommandV1{Files: []string{path}})
	if err == nil {
		return nil
	}
	if perr := w.Prune(ctx, repo); perr != nil {
		return fmt.Errorf("%w (prune: %w)", err, perr)
	}
	list, lerr := w.List(ctx, repo)
	if lerr != nil {
		return err
	}
	for _, x := range list {
		if x.Path == path {
			return err
		}
	}
	return nil
}

// Prune drops the records of worktrees whose folder is gone (unlocked
// ones: git keeps locked records).
func (w Worktrees) Prune(ctx context.Context, repo string) error {
	_, err := w.do(ctx, repo, gitagent.WorktreePrune, contract.GitAgentCommandV1{})
	return err
}

// List returns the repository's worktrees, the main one first.
func (w Worktrees) List(ctx context.Context, repo string) ([]heal.Worktree, error) {
	out, err := w.do(ctx, repo, gitagent.WorktreeList, contract.GitAgentCommandV1{})
	if err != nil {
		return nil, err
	}
	return heal.ParseWorktreeList(out), nil
}
