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
	"time"
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
	// UnusedFor, when positive, limits the removal to the worktrees no
	// heal has used for that long (the last use is when a heal released
	// the worktree); zero removes every worktree no heal holds.
	UnusedFor time.Duration
	// WorktreesOnly removes worktrees and nothing else: the repositories'
	// records are not pruned, no branch is deleted, and a repository
	// whose worktrees are all recent costs no git run.
	WorktreesOnly bool
	// Now is the clock of UnusedFor; nil means time.Now.
	Now func() time.Time
}

// GCReport says what GC did.
type GCReport struct {
	// Removed lists the worktree folders removed.
	Removed []string
	// InUse lists the worktrees left alone because a heal holds them.
	InUse []string
	// Recent lists the worktrees left alone because a heal used them
	// within GCOptions.UnusedFor.
	Recent []string
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
// branch, or a heal branch with a fix found nowhere else. With UnusedFor
// it leaves the worktrees a heal used since (GCReport.Recent), and with
// WorktreesOnly it removes worktrees only (ExpireWorktrees).
func GC(ctx context.Context, o GCOptions) (GCReport, error) {
	var rep GCReport
	if o.Worktrees == nil || o.Git == nil {
		return rep, fmt.Errorf("heal: gc: worktrees and git are required: %w", ErrBadInput)
	}
	if o.Now == nil {
		o.Now = time.Now
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
	// The slots to collect: a worktree or a lock file, unused for long
	// enough.
	var slots []int
	recent := false
	for n := 0; n < MaxWorktreesPerRepo; n++ {
		wt := filepath.Join(dir, fmt.Sprintf("heal-%d", n))
		wst, werr := os.Lstat(wt)
		lst, lerr := os.Lstat(wt + ".lock")
		if werr != nil && lerr != nil {
			continue // neither a worktree nor a lock
		}
		if o.UnusedFor > 0 {
			used := wst
			if lerr == nil {
				used = lst
			}
			if o.Now().Sub(used.ModTime()) < o.UnusedFor {
				recent = true
				if werr == nil {
					rep.Recent = append(rep.Recent, wt)
				}
				continue
			}
		}
		slots = append(slots, n)
	}
	if o.WorktreesOnly && len(slots) == 0 {
		return nil
	}
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
	busy := recent
	for _, n := range slots {
		name := fmt.Sprintf("heal-%d", n)
		wt := filepath.Join(dir, name)
		lockPath := filepath.Join(dir, name+".lock")
		_, werr := os.Lstat(wt)
		f, err := os.OpenFile(lockPath, os.O_RDWR, 0)
		if err != nil && werr != nil {
			continue // gone since
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
	if repoOK && !o.WorktreesOnly {
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
	// An expiry leaves the folder to salve gc: a heal of the repository
	// may be taking a slot in it right now.
	if !busy && !o.WorktreesOnly {
		_ = os.Remove(filepath.Join(dir, "repo"))
		_ = os.Remove(dir)
	}
	return nil
}

// ExpireWorktrees removes salve's persistent heal worktrees under root
// (empty: DefaultWorktreeRoot) that no heal has used for maxAge (zero:
// DefaultWorktreeMaxAge), and nothing else: it is GC with UnusedFor and
// WorktreesOnly. A heal that keeps its worktree calls it after it, so a
// kept worktree of a repository no longer healed does not stay for ever;
// when none is that old it reads a few folders and runs no git. It looks
// at most once every [ExpireEvery] under a root (the time of the root's
// expired.stamp): a machine that heals hundreds of repositories would
// otherwise read every one's folder after each heal, for worktrees that
// age by the week.
func ExpireWorktrees(ctx context.Context, root string, wt Worktrees, git Git, maxAge time.Duration) (GCReport, error) {
	if maxAge <= 0 {
		maxAge = DefaultWorktreeMaxAge
	}
	if root == "" {
		r, err := DefaultWorktreeRoot(os.Getenv)
		if err != nil {
			return GCReport{}, err
		}
		root = r
	}
	stamp := filepath.Join(root, expireStamp)
	if st, err := os.Stat(stamp); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) < ExpireEvery {
		return GCReport{}, nil
	}
	if _, err := os.Stat(root); err == nil {
		// Stamped first: heals ending at once do not all look.
		_ = os.WriteFile(stamp, nil, 0o600)
	}
	return GC(ctx, GCOptions{Root: root, Worktrees: wt, Git: git, UnusedFor: maxAge, WorktreesOnly: true})
}

// ExpireEvery is how often ExpireWorktrees looks under a root, at most.
const ExpireEvery = time.Hour

// expireStamp is the file under the worktree root whose time says when
// ExpireWorktrees last looked.
const expireStamp = "expired.stamp"

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
