package heal

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/safefile"
)

// What a heal does with its worktree at the end. Adding a worktree costs a
// checkout of every tracked file, and removing it their deletion: tens of
// milliseconds on a small repository, seconds on one of 20,000 files
// (docs/bench-heal-speed.md). So by default a heal removes its worktree
// when the repository is small, and keeps it, reset to the base and
// cleaned, when the repository tracks KeepFiles files or more: the next
// heal of the repository verifies, resets and reuses it (persist.go),
// writing only what changed. A kept worktree no heal used for
// DefaultWorktreeMaxAge is removed after a later heal (ExpireWorktrees),
// and salve gc removes it at once.

// WorktreeKeep says what a heal does with its worktree at the end. The
// zero value is KeepAuto.
type WorktreeKeep int

const (
	// KeepAuto keeps one of salve's persistent worktrees, reset to the
	// base commit and cleaned, when its index holds at least
	// Options.KeepFiles entries, and removes it otherwise. A worktree made
	// at Options.WorktreeDir is removed.
	KeepAuto WorktreeKeep = iota
	// KeepAlways keeps the worktree as the heal left it (the build's
	// outputs included), detached, to look at (--keep-worktree).
	KeepAlways
	// KeepNever removes the worktree whatever the repository's size
	// (--keep-worktree=false).
	KeepNever
)

// keepWords are the spellings of each WorktreeKeep, the first one its
// String.
var keepWords = []struct {
	keep  WorktreeKeep
	words []string
}{
	{KeepAuto, []string{"auto"}},
	{KeepAlways, []string{"true", "always", "yes", "1"}},
	{KeepNever, []string{"false", "never", "no", "0"}},
}

func (k WorktreeKeep) String() string {
	for _, w := range keepWords {
		if w.keep == k {
			return w.words[0]
		}
	}
	return "WorktreeKeep(" + strconv.Itoa(int(k)) + ")"
}

// ParseWorktreeKeep reads a WorktreeKeep: auto, true (always, yes, 1) or
// false (never, no, 0).
func ParseWorktreeKeep(s string) (WorktreeKeep, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, w := range keepWords {
		for _, word := range w.words {
			if s == word {
				return w.keep, nil
			}
		}
	}
	return KeepAuto, fmt.Errorf("keep worktree %q: want auto, true or false: %w", s, ErrBadInput)
}

// DefaultKeepFiles is the number of tracked files from which a heal keeps
// its worktree by default (KeepAuto). Measured on 2 cores (git 2.39,
// docs/bench-heal-speed.md): adding and removing a worktree of 2,000
// files costs 0.2 to 0.3 s, about the whole fixed cost of a small heal,
// and grows with the files (0.4 to 1.1 s at 5,000, seconds at 10,000 and
// over); resetting and cleaning a kept one costs under 0.1 s up to 5,000.
const DefaultKeepFiles = 2000

// EnvKeepFiles names the variable that sets the number of tracked files
// from which a heal keeps its worktree by default ([KeepFiles]).
const EnvKeepFiles = "SALVE_KEEP_WORKTREE_FILES"

// KeepFiles reads the number of tracked files from which a heal keeps its
// worktree from EnvKeepFiles through getenv: unset or empty is
// DefaultKeepFiles; otherwise a positive whole number.
func KeepFiles(getenv func(string) string) (int, error) {
	v := strings.TrimSpace(getenv(EnvKeepFiles))
	if v == "" {
		return DefaultKeepFiles, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive whole number of files: %w", EnvKeepFiles, v, ErrBadInput)
	}
	return n, nil
}

// DefaultWorktreeMaxAge is how long a kept worktree no heal used stays:
// after it, the next heal of any repository removes it (ExpireWorktrees).
const DefaultWorktreeMaxAge = 7 * 24 * time.Hour

// ending is what a heal does with its worktree at the end.
type ending int

const (
	// endRemove removes the worktree and its record in the repository.
	endRemove ending = iota
	// endKeep keeps it as the heal left it, detached.
	endKeep
	// endKeepClean keeps it reset to the base commit and cleaned.
	endKeepClean
)

func (e ending) String() string {
	return [...]string{"remove", "keep", "keep clean"}[e]
}

// decideEnd is what a heal does with its worktree at the end: keep is the
// caller's choice, persistent says the worktree is one of salve's own
// (not Options.WorktreeDir's), tracked is the number of entries of its
// index (negative when unknown), and threshold the number from which
// KeepAuto keeps a persistent worktree.
func decideEnd(keep WorktreeKeep, persistent bool, tracked, threshold int) ending {
	switch {
	case keep == KeepAlways:
		return endKeep
	case keep != KeepAuto, !persistent, tracked < 0, threshold <= 0:
		return endRemove
	case tracked >= threshold:
		return endKeepClean
	}
	return endRemove
}

// indexEntries returns the number of entries of the index of the git
// directory gitDir, from the index file's header (signature DIRC, version
// 2 to 4, entry count), or -1 when it cannot be read. Nothing else of the
// file is read. Under a split index the header counts only the entries
// the shared index does not hold, so the count is a lower bound.
func indexEntries(gitDir string) int {
	b, err := safefile.ReadPrefix(filepath.Join(gitDir, "index"), 12, safefile.Options{NoFollow: true})
	if err != nil || len(b) < 12 || string(b[:4]) != "DIRC" {
		return -1
	}
	if v := binary.BigEndian.Uint32(b[4:8]); v < 2 || v > 4 {
		return -1
	}
	n := binary.BigEndian.Uint32(b[8:12])
	if n > 1<<30 {
		return -1
	}
	return int(n)
}

// endPersistent ends the run's use of its persistent worktree as
// decideEnd says, and frees the slot.
func (r *run) endPersistent(ctx context.Context) {
	threshold := r.o.KeepFiles
	if threshold == 0 {
		threshold = DefaultKeepFiles
	}
	switch decideEnd(r.o.KeepWorktree, true, r.tracked, threshold) {
	case endKeep:
		r.releasePersistent(ctx)
	case endKeepClean:
		if err := r.keepClean(ctx); err != nil {
			r.o.Logger.Info("removing the heal worktree rather than keeping it", "path", r.o.WorktreeDir, "why", err.Error())
			r.removePersistent(ctx)
			return
		}
		r.o.Logger.Info("kept the heal worktree, clean, for the next heal of this repository", "path", r.o.WorktreeDir,
			"tracked_files", r.tracked, "keep_from", threshold)
		r.slot.release()
	default:
		r.removePersistent(ctx)
	}
}

// keepClean resets the run's worktree to the base commit, detached, and
// removes every file git does not track (ignored ones included), so that
// it holds nothing of this heal: neither its fixes (they are on the heal
// branch) nor its builds' outputs. Any error leaves the worktree to be
// removed.
func (r *run) keepClean(ctx context.Context) error {
	if r.guard == nil || r.res.BaseCommit == "" {
		return errors.New("the worktree was never ready")
	}
	if err := r.guard.guard(); err != nil {
		return err
	}
	return scrub(ctx, r.guard.pinned, r.o.WorktreeDir, r.res.BaseCommit)
}

// scrub checks commit out in the worktree at dir, detached and
// forcefully, empties its submodule folders and removes every file git
// does not track, then checks that nothing untracked remains (ignored
// files included): tracked files were put back by the checkout, whose stat
// checks are strict (core.trustctime, core.checkStat: see the git agent).
func scrub(ctx context.Context, g WorktreeGit, dir, commit string) error {
	if err := g.Reset(ctx, dir, commit); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	// The clean walks the folders while the submodule entries are read
	// from the index: they are independent.
	links := make(chan error, 1)
	go func() { links <- emptyGitlinks(ctx, g, dir) }()
	cerr := g.Clean(ctx, dir)
	if err := <-links; err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("clean: %w", cerr)
	}
	st, err := g.Untracked(ctx, dir)
	if err != nil {
		return fmt.Errorf("untracked: %w", err)
	}
	if st != "" {
		return fmt.Errorf("files left after the clean: %.200q", st)
	}
	return nil
}

// markUsed sets the modification time of a slot's lock file to now: the
// last use of its worktree, which ExpireWorktrees and salve gc
// --unused-for read.
func markUsed(lockPath string, now time.Time) {
	_ = os.Chtimes(lockPath, now, now)
}
