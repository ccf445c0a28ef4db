package toolrun

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/salve-dev/salve/internal/gitguard"
	"github.com/salve-dev/salve/internal/safefile"
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
	// Special holds the type bits of a FIFO, socket or device (never kept:
	// its Hash stands for its identity); zero for files and links.
	Special fs.FileMode
	Size    int64
	Hash    [sha256.Size]byte
	// Content is the file's bytes (or the link's target); nil when not kept.
	Content []byte
	Kept    bool
	// Dev, Ino and Nlink identify a regular file and count its names: a
	// file with a name outside the tree is written outside through any
	// of its names (see hardlinked).
	Dev, Ino, Nlink uint64
}

func (f fileState) same(g fileState) bool {
	return f.Link == g.Link && f.Special == g.Special && f.Perm == g.Perm && f.Hash == g.Hash
}

// kind names what the entry is, for events.
func (f fileState) kind() string {
	switch {
	case f.Link:
		return "a symbolic link"
	case f.Special&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case f.Special&fs.ModeSocket != 0:
		return "a socket"
	case f.Special&fs.ModeDevice != 0:
		return "a device"
	case f.Special != 0:
		return "a special file"
	}
	return "a regular file"
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
	// gitDir walks a git directory instead of a work tree: only what
	// internal/gitguard guards (gitguard.WalkGitDir), never its data
	// folders (objects/, refs/, logs/, lfs/, annex/).
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
	var err error
	if sn.gitDir {
		// What a git directory holds that can run a program, and what of
		// it is never entered, is internal/gitguard's rule; every entry
		// that cannot be read fails the snapshot.
		err = gitguard.WalkGitDir(sn.root, gitguard.WalkOptions{Strict: true}, func(path, rel string, d fs.DirEntry) error {
			if d.IsDir() {
				s.Dirs[rel] = true
				return nil
			}
			return sn.add(s, path, rel, d)
		})
	} else {
		err = filepath.WalkDir(sn.root, func(path string, d fs.DirEntry, err error) error {
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
			return sn.add(s, path, rel, d)
		})
	}
	if err != nil {
		return nil, fmt.Errorf("toolrun: snapshot %s: %w", sn.root, err)
	}
	return s, nil
}

// add records one entry that is not a folder into s, within MaxFiles.
func (sn *snapshotter) add(s *snapshot, path, rel string, d fs.DirEntry) error {
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
}

// readFile records one entry that is not a folder: a regular file (by
// content), a symbolic link (by target), or a FIFO, socket or device (by
// identity: never opened).
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
		return specialState(info), nil
	}
	st.Perm = info.Mode().Perm()
	st.Size = info.Size()
	st.Dev, st.Ino, st.Nlink = fileIdentity(info)
	keep := st.Size <= sn.limits.MaxFileBytes && (sn.priority[rel] || s.kept+st.Size <= sn.limits.MaxTotalBytes)
	if !keep {
		// Hashed as a stream: a file too big to keep is never held whole.
		if st.Hash, err = hashRegular(path); err != nil {
			return nil, err
		}
		return &st, nil
	}
	// Not os.ReadFile: a FIFO swapped in after the walk must not block.
	data, err := readRegular(path, sn.limits.MaxFileBytes+1)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > sn.limits.MaxFileBytes {
		// It grew past the limit since the walk saw it.
		if st.Hash, err = hashRegular(path); err != nil {
			return nil, err
		}
		return &st, nil
	}
	st.Hash = sha256.Sum256(data)
	st.Content, st.Kept = data, true
	s.kept += int64(len(data))
	return &st, nil
}

// specialState records a FIFO, socket or device by its type and identity,
// without opening it.
func specialState(info fs.FileInfo) *fileState {
	st := &fileState{Special: info.Mode().Type(), Perm: info.Mode().Perm()}
	st.Dev, st.Ino, st.Nlink = fileIdentity(info)
	st.Hash = sha256.Sum256([]byte(fmt.Sprintf("special %v %d %d", info.Mode(), st.Dev, st.Ino)))
	return st
}

// fileIdentity returns the device, inode and link count of info.
func fileIdentity(info fs.FileInfo) (dev, ino, nlink uint64) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino, uint64(st.Nlink)
	}
	return 0, 0, 1
}

// hashRegular hashes a regular file as a stream, opened as readRegular
// opens it.
func hashRegular(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := safefile.Open(path, safefile.Options{NoFollow: true})
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, fmt.Errorf("hash %s: %w", path, err)
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

// change is one file that differs between two snapshots.
type change struct {
	Path   string
	Op     string // contract.PatchCreate, PatchEdit or PatchDelete
	Before fileState
	After  fileState
	// Linked marks a file that became a hard link to a file outside what
	// the snapshot sees: when its pre-run content was not kept, the link
	// is removed all the same.
	Linked bool
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

// describe says what happened to the file, for events: "created as a
// FIFO", "replaced by a symbolic link", "edited", "deleted".
func (c change) describe() string {
	switch {
	case c.Op == opCreate && c.After.kind() != "a regular file":
		return "created as " + c.After.kind()
	case c.Op == opEdit && c.After.kind() != c.Before.kind():
		return "replaced by " + c.After.kind()
	case c.Op == opEdit && c.Linked:
		return "replaced by a hard link"
	}
	return opPast(c.Op)
}

const (
	opCreate = "create"
	opEdit   = "edit"
	opDelete = "delete"
)

// revert puts one out-of-scope change back to its pre-run state. Every
// write is checked to land inside the root once symbolic links are
// resolved, so a link planted by the tool cannot redirect it; and no
// write goes through what the tool left at the path (a FIFO, a device, a
// link, a hard link): that is removed or renamed over, never opened.
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
		err := restore(root, full, c)
		if err != nil && c.Linked && !c.Before.Kept {
			if rerr := os.Remove(full); rerr == nil {
				return fmt.Errorf("%w; the hard link was removed", err)
			}
		}
		return err
	}
	return fmt.Errorf("revert %s: unknown operation %q", c.Path, c.Op)
}

// restore puts the pre-run entry of c back at full. Whatever stands there
// is removed (a folder, a link, a FIFO, a socket) or renamed over (a
// file), so nothing is written through it and nothing blocks.
func restore(root, full string, c change) error {
	b := c.Before
	switch {
	case b.Special != 0 && b.Special&fs.ModeNamedPipe == 0:
		return fmt.Errorf("restore %s: %s cannot be made again", c.Path, b.kind())
	case !b.Kept && b.Special == 0:
		return fmt.Errorf("restore %s: its pre-run content was not kept (%d bytes, over the snapshot limits)", c.Path, b.Size)
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("restore %s: %w", c.Path, err)
	}
	// MkdirAll may have followed a link the tool planted; check again.
	if err := checkInside(root, filepath.Dir(full)); err != nil {
		return err
	}
	info, err := os.Lstat(full)
	if err == nil && (info.IsDir() || !b.Kept || b.Link) {
		if err := os.RemoveAll(full); err != nil {
			return fmt.Errorf("restore %s: clear: %w", c.Path, err)
		}
	}
	switch {
	case b.Link:
		err = os.Symlink(string(b.Content), full)
	case b.Special != 0:
		// A FIFO that was there before the run (Kept is false for it).
		if err = syscall.Mkfifo(full, uint32(b.Perm)); err == nil {
			err = os.Chmod(full, b.Perm)
		}
	default:
		err = restoreRegular(full, c)
	}
	if err != nil {
		return fmt.Errorf("restore %s: %w", c.Path, err)
	}
	return nil
}

// restoreRegular puts a regular file's pre-run content back. When the
// file at full is still the very file that was there (same device and
// inode, and not made a link to one outside), it is written in place, so
// the user's own other names for it get their content back too; anything
// else gets a new file renamed over it.
func restoreRegular(full string, c change) error {
	b := c.Before
	if info, err := os.Lstat(full); err == nil && info.Mode().IsRegular() && !c.Linked {
		if dev, ino, _ := fileIdentity(info); dev == b.Dev && ino == b.Ino {
			if err := rewriteSame(full, b.Dev, b.Ino, b.Content, b.Perm); !errors.Is(err, errChanged) {
				return err
			}
		}
	}
	return safefile.ReplaceFile(full, b.Content, b.Perm)
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
