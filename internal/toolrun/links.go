package toolrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/safefile"
)

// maxOutsideEntries bounds the entries watched under one folder outside the
// tree that a link of the tree leads to.
const maxOutsideEntries = 2000

// statRecord identifies one entry by metadata only. The change time
// (ctime) moves on every write, chmod or utime and cannot be set back by
// an unprivileged process, so an equal record means an untouched entry.
type statRecord struct {
	Ino, Size    uint64
	Mode         fs.FileMode
	Ctime, Mtime int64
}

func statRecordOf(fi fs.FileInfo) statRecord {
	r := statRecord{Mode: fi.Mode(), Size: uint64(fi.Size())}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		r.Ino = st.Ino
		r.Ctime, r.Mtime = statTimes(st)
	}
	return r
}

// outsideTarget is where one link of the tree leads, outside the tree.
type outsideTarget struct {
	Link      string // slash path of the link in the tree
	Real      string // the resolved path outside the tree
	Before    entryState
	Entries   map[string]statRecord // under a folder target, by slash path
	Truncated bool
}

// outsideLinks watches the targets outside the tree of the tree's links, so
// that a tool writing through a link (into a file or folder outside the
// tree) is caught.
type outsideLinks struct {
	root    string
	limits  Limits
	targets []outsideTarget
}

// watchOutsideLinks records the state of every target outside root of the
// links in before.
func watchOutsideLinks(root string, before *snapshot, limits Limits) *outsideLinks {
	w := &outsideLinks{root: root, limits: limits}
	paths := make([]string, 0)
	for p, f := range before.Files {
		if f.Link {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	seen := map[string]bool{}
	for _, p := range paths {
		real, err := resolveLenient(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || within(root, real) || seen[real] {
			continue
		}
		seen[real] = true
		t := outsideTarget{Link: p, Real: real}
		t.Before, _ = statEntry(real, limits.MaxFileBytes)
		if t.Before.Dir {
			t.Entries, t.Truncated = listOutside(real)
		}
		w.targets = append(w.targets, t)
	}
	return w
}

// listOutside records the entries under dir (not following links),
// bounded by maxOutsideEntries.
func listOutside(dir string) (map[string]statRecord, bool) {
	out := map[string]statRecord{}
	truncated := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if len(out) >= maxOutsideEntries {
			truncated = true
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = statRecordOf(fi)
		return nil
	})
	return out, truncated
}

// checkOutsideLinks compares each watched target with its pre-run state.
// A file written through a link gets its content back when it was kept;
// a file created through a link (or through a dangling one) is removed;
// anything else is reported as not reverted. Each is an ERROR event and
// an unsafe change.
func (rs *runState) checkOutsideLinks() {
	if rs.links == nil {
		return
	}
	for _, t := range rs.links.targets {
		if t.Truncated {
			rs.event(contract.LevelWarn, fmt.Sprintf("The link %s leads to %s outside the work tree, whose first %d entries only are watched", t.Link, t.Real, maxOutsideEntries),
				map[string]any{"file_path": t.Link})
		}
		now, err := statEntry(t.Real, rs.links.limits.MaxFileBytes)
		if err == nil && now.same(t.Before) && !t.Before.Dir {
			continue
		}
		if err == nil && now.same(t.Before) && t.Before.Dir {
			rs.checkOutsideDir(t)
			continue
		}
		ctx := map[string]any{"file_path": t.Link, "target": t.Real}
		what := fmt.Sprintf("%s became %s", t.Before.kind(), now.kind())
		if rerr := restoreOutside(t.Real, t.Before, now); rerr != nil {
			rs.event(contract.LevelError, fmt.Sprintf("The tool wrote %s outside the work tree through the link %s (%s); NOT reverted: %v", t.Real, t.Link, what, rerr), ctx)
		} else {
			rs.event(contract.LevelError, fmt.Sprintf("The tool wrote %s outside the work tree through the link %s (%s); reverted", t.Real, t.Link, what), ctx)
		}
		rs.unsafe = append(rs.unsafe, t.Real)
	}
}

// checkOutsideDir compares the entries under a folder target.
func (rs *runState) checkOutsideDir(t outsideTarget) {
	after, _ := listOutside(t.Real)
	var changed []string
	for p, b := range t.Entries {
		if a, ok := after[p]; !ok || a != b {
			changed = append(changed, p)
		}
	}
	for p := range after {
		if _, ok := t.Entries[p]; !ok {
			changed = append(changed, p)
		}
	}
	// Deepest first, so created files go before their created folders.
	sort.Sort(sort.Reverse(sort.StringSlice(changed)))
	for _, p := range changed {
		full := filepath.Join(t.Real, filepath.FromSlash(p))
		ctx := map[string]any{"file_path": t.Link, "target": full}
		_, existed := t.Entries[p]
		var rerr error
		if existed {
			rerr = errors.New("its content was not kept (it is outside the work tree)")
		} else if real, err := resolveLenient(full); err != nil || real != full {
			rerr = fmt.Errorf("%s now resolves elsewhere", full)
		} else {
			rerr = os.Remove(full)
		}
		if rerr != nil {
			rs.event(contract.LevelError, fmt.Sprintf("The tool changed %s outside the work tree through the link %s; NOT reverted: %v", full, t.Link, rerr), ctx)
		} else {
			rs.event(contract.LevelError, fmt.Sprintf("The tool created %s outside the work tree through the link %s; removed", full, t.Link), ctx)
		}
		rs.unsafe = append(rs.unsafe, full)
	}
}

// restoreOutside puts back one target outside the tree, writing only at
// the very path recorded before the run (its folder must still resolve to
// itself, so a link planted since cannot redirect the write).
func restoreOutside(real string, b, now entryState) error {
	dir := filepath.Dir(real)
	if r, err := resolveLenient(dir); err != nil || r != dir {
		return fmt.Errorf("%s now resolves elsewhere", dir)
	}
	switch {
	case now.Dir || b.Dir:
		return errors.New("a folder outside the work tree is not rebuilt")
	case !b.Exists:
		return os.Remove(real)
	case b.File.Link:
		if now.Exists {
			if err := os.Remove(real); err != nil {
				return err
			}
		}
		return os.Symlink(string(b.File.Content), real)
	case !b.File.Kept:
		return errors.New("its content was not kept")
	}
	if now.Exists && !now.Dir && now.File.Perm.Type() == 0 && !now.File.Link && now.Dev == b.Dev && now.Ino == b.Ino {
		// The very file that was there: written in place, so that its
		// other names (the user's own links) get their content back too.
		if err := rewriteSame(real, b.Dev, b.Ino, b.File.Content, b.File.Perm); !errors.Is(err, errChanged) {
			return err
		}
	}
	// Anything else (a link, a FIFO, another file, a hard link to a third
	// file) is renamed over, never opened nor written through.
	return safefile.ReplaceFile(real, b.File.Content, b.File.Perm)
}

// errChanged is returned by rewriteSame when the file at the path is no
// longer the one recorded.
var errChanged = errors.New("the file at the path changed")

// rewriteSame writes content into the file at real, provided it is still
// the regular file recorded with dev and ino, opening it without following
// a link nor blocking on a FIFO, and sets its permission bits to perm.
func rewriteSame(real string, dev, ino uint64, content []byte, perm fs.FileMode) error {
	fd, err := syscall.Open(real, syscall.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	if err != nil {
		return errChanged
	}
	f := os.NewFile(uintptr(fd), real)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return errChanged
	}
	if d, i, _ := fileIdentity(fi); d != dev || i != ino {
		return errChanged
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		return err
	}
	return f.Chmod(perm)
}
