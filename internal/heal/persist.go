package heal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/statedir"
)

// The persistent heal worktrees. A heal that is not given a worktree
// folder uses one of salve's own worktrees of the repository, kept under
// WorktreeRoot from one heal to the next:
//
//	<root>/<repo key>/repo          the repository's path (for salve gc)
//	<root>/<repo key>/heal-N        worktree N (N < MaxWorktreesPerRepo)
//	<root>/<repo key>/heal-N.lock   held (flock) by the heal using it
//
// A heal takes the first worktree whose lock is free, so two heals of one
// repository never share one; the lock goes with the process, so a killed
// heal frees it. Before use the worktree is verified (its .git file names
// the git directory the repository records for it, that directory points
// back, and after `checkout --force --detach BASE` and `clean -ffdx` the
// work tree holds BASE and nothing git does not track, ignored files
// included), and on any
// doubt it is removed and created again. Setup then costs what changed
// since the last heal, not a checkout of every file, and build outputs
// keep their paths.

// MaxWorktreesPerRepo bounds the persistent worktrees of one repository:
// as many heals of it can run at once; the next one waits.
const MaxWorktreesPerRepo = 8

// persistentLockReason is the git lock reason of a persistent worktree. It
// does not parse as a run's lock (no pid), so CleanStale leaves it alone.
const persistentLockReason = "salve heal-worktree: kept for the next heal of this repository; salve gc removes it"

// DefaultWorktreeRoot returns the folder of salve's persistent heal
// worktrees: $XDG_DATA_HOME/salve/worktrees, else
// ~/.local/share/salve/worktrees.
func DefaultWorktreeRoot(getenv func(string) string) (string, error) {
	root, err := statedir.Data(getenv, "worktrees")
	if err != nil {
		return "", fmt.Errorf("heal: no home folder for the heal worktrees: %w", err)
	}
	return root, nil
}

// RepoWorktreeDir returns the folder of the persistent worktrees of the
// repository whose main work tree is top.
func RepoWorktreeDir(root, top string) string {
	sum := sha256.Sum256([]byte(top))
	name := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, filepath.Base(top))
	if len(name) > 40 {
		name = name[:40]
	}
	return filepath.Join(root, name+"-"+hex.EncodeToString(sum[:6]))
}

// slot is one persistent worktree, locked for this process.
type slot struct {
	dir  string
	lock *os.File
}

// release frees the slot, marking its worktree used now.
func (s *slot) release() {
	if s != nil && s.lock != nil {
		markUsed(s.lock.Name(), time.Now())
		_ = s.lock.Close()
		s.lock = nil
	}
}

// acquireSlot locks the first free persistent worktree of the repository
// at top, waiting (as long as ctx allows) when all are taken.
func acquireSlot(ctx context.Context, root, top string) (*slot, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("heal: create the worktree folder %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("heal: resolve %s: %w", root, err)
	}
	dir := RepoWorktreeDir(real, top)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("heal: create %s: %w", dir, err)
	}
	if b, err := readSmallFile(filepath.Join(dir, "repo")); err != nil || b != top+"\n" {
		if err := os.WriteFile(filepath.Join(dir, "repo"), []byte(top+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("heal: record the repository of %s: %w", dir, err)
		}
	}
	for {
		for n := 0; n < MaxWorktreesPerRepo; n++ {
			name := fmt.Sprintf("heal-%d", n)
			f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
			if err != nil {
				return nil, fmt.Errorf("heal: open the worktree lock: %w", err)
			}
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
				// salve gc removes a lock file it holds: a lock taken on
				// the file it removed guards nothing.
				if held, err := f.Stat(); err == nil {
					if now, err := os.Stat(f.Name()); err == nil && os.SameFile(held, now) {
						return &slot{dir: filepath.Join(dir, name), lock: f}, nil
					}
				}
			}
			_ = f.Close()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("heal: waiting for a free heal worktree of %s: %w", top, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// lockRegistry takes the lock (flock) of a repository's worktree folder
// that serialises adding and removing its worktrees, waiting as long as ctx
// allows. The returned function releases it.
func lockRegistry(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "registry.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("heal: open the worktree registry lock: %w", err)
	}
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("heal: waiting to change the heal worktrees of %s: %w", dir, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return func() { _ = f.Close() }, nil
}

// usePersistent takes a persistent worktree for the run: reused after
// verification and reset, or created from scratch. list is the
// repository's worktrees as setup read them. It leaves the run pinned to
// the worktree.
func (r *run) usePersistent(ctx context.Context, top string, list []Worktree) error {
	sl, err := acquireSlot(ctx, r.o.WorktreeRoot, top)
	if err != nil {
		return err
	}
	r.slot, r.top = sl, top
	r.o.WorktreeDir = sl.dir
	doubt := errors.New("no worktree yet")
	// Only a worktree left in place (a large repository's, kept clean;
	// --keep-worktree; a heal that could not remove it) can be reused: a
	// first heal goes straight to the add.
	if st, err := os.Lstat(sl.dir); err == nil && st.IsDir() {
		base := r.base // HEAD as setup listed it
		if base == "" {
			if base, err = r.o.Git.RevParse(ctx, top, "HEAD"); err != nil {
				return fmt.Errorf("heal: read HEAD of %s: %w: %w", top, ErrBadInput, err)
			}
		}
		if doubt = r.reuse(ctx, top, base); doubt == nil {
			r.base = base
		}
	}
	if doubt != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		r.o.Logger.Info("creating the heal worktree from scratch", "path", sl.dir, "why", doubt.Error())
		if err := r.recreate(ctx, top, list); err != nil {
			// A repository without a commit has nothing to heal: say so,
			// rather than that the add failed.
			if _, herr := r.o.Git.RevParse(ctx, top, "HEAD"); herr != nil && ctx.Err() == nil {
				return fmt.Errorf("heal: read HEAD of %s: %w: %w", top, ErrBadInput, herr)
			}
			return err
		}
	} else {
		r.reused = true
		r.o.Logger.Info("reusing the heal worktree", "path", sl.dir)
	}
	r.added = true
	if err := r.pin(ctx, top); err != nil {
		return err
	}
	// What the add or the reset wrote: the number of files the next heal
	// would check out again if this worktree were removed.
	r.tracked = indexEntries(r.guard.gitDir)
	return nil
}

// reuse verifies the slot's worktree and resets it to base; any error is
// a doubt, and the caller then creates the worktree again.
func (r *run) reuse(ctx context.Context, top, base string) error {
	dir := r.o.WorktreeDir
	gd, err := r.o.Worktrees.GitDir(ctx, top, dir)
	if err != nil {
		return fmt.Errorf("not a worktree of the repository: %w", err)
	}
	got, err := readSmallFile(filepath.Join(dir, ".git"))
	if err != nil || got != gitFileContent(gd) {
		return errors.New("its .git file was changed")
	}
	if err := checkGitDir(dir, gd); err != nil {
		return err
	}
	if err := scrub(ctx, r.o.Worktrees.Pin(dir, gd), dir, base); err != nil {
		return err
	}
	// The .git file and the back-link again: nothing may have changed
	// them while git ran, but the check is cheap.
	if got, err := readSmallFile(filepath.Join(dir, ".git")); err != nil || got != gitFileContent(gd) {
		return errors.New("its .git file changed during the reset")
	}
	if err := checkGitDir(dir, gd); err != nil {
		return err
	}
	r.gitDir = gd
	return nil
}

// recreate removes the slot's worktree, whatever state it is in, and adds
// it again, detached at the user's HEAD. list is the repository's
// worktrees as setup read them.
func (r *run) recreate(ctx context.Context, top string, list []Worktree) error {
	dir := r.o.WorktreeDir
	// Removing a worktree may fall back to `git worktree prune`, which
	// drops the record of a worktree another heal of this repository is
	// adding at that moment: changes to the repository's worktree records
	// are made one heal at a time.
	unlock, err := lockRegistry(ctx, filepath.Dir(dir))
	if err != nil {
		return err
	}
	defer unlock()
	// On a first heal nothing is there to remove: setup's listing says
	// so, where the removals cost several git runs. The listing is still
	// true of this slot: only the heal holding the slot's lock adds or
	// removes its worktree. Should the listing miss a record (a path
	// spelled another way), the add fails and the removals run after all.
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) && !registered(list, dir) {
		gd, err := r.o.Worktrees.Add(ctx, top, dir, r.base, persistentLockReason)
		if err == nil {
			r.gitDir = gd
			return nil
		}
	}
	_ = r.o.Worktrees.Remove(ctx, top, dir)
	if err := removeAllForce(dir); err != nil {
		return fmt.Errorf("heal: remove the old heal worktree %s: %w", dir, err)
	}
	_ = r.o.Worktrees.Remove(ctx, top, dir) // drops a registration whose folder was gone
	gd, err := r.o.Worktrees.Add(ctx, top, dir, r.base, persistentLockReason)
	if err != nil {
		return fmt.Errorf("heal: create the heal worktree %s: %w", dir, err)
	}
	r.gitDir = gd
	return nil
}

// registered says whether list, the repository's worktrees, records one
// at dir.
func registered(list []Worktree, dir string) bool {
	for _, w := range list {
		if filepath.Clean(w.Path) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}

// removePersistent removes the slot's worktree and its record in the
// repository, and frees the slot: the user's repository is left as it
// was, with the heal branch and nothing else. A worktree that cannot be
// removed is left for salve gc, with a warning.
func (r *run) removePersistent(ctx context.Context) {
	defer r.slot.release()
	dir := r.o.WorktreeDir
	top := r.top
	unlock, err := lockRegistry(ctx, filepath.Dir(dir))
	if err != nil {
		r.o.Logger.Warn("could not remove the heal worktree; salve gc will", "path", dir, "error", err)
		return
	}
	defer unlock()
	if r.guard != nil && r.guard.guard() == nil {
		// The git directory was found when the worktree was pinned, and
		// its back-link still holds: it need not be looked up again.
		err = r.o.Worktrees.RemoveKnown(ctx, top, dir, r.guard.gitDir)
	} else {
		err = r.o.Worktrees.Remove(ctx, top, dir)
	}
	if rerr := removeAllForce(dir); err == nil {
		err = rerr
	}
	if err != nil {
		r.o.Logger.Warn("could not remove the heal worktree; salve gc will", "path", dir, "error", err)
	}
}

// releasePersistent, under --keep-worktree, detaches the worktree from
// the heal branch (so the user can check the branch out) and leaves its
// files as they are, registered in the repository, for the user to look
// at and for the next heal to reset and reuse; then it frees the slot.
func (r *run) releasePersistent(ctx context.Context) {
	defer r.slot.release()
	if r.guard == nil || !r.guard.created {
		return // still detached: no branch was made
	}
	if err := r.guard.Detach(ctx, r.res.HeadCommit); err != nil {
		r.o.Logger.Warn("could not detach the heal worktree from the heal branch", "path", r.o.WorktreeDir, "error", err)
	}
}

// removeAllForce removes dir like os.RemoveAll, first giving its owner
// write and search permission on every folder below it, so a build that
// made a folder read-only cannot keep it. Symbolic links are not followed.
func removeAllForce(dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	// WalkDir calls fn for a folder before reading it, so the chmod comes
	// first; Chmod on a symbolic link's entry is never reached (WalkDir
	// does not follow links, and d.IsDir is false for them).
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// emptyGitlinks empties the folder of every submodule entry of the index:
// git clean does not enter them and git status does not list what a build
// left there, and salve never initialises submodules in its worktrees.
func emptyGitlinks(ctx context.Context, g WorktreeGit, dir string) error {
	paths, err := g.Gitlinks(ctx, dir)
	if err != nil {
		return fmt.Errorf("gitlinks: %w", err)
	}
	for _, path := range paths {
		if path == "" {
			continue
		}
		abs, err := confine(dir, path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("submodule folder %s: %w", path, err)
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return fmt.Errorf("submodule folder %s: %w", path, err)
		}
		for _, e := range entries {
			if err := removeAllForce(filepath.Join(abs, e.Name())); err != nil {
				return fmt.Errorf("empty the submodule folder %s: %w", path, err)
			}
		}
	}
	return nil
}
