package heal

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// GCOptions configures GC.
type GCOptions struct {
	// Root is the folder of the persistent worktrees; empty means
	// DefaultWorktreeRoot.
	Root string
	// Repo, when set, limits the collection to that repository (any
	// folder inside it).
	Repo string
	// Worktrees lists, removes and prunes the repositories' worktrees.
	Worktrees Worktrees
	// Git deletes the merged heal branches.
	Git Git
}

// GCReport says what GC did.
type GCReport struct {
	// Removed lists the worktree folders removed.
	Removed []string
	// InUse lists the worktrees left alone because a heal holds them.
	InUse []string
	// Pruned lists the repositories whose worktree records were pruned.
	Pruned []string
	// Branches lists the heal branches deleted (merged: nothing of their
	// own).
	Branches []string
}

// GC removes salve's persistent heal worktrees that no heal is using, the
// worktrees of crashed heals of the older kind (locked "salve heal
// pid=…"), and their stale records in the repositories (git worktree
// prune), and the default heal branches (salve/heal-…) that hold nothing
// of their own: merged into the repository's HEAD, as git branch -d
// requires. It never touches a worktree salve did not make, another
// branch, or a heal branch with a fix found nowhere else.
func GC(ctx context.Context, o GCOptions) (GCReport, error) {
	var rep GCReport
	if o.Worktrees == nil || o.Git == nil {
		return rep, fmt.Errorf("heal: gc: worktrees and git are required: %w", ErrBadInput)
	}
	if o.Root == "" {
		root, err := DefaultWorktreeRoot(os.Getenv)
		if err != nil {
			return rep, err
		}
		o.Root = root
	}
	var dirs []string
	if o.Repo != "" {
		list, err := o.Worktrees.List(ctx, o.Repo)
		if err != nil || len(list) == 0 {
			return rep, fmt.Errorf("heal: gc: %s is not a git repository: %w", o.Repo, ErrBadInput)
		}
		real, err := filepath.EvalSymlinks(o.Root)
		if errors.Is(err, fs.ErrNotExist) {
			return rep, nil
		}
		if err != nil {
			return rep, fmt.Errorf("heal: gc: %w", err)
		}
		dirs = []string{RepoWorktreeDir(real, list[0].Path)}
	} else {
		entries, err := os.ReadDir(o.Root)
		if errors.Is(err, fs.ErrNotExist) {
			return rep, nil
		}
		if err != nil {
			return rep, fmt.Errorf("heal: gc: read %s: %w", o.Root, err)
		}
		for _, e := range entries {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(o.Root, e.Name()))
			}
		}
	}
	for _, dir := range dirs {
		if err := gcRepoDir(ctx, o, dir, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// gcRepoDir collects one repository's folder of persistent worktrees.
func gcRepoDir(ctx context.Context, o GCOptions, dir string, rep *GCReport) error {
	b, err := readSmallFile(filepath.Join(dir, "repo"))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Lstat(dir); serr != nil {
			return nil // no folder for this repository
		}
	}
	top := strings.TrimSpace(b)
	repoOK := false
	if top != "" {
		if list, err := o.Worktrees.List(ctx, top); err == nil && len(list) > 0 {
			repoOK = true
		}
	}
	busy := false
	for n := 0; n < MaxWorktreesPerRepo; n++ {
		name := fmt.Sprintf("heal-%d", n)
		wt := filepath.Join(dir, name)
		lockPath := filepath.Join(dir, name+".lock")
		_, werr := os.Lstat(wt)
		f, err := os.OpenFile(lockPath, os.O_RDWR, 0)
		if err != nil && werr != nil {
			continue // neither a worktree nor a lock
		}
		if err == nil {
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
				_ = f.Close()
				rep.InUse = append(rep.InUse, wt)
				busy = true
				continue
			}
		}
		if repoOK && werr == nil {
			_ = o.Worktrees.Remove(ctx, top, wt)
		}
		rerr := removeAllForce(wt)
		if f != nil {
			_ = os.Remove(lockPath)
			_ = f.Close()
		}
		if rerr != nil {
			return fmt.Errorf("heal: gc: remove %s: %w", wt, rerr)
		}
		if werr == nil {
			rep.Removed = append(rep.Removed, wt)
		}
	}
	if repoOK {
		removed, err := CleanStale(ctx, o.Worktrees, top)
		if err != nil {
			return err
		}
		rep.Removed = append(rep.Removed, removed...)
		if err := o.Worktrees.Prune(ctx, top); err != nil {
			return fmt.Errorf("heal: gc: prune the worktrees of %s: %w", top, err)
		}
		if err := unlockLost(ctx, o.Worktrees, top, dir); err != nil {
			return err
		}
		rep.Pruned = append(rep.Pruned, top)
		pruned, err := o.Git.PruneBranches(ctx, top, DefaultBranchPrefix)
		if err != nil {
			return fmt.Errorf("heal: gc: prune the heal branches of %s: %w", top, err)
		}
		for _, b := range pruned {
			rep.Branches = append(rep.Branches, top+" "+b)
		}
	}
	if !busy {
		_ = os.Remove(filepath.Join(dir, "repo"))
		_ = os.Remove(dir)
	}
	return nil
}

// unlockLost removes the records of salve's persistent worktrees of the
// repository whose folder is gone (prune keeps locked records).
func unlockLost(ctx context.Context, w Worktrees, top, dir string) error {
	list, err := w.List(ctx, top)
	if err != nil {
		return fmt.Errorf("heal: gc: list the worktrees of %s: %w", top, err)
	}
	for i, x := range list {
		if i == 0 {
			continue // the main work tree
		}
		if x.Locked != persistentLockReason {
			continue
		}
		if _, err := os.Lstat(x.Path); err == nil {
			continue
		}
		if err := w.Remove(ctx, top, x.Path); err != nil {
			return fmt.Errorf("heal: gc: drop the record of %s: %w", x.Path, err)
		}
	}
	return nil
}
