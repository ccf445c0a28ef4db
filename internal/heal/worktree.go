package heal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/safefile"
)

// lockPrefix starts the lock reason of every heal worktree; the rest names
// the owner's process id and the branch, so a later run can tell a crashed
// run's worktree from a live one.
const lockPrefix = "salve heal"

func lockReason(pid int, branch string) string {
	return fmt.Sprintf("%s pid=%d branch=%s", lockPrefix, pid, branch)
}

// parseLockReason returns the pid and branch of a heal lock reason.
func parseLockReason(reason string) (pid int, branch string, ok bool) {
	rest, found := strings.CutPrefix(reason, lockPrefix+" ")
	if !found {
		return 0, "", false
	}
	for _, f := range strings.Fields(rest) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "pid":
			pid, _ = strconv.Atoi(v)
		case "branch":
			branch = v
		}
	}
	return pid, branch, pid > 0
}

// ProcessAlive reports whether pid names a live process on this host.
func ProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// CleanStale removes the worktrees left by heal runs whose process is
// gone, such as a run killed with SIGKILL. Worktrees of live runs and every
// other worktree are left alone. The crashed run's branch is kept: it holds
// whatever fixes were committed before the crash, and it was never one of
// the user's branches. It returns the paths it removed.
func CleanStale(ctx context.Context, wt Worktrees, repo string) ([]string, error) {
	list, err := wt.List(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("heal: list worktrees of %s: %w", repo, err)
	}
	return cleanStale(ctx, wt, repo, list)
}

// cleanStale is CleanStale on the worktrees list, already read.
func cleanStale(ctx context.Context, wt Worktrees, repo string, list []Worktree) ([]string, error) {
	var removed []string
	for _, w := range list {
		pid, _, ok := parseLockReason(w.Locked)
		if !ok || ProcessAlive(pid) {
			continue
		}
		if err := wt.Remove(ctx, repo, w.Path); err != nil {
			return removed, fmt.Errorf("heal: remove stale worktree %s: %w", w.Path, err)
		}
		removed = append(removed, w.Path)
	}
	return removed, nil
}

// confine resolves rel against root and checks that the result, after
// symlinks, stays inside root. It returns the absolute path.
func confine(root, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", fmt.Errorf("heal: path %q: %w", rel, ErrOutsideWorkspace)
	}
	if c := filepath.Clean(filepath.FromSlash(rel)); c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("heal: path %q: %w", rel, ErrOutsideWorkspace)
	}
	abs := filepath.Join(root, filepath.FromSlash(rel))
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("heal: resolve %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("heal: resolve %s: %w", rel, err)
	}
	if r, err := filepath.Rel(realRoot, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("heal: path %q: %w", rel, ErrOutsideWorkspace)
	}
	return abs, nil
}

// ErrOutsideWorkspace is wrapped when a bug report or a fix names a path
// outside the workspace.
var ErrOutsideWorkspace = errors.New("path outside the workspace")

// writeFileKeepMode replaces the content of path, keeping its mode, and
// moves its modification time to a later second than it had: a toolchain
// that caches by the source's time and size (Python's bytecode caches
// whole seconds) must not take an edit of the same size, written within
// the second of the last one, for the file it compiled before.
func writeFileKeepMode(path, content string) error {
	mode := os.FileMode(0o644)
	var before time.Time
	if st, err := os.Stat(path); err == nil {
		mode, before = st.Mode().Perm(), st.ModTime()
	}
	if err := safefile.WriteFile(path, []byte(content), mode); err != nil {
		return fmt.Errorf("heal: write %s: %w", path, err)
	}
	if before.IsZero() {
		return nil
	}
	if st, err := os.Stat(path); err == nil && st.ModTime().Unix() <= before.Unix() {
		later := time.Unix(before.Unix()+1, 0)
		if err := os.Chtimes(path, later, later); err != nil {
			return fmt.Errorf("heal: write %s: %w", path, err)
		}
	}
	return nil
}

// ParseWorktreeList parses the porcelain output of `git worktree list`.
func ParseWorktreeList(out string) []Worktree {
	var list []Worktree
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var w Worktree
		for _, line := range strings.Split(block, "\n") {
			k, v, _ := strings.Cut(line, " ")
			switch k {
			case "worktree":
				w.Path = v
			case "HEAD":
				if commitHash(v) {
					w.Head = v
				}
			case "branch":
				w.Branch = strings.TrimPrefix(v, "refs/heads/")
			case "locked":
				w.Locked = v
				if w.Locked == "" {
					w.Locked = "locked"
				}
			}
		}
		if w.Path != "" {
			list = append(list, w)
		}
	}
	return list
}

// commitHash says whether s is a full object name (SHA-1 or SHA-256, in
// lowercase hex) other than the null one git lists for a branch that has
// no commit yet.
func commitHash(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	zero := true
	for _, c := range s {
		switch {
		case c == '0':
		case c >= '1' && c <= '9', c >= 'a' && c <= 'f':
			zero = false
		default:
			return false
		}
	}
	return !zero
}
