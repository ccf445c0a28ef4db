package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/salve-dev/salve/contract"
)

// ActionGitWorktree manages linked worktrees (salve's documented v1
// extension, used by salve heal to work away from the user's checkout).
// Its payload reuses the canonical command fields:
//
//	ref          the operation: "add", "remove", "list" or "prune"
//	files        [path] of the worktree, absolute (add and remove)
//	branch       the new branch the worktree checks out (add)
//	start_point  the commit it starts at (add; default HEAD)
//	message      the lock reason (add): the worktree is created locked
//
// "remove" forces the removal of a locked worktree (git worktree remove
// -f -f). "list" returns `git worktree list --porcelain`.
const ActionGitWorktree = "git_worktree"

// Worktree operations of [ActionGitWorktree].
const (
	WorktreeAdd    = "add"
	WorktreeRemove = "remove"
	WorktreeList   = "list"
	WorktreePrune  = "prune"
)

var worktreeSpec = actionSpec{
	name:   ActionGitWorktree,
	doc:    "manage linked worktrees: ref add (files [path], branch, start_point, message = lock reason), remove, list, prune",
	fields: []string{"ref", "files", "branch", "start_point", "message"},
	check:  checkWorktree,
	build:  buildWorktree,
}

func checkWorktree(cmd *contract.GitAgentCommandV1) error {
	switch cmd.Ref {
	case WorktreeList, WorktreePrune:
		return nil
	case WorktreeAdd, WorktreeRemove:
	default:
		return fmt.Errorf("ref: want add, remove, list or prune, got %q", cmd.Ref)
	}
	if len(cmd.Files) != 1 {
		return errors.New("files: want exactly one worktree path")
	}
	p := cmd.Files[0]
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return fmt.Errorf("files[0]: want an absolute, clean path, got %q", p)
	}
	if cmd.Ref == WorktreeRemove {
		return nil
	}
	if err := checkRefName(cmd.Branch); err != nil {
		return fmt.Errorf("branch: %w", err)
	}
	if cmd.StartPoint == "" {
		cmd.StartPoint = "HEAD"
	}
	if err := checkRev(cmd.StartPoint); err != nil {
		return fmt.Errorf("start_point: %w", err)
	}
	if cmd.Message != nil && strings.ContainsAny(*cmd.Message, "\x00\n") {
		return errors.New("message: the lock reason must be one line")
	}
	return nil
}

func buildWorktree(cmd contract.GitAgentCommandV1, _ []string) ([]string, string) {
	switch cmd.Ref {
	case WorktreeList:
		return []string{"worktree", "list", "--porcelain"}, ""
	case WorktreePrune:
		return []string{"worktree", "prune"}, ""
	case WorktreeRemove:
		return []string{"worktree", "remove", "--force", "--force", "--", cmd.Files[0]}, ""
	}
	args := []string{"worktree", "add"}
	if cmd.Message != nil {
		args = append(args, "--lock", "--reason="+*cmd.Message)
	}
	return append(args, "-b", cmd.Branch, "--", cmd.Files[0], cmd.StartPoint), ""
}
