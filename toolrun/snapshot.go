package toolrun

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
)

// Limits bound the work-tree snapshots taken before and after a run.
type Limits struct {
	// MaxFiles caps the files of a snapshot; a bigger tree is refused
	// (the run is rejected) since its scope could not be checked.
	MaxFiles int
	// MaxFileBytes: a larger file is hashed but its content not kept, so a
	// change to it can be detected but neither diffed nor reverted.
	MaxFileBytes int64
	// MaxTotalBytes caps the content kept in memory by one snapshot.
	MaxTotalBytes int64
}

// Default snapshot limits.
const (
	DefaultMaxFiles      = 20000
	DefaultMaxFileBytes  = 8 << 20
	DefaultMaxTotalBytes = 256 << 20
)

// DefaultIgnoreDirs returns the folder names a snapshot never enters:
// version control and caches that tools rewrite on their own.
func DefaultIgnoreDirs() []string {
	return []string{".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"}
}

// ErrTooManyFiles is returned (wrapped) when a work tree exceeds MaxFiles.
var ErrTooManyFiles = errors.New("toolrun: work tree has too many files to snapshot")

func (l Limits) withDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = DefaultMaxTotalBytes
	}
	return l
}

// fileState is one file of a snapshot.
type fileState struct {
	Perm fs.FileMode // permission bits
	Link bool        // a symbolic link; Content is its target
	Size int64
	Hash [sha256.Size]byte
	// Content is the file's bytes (or the link's target); nil when not kept.
	Content []byte
	Kept    bool
}

func (f fileState) same(g fileState) bool {
	return f.Link == g.Link && f.Perm == g.Perm && f.Hash == g.Hash
}

// snapshot is the state of every file under a root.
type snapshot struct {
	Root  string
	Files map[string]fileState // key: slash path relative to Root
	Dirs  map[string]bool
	kept  int64
}

// snapshotter takes snapshots of one work tree.
type snapshotter struct {
	root   string
	limits Limits
	// ignore globs (doublestar, slash paths relative to root).
	ignore []string
	// priority paths keep their content whatever the total budget (the
	// file scope: their diffs are the point of the run).
	priority map[string]bool
	// gitDir walks a git directory instead of a work tree: only the files
	// the git guard keeps (gitGuarded), never objects/, refs/, logs/, lfs/.
	gitDir bool
	// gitDirIDs are the identities of the guarded git directories: a
	// folder of the tree that is one of them (a .git the tool moved under
	// another name) is never entered, so the scope check can never take a
	// repository for files to remove.
	gitDirIDs map[devIno]bool
}

// devIno identifies a folder.
type devIno struct{ Dev, Ino uint64 }

func (sn *snapshotter) isGitDir(d fs.DirEntry) bool {
	if len(sn.gitDirIDs) == 0 {
		return false
	}
	info, err := d.Info()
	if err != nil {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && sn.gitDirIDs[devIno{uint64(st.Dev), st.Ino}]
}

func (sn *snapshotter) ignored(rel string) bool {
	for _, g := range sn.ignore {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}

func isIgnoredDir(name string) bool {
	for _, d := range DefaultIgnoreDirs() {
		if name == d {
			return true
		}
	}
	return false
}

// take walks the root without following symbolic links.
func (sn *snapshotter) take() (*snapshot, error) {
	s := &snapshot{Root: sn.root, Files: map[string]fileState{}, Dirs: map[string]bool{}}
	err := filepath.WalkDir(sn.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(sn.root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if sn.gitDir {
			if d.IsDir() {
				if gitDataDirs[d.Name()] {
					return filepath.SkipDir
				}
				s.Dirs[rel] = true
				return nil
			}
			if !gitGuarded(rel) {
				return nil
			}
		} else {
			// .git entries (folders, a worktree's .git file) belong to the
			// git guard, never to the file scope.
			if d.Name() == ".git" {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if isIgnoredDir(d.Name()) || sn.ignored(rel) || sn.isGitDir(d) {
					return filepath.SkipDir
				}
				s.Dirs[rel] = true
				return nil
			}
			if sn.ignored(rel) {
				return nil
			}
		}
		if len(s.Files) >= sn.limits.MaxFiles {
			return fmt.Errorf("%w: more than %d under %s", ErrTooManyFiles, sn.limits.MaxFiles, sn.root)
		}
		st, err := sn.readFile(s, path, rel, d)
		if err != nil {
			return err
		}
		if st != nil {
			s.Files[rel] = *st
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("toolrun: snapshot %s: %w", sn.root, err)
	}
	return s, nil
}

// readFile records one regular file or symbolic link; other kinds (sockets,
// devices) are skipped.
func (sn *snapshotter) readFile(s *snapshot, path, rel string, d fs.DirEntry) (*fileState, error) {
	info, err := d.Info()
	if err != nil {
		return nil, err
	}
	var st fileState
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return nil, err
		}
		st = fileState{Link: true, Perm: 0o777, Content: []byte(target), Kept: true, Size: int64(len(target))}
		st.Hash = sha256.Sum256(st.Content)
		return &st, nil
	case !info.Mode().IsRegular():
		return nil, nil
	}
	st.Perm = info.Mode().Perm()
	st.Size = info.Size()
	// Not os.ReadFile: a FIFO swapped in after the walk must not block.
	data, err := readRegular(path, 1<<62)
	if err != nil {
		return nil, err
	}
	st.Hash = sha256.Sum256(data)
	keep := st.Size <= sn.limits.MaxFileBytes && (sn.priority[rel] || s.kept+st.Size <= sn.limits.MaxTotalBytes)
	if keep {
		st.Content, st.Kept = data, true
		s.kept += st.Size
	}
	return &st, nil
}

// change is one file that differs between two snapshots.
type change struct {
	Path   string
	Op     string // contract.PatchCreate, PatchEdit or PatchDelete
	Before fileState
	After  fileState
}

// compareSnapshots lists the files created, edited or deleted, by path.
func compareSnapshots(before, after *snapshot) []change {
	var out []change
	for p, b := range before.Files {
		a, ok := after.Files[p]
		switch {
		case !ok:
			out = append(out, change{Path: p, Op: opDelete, Before: b})
		case !a.same(b):
			out = append(out, change{Path: p, Op: opEdit, Before: b, After: a})
		}
	}
	for p, a := range after.Files {
		if _, ok := before.Files[p]; !ok {
			out = append(out, change{Path: p, Op: opCreate, After: a})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

const (
	opCreate = "create"
	opEdit   = "edit"
	opDelete = "delete"
)

// revert puts one out-of-scope change back to its pre-run state. Every
// write is checked to land inside the root once symbolic links are
// resolved, so a link planted by the tool cannot redirect it.
func revert(root string, before *snapshot, c change) error {
	full := filepath.Join(root, filepath.FromSlash(c.Path))
	if err := checkInside(root, filepath.Dir(full)); err != nil {
		return err
	}
	switch c.Op {
	case opCreate:
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", c.Path, err)
		}
		removeNewDirs(root, before, filepath.Dir(c.Path))
		return nil
	case opEdit, opDelete:
		if !c.Before.Kept {
			return fmt.Errorf("restore %s: its pre-run content was not kept (%d bytes, over the snapshot limits)", c.Path, c.Before.Size)
		}
		return restore(root, full, c)
	}
	return fmt.Errorf("revert %s: unknown operation %q", c.Path, c.Op)
}

func restore(root, full string, c change) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("restore %s: %w", c.Path, err)
	}
	// MkdirAll may have followed a link the tool planted; check again.
	if err := checkInside(root, filepath.Dir(full)); err != nil {
		return err
	}
	if info, err := os.Lstat(full); err == nil && (info.IsDir() || info.Mode()&fs.ModeSymlink != 0 || c.Before.Link) {
		if err := os.RemoveAll(full); err != nil {
			return fmt.Errorf("restore %s: clear: %w", c.Path, err)
		}
	}
	if c.Before.Link {
		if err := os.Symlink(string(c.Before.Content), full); err != nil {
			return fmt.Errorf("restore %s: %w", c.Path, err)
		}
		return nil
	}
	if err := os.WriteFile(full, c.Before.Content, c.Before.Perm); err != nil {
		return fmt.Errorf("restore %s: %w", c.Path, err)
	}
	if err := os.Chmod(full, c.Before.Perm); err != nil {
		return fmt.Errorf("restore %s: %w", c.Path, err)
	}
	return nil
}

// removeNewDirs removes the empty folders above a removed file that did not
// exist before the run.
func removeNewDirs(root string, before *snapshot, dir string) {
	for dir != "." && dir != "/" && dir != "" && !before.Dirs[dir] {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(dir))); err != nil {
			return
		}
		dir = filepath.ToSlash(filepath.Dir(dir))
	}
}

// checkInside returns an error unless dir, with symbolic links resolved,
// is root or below it. A dir that does not exist yet is checked through its
// nearest existing parent.
func checkInside(root, dir string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("resolve root %s: %w", root, err)
	}
	probe := dir
	for {
		real, err := filepath.EvalSymlinks(probe)
		if err == nil {
			if real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator)) {
				return fmt.Errorf("%s resolves to %s, outside the work tree", dir, real)
			}
			return nil
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return fmt.Errorf("resolve %s: %w", dir, err)
		}
		probe = parent
	}
}
