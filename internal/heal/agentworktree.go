package heal

import (
	"context"
	"fmt"
	"strings"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/gitagent"
)

// AgentWorktrees implements Worktrees through the git agent's git_worktree
// action (salve's documented v1 extension), so heal never runs git itself.
type AgentWorktrees struct {
	Git AgentGit
}

var (
	_ Worktrees    = AgentWorktrees{}
	_ GitDirFinder = AgentWorktrees{}
)

func (w AgentWorktrees) do(ctx context.Context, repo string, cmd contract.GitAgentCommandV1) (string, error) {
	cmd.Type = gitagent.ActionGitWorktree
	out, err := w.Git.Do(ctx, repo, cmd)
	if err != nil {
		return "", fmt.Errorf("worktree %s: %w", cmd.Ref, err)
	}
	return out, nil
}

// Add creates a locked worktree at path on a new branch at HEAD.
func (w AgentWorktrees) Add(ctx context.Context, repo, path, branch, reason string) error {
	_, err := w.do(ctx, repo, contract.GitAgentCommandV1{Ref: gitagent.WorktreeAdd, Files: []string{path}, Branch: branch, StartPoint: "HEAD", Message: &reason})
	return err
}

// GitDir returns the git directory of the worktree at path, found from the
// repository's records (git_worktree gitdir), never from path/.git.
func (w AgentWorktrees) GitDir(ctx context.Context, repo, path string) (string, error) {
	out, err := w.do(ctx, repo, contract.GitAgentCommandV1{Ref: gitagent.WorktreeGitDir, Files: []string{path}})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(out, "\r\n"), nil
}

// Remove removes the worktree at path, even locked; when its folder had
// already gone, it prunes the stale entry instead. A .git file that a
// build rewrote is put back first, so git recognises its own worktree.
func (w AgentWorktrees) Remove(ctx context.Context, repo, path string) error {
	if gd, err := w.GitDir(ctx, repo, path); err == nil {
		_, _ = restoreGitFile(path, gd)
	}
	_, err := w.do(ctx, repo, contract.GitAgentCommandV1{Ref: gitagent.WorktreeRemove, Files: []string{path}})
	if err == nil {
		return nil
	}
	if _, perr := w.do(ctx, repo, contract.GitAgentCommandV1{Ref: gitagent.WorktreePrune}); perr != nil {
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

// List returns the repository's worktrees, the main one first.
func (w AgentWorktrees) List(ctx context.Context, repo string) ([]Worktree, error) {
	out, err := w.do(ctx, repo, contract.GitAgentCommandV1{Ref: gitagent.WorktreeList})
	if err != nil {
		return nil, err
	}
	return ParseWorktreeList(out), nil
}
