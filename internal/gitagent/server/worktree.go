package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
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
//
// "gitdir" (files [path]) returns the absolute git directory of the
// worktree at path, found from the repository's own records
// (<common dir>/worktrees/*/gitdir), never from the worktree's .git file,
// which whatever runs in the worktree can rewrite. salve heal records it
// when it creates a worktree and pins every later git command to it.
//
// An "add" without a branch creates a detached worktree (--detach).
//
// Three operations serve a worktree that is reused (salve heal keeps one
// per repository); they run in the agent's work tree, which salve pins
// with --git-dir and --work-tree:
//
//	reset   start_point (required): git checkout --force --detach START --
//	clean   git clean -ffdx (untracked and ignored files, nested repositories)
//	untracked git ls-files -z --others --directory: every file and folder
//	        git does not track, ignored ones included (no exclude rules);
//	        empty after a clean
//	gitlinks the paths of the index's submodule entries (mode 160000),
//	        whose folders git clean does not enter, NUL-terminated: from
//	        git ls-files -z --stage, filtered by the agent
//	detach  start_point (required): git update-ref --no-deref HEAD START,
//	        which leaves the branch without reading the work tree (START is
//	        HEAD's commit, so index and files already match it)
const ActionGitWorktree = "git_worktree"

// Worktree operations of [ActionGitWorktree].
const (
	WorktreeAdd       = "add"
	WorktreeRemove    = "remove"
	WorktreeList      = "list"
	WorktreePrune     = "prune"
	WorktreeGitDir    = "gitdir"
	WorktreeReset     = "reset"
	WorktreeClean     = "clean"
	WorktreeUntracked = "untracked"
	WorktreeDetach    = "detach"
	WorktreeGitlinks  = "gitlinks"
)

var worktreeSpec = actionSpec{
	name:   ActionGitWorktree,
	doc:    "manage linked worktrees: ref add (files [path], branch, start_point, message = lock reason), remove, list, prune, gitdir; reset (start_point), clean, status of the work tree",
	fields: []string{"ref", "files", "branch", "start_point", "message"},
	check:  checkWorktree,
	build:  buildWorktree,
}

func checkWorktree(cmd *contract.GitAgentCommandV1) error {
	switch cmd.Ref {
	case WorktreeList, WorktreePrune, WorktreeClean, WorktreeUntracked, WorktreeGitlinks:
		return nil
	case WorktreeReset, WorktreeDetach:
		if cmd.StartPoint == "" {
			return errors.New("start_point: required")
		}
		if err := checkRev(cmd.StartPoint); err != nil {
			return fmt.Errorf("start_point: %w", err)
		}
		return nil
	case WorktreeAdd, WorktreeRemove, WorktreeGitDir:
	default:
		return fmt.Errorf("ref: want add, remove, list, prune, gitdir, reset, clean, untracked, gitlinks or detach, got %q", cmd.Ref)
	}
	if len(cmd.Files) != 1 {
		return errors.New("files: want exactly one worktree path")
	}
	p := cmd.Files[0]
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return fmt.Errorf("files[0]: want an absolute, clean path, got %q", p)
	}
	if cmd.Ref == WorktreeRemove || cmd.Ref == WorktreeGitDir {
		return nil
	}
	if cmd.Branch != "" {
		if err := checkRefName(cmd.Branch); err != nil {
			return fmt.Errorf("branch: %w", err)
		}
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
	case WorktreeReset:
		return []string{"checkout", "--quiet", "--force", "--detach", cmd.StartPoint, "--"}, ""
	case WorktreeClean:
		return []string{"clean", "-ffdxq"}, ""
	case WorktreeGitlinks:
		return []string{"ls-files", "-z", "--stage"}, ""
	case WorktreeDetach:
		return []string{"update-ref", "--no-deref", "-m", "salve heal: release the worktree", "HEAD", cmd.StartPoint}, ""
	case WorktreeUntracked:
		return []string{"ls-files", "-z", "--others", "--directory"}, ""
	case WorktreeRemove:
		return []string{"worktree", "remove", "--force", "--force", "--", cmd.Files[0]}, ""
	}
	args := []string{"worktree", "add"}
	if cmd.Message != nil {
		args = append(args, "--lock", "--reason="+*cmd.Message)
	}
	if cmd.Branch == "" {
		return append(args, "--detach", "--", cmd.Files[0], cmd.StartPoint), ""
	}
	return append(args, "-b", cmd.Branch, "--", cmd.Files[0], cmd.StartPoint), ""
}

// worktreeGitlinks answers the "gitlinks" operation: git lists the whole
// index, the agent keeps the submodule entries, so the response stays
// small on a large repository.
func (a *Runner) worktreeGitlinks(ctx context.Context, dir string) contract.ActionResult {
	res := a.result(a.git(ctx, ActionGitWorktree, dir, false, []string{"ls-files", "-z", "--stage"}, ""))
	if res.OutputType != contract.OutputText {
		return res
	}
	var b strings.Builder
	for _, rec := range strings.Split(res.Data, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		if ok && strings.HasPrefix(meta, "160000 ") {
			b.WriteString(path)
			b.WriteByte(0)
		}
	}
	return textResult(b.String(), nil)
}

// MetaGitDir is the key of the metadata of a successful "add": the git
// directory of the new worktree, found from the repository's records as
// the "gitdir" operation finds it. It is absent when the lookup failed
// after the add; the caller then asks with "gitdir".
const MetaGitDir = "gitdir"

// worktreeAdd answers the "add" operation: git adds the worktree, then the
// agent finds its git directory from the repository's records, as "gitdir"
// would, and returns it in the metadata, which saves the caller a second
// request.
func (a *Runner) worktreeAdd(ctx context.Context, dir, path string, args []string) contract.ActionResult {
	res := a.result(a.git(ctx, ActionGitWorktree, dir, false, args, ""))
	if res.OutputType != contract.OutputText {
		return res
	}
	if gd := a.worktreeGitDir(ctx, dir, path); gd.OutputType == contract.OutputText {
		if res.Metadata == nil {
			res.Metadata = map[string]any{}
		}
		res.Metadata[MetaGitDir] = strings.TrimRight(gd.Data, "\r\n")
	}
	return res
}

// worktreeGitDir answers the "gitdir" operation: it asks git for the
// repository's common directory (in dir, the repository), then finds the
// entry of <common>/worktrees whose gitdir file names path/.git.
func (a *Runner) worktreeGitDir(ctx context.Context, dir, path string) contract.ActionResult {
	run := a.git(ctx, "", dir, false, []string{"rev-parse", "--path-format=absolute", "--git-common-dir"}, "")
	res := a.result(run)
	if res.OutputType != contract.OutputText {
		return res
	}
	common := strings.TrimRight(res.Data, "\r\n")
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return failure(KindInternal, fmt.Sprintf("read the worktrees of %s: %v", common, err), nil)
	}
	want := map[string]bool{filepath.Join(path, ".git"): true}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		want[filepath.Join(real, ".git")] = true
	}
	for _, e := range entries {
		gd := filepath.Join(common, "worktrees", e.Name())
		if st, err := os.Lstat(gd); err != nil || !st.IsDir() {
			continue
		}
		b, err := readSmall(filepath.Join(gd, "gitdir"))
		if err != nil {
			continue
		}
		if want[filepath.Clean(strings.TrimSpace(b))] {
			return textResult(gd+"\n", nil)
		}
	}
	return failure(KindGitFailed, fmt.Sprintf("%s is not a worktree of the repository at %s", path, common), nil)
}

// readSmall reads a regular file of at most 4 KiB.
func readSmall(p string) (string, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() || st.Size() > 4096 {
		return "", fmt.Errorf("%s: not a small regular file", p)
	}
	b, err := os.ReadFile(p)
	return string(b), err
}
