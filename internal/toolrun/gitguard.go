package toolrun

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/salve-dev/salve/internal/gitguard"
	"github.com/salve-dev/salve/internal/safefile"
)

// The git guard keeps a tool from leaving behind anything that makes the
// user's next git command run a program. What counts as such, in a git
// directory and around it, is internal/gitguard's rule, and its walkers
// find the .git entries of the tree, the repository above it, and walk each
// git directory's guarded parts (never its data folders). What is this
// adapter's own is how it keeps and puts them back: every guarded entry by
// content hash (FIFOs, sockets and hard links included, reverted like any
// out-of-scope change), linked worktrees' folders under worktrees/ watched
// too, a planted git directory moved aside to a quarantine name, HEAD moves
// reported, and each change an ERROR event and exit -5 (see unsafe.go).
// The user's global git config files (gitguard.GlobalConfig, under the
// tool's HOME and XDG_CONFIG_HOME) are kept too: a key planted there would
// run in every repository.

// entryState is the state of one path: absent, a folder (by identity), or
// a file or link (by content).
type entryState struct {
	Exists   bool
	Dir      bool
	Dev, Ino uint64
	File     fileState
	// info is what Lstat said, to find a moved folder by identity.
	info fs.FileInfo
}

func (e entryState) same(f entryState) bool {
	switch {
	case e.Exists != f.Exists:
		return false
	case !e.Exists:
		return true
	case e.Dir != f.Dir:
		return false
	case e.Dir:
		return e.Dev == f.Dev && e.Ino == f.Ino
	}
	return e.File.same(f.File)
}

func (e entryState) kind() string {
	switch {
	case !e.Exists:
		return "absent"
	case e.Dir:
		return "folder"
	case e.File.Link:
		return "link to " + string(e.File.Content)
	}
	return "file"
}

// statEntry reads one path without following a final link. Files are kept
// with content up to max bytes.
func statEntry(path string, max int64) (entryState, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return entryState{}, nil
	}
	if err != nil {
		return entryState{}, err
	}
	e := entryState{Exists: true, info: fi}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		e.Dev, e.Ino = uint64(st.Dev), st.Ino
	}
	switch {
	case fi.IsDir():
		e.Dir = true
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(path)
		if err != nil {
			return entryState{}, err
		}
		e.File = fileState{Link: true, Perm: 0o777, Content: []byte(t), Kept: true, Size: int64(len(t))}
		e.File.Hash = sha256.Sum256(e.File.Content)
	case fi.Mode().IsRegular():
		e.File.Perm, e.File.Size = fi.Mode().Perm(), fi.Size()
		data, err := readRegular(path, max)
		if err != nil {
			return entryState{}, err
		}
		e.File.Hash = sha256.Sum256(data)
		if int64(len(data)) == fi.Size() {
			e.File.Content, e.File.Kept = data, true
		}
	default:
		// A FIFO, socket or device: identity only.
		e.File.Perm = fi.Mode().Perm() | fi.Mode().Type()
		e.File.Hash = sha256.Sum256([]byte(fmt.Sprintf("special %v %d %d", fi.Mode(), e.Dev, e.Ino)))
	}
	return e, nil
}

// readRegular reads at most max bytes of a regular file, opening it
// without following a link and without blocking on a FIFO swapped in.
func readRegular(path string, max int64) ([]byte, error) {
	return safefile.ReadPrefix(path, max, safefile.Options{NoFollow: true})
}

// gitGuard holds what the guard watches for one run.
type gitGuard struct {
	root   string // the real work tree root
	limits Limits
	// entries are the .git entries (absolute paths) and single files
	// (global config) kept whole.
	entries []string
	// dirs are the git directories walked for guarded files.
	dirs []string
	// nested holds the tree's .git entries found by newGitGuard, used by
	// the first take instead of a second walk.
	nested map[string]bool
}

// gitSnapshot is the guarded state at one moment.
type gitSnapshot struct {
	Entries map[string]entryState // by absolute path
	Dirs    map[string]*snapshot  // by git directory
	// Nested lists the .git entries found inside the tree (slash paths
	// relative to root).
	Nested map[string]bool
	// Heads is headState by git directory.
	Heads map[string]string
}

// newGitGuard finds what to guard around root (gitguard.Find): the .git
// entries inside the tree (nested: submodules, vendored repositories, the
// root's own), the repository that holds root, their git and common
// directories, the global config files under home (and xdgConfig), and the
// system config.
func newGitGuard(root, home, xdgConfig string, limits Limits) (*gitGuard, error) {
	g := &gitGuard{root: root, limits: limits, nested: map[string]bool{}}
	repos, err := gitguard.Find(root, gitEntryOptions(limits))
	if err != nil {
		return nil, err
	}
	seenEntry, seenDir := map[string]bool{}, map[string]bool{}
	addEntry := func(p string) {
		if !seenEntry[p] {
			seenEntry[p] = true
			g.entries = append(g.entries, p)
		}
	}
	for _, r := range repos {
		addEntry(r.Entry)
		if rel, ok := relInside(root, r.Entry); ok {
			g.nested[rel] = true
		}
		for _, d := range r.Dirs {
			if !seenDir[d] {
				seenDir[d] = true
				g.dirs = append(g.dirs, d)
			}
		}
	}
	// Where root has no .git, one the tool creates is caught as a new
	// nested entry; watch the root's own name as well.
	addEntry(filepath.Join(root, ".git"))
	for _, p := range gitguard.GlobalConfig(home, xdgConfig) {
		addEntry(p)
	}
	sort.Strings(g.entries)
	sort.Strings(g.dirs)
	return g, nil
}

// gitEntryOptions are the options of the search for .git entries: it
// passes over the folders this package's snapshot does not read (and no
// other), so that a .git anywhere the scope check looks is found.
func gitEntryOptions(limits Limits) gitguard.FindOptions {
	return gitguard.FindOptions{MaxEntries: 4 * limits.MaxFiles, Skip: isIgnoredDir}
}

// relInside returns p as a slash path relative to root when p lies below
// root.
func relInside(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// findGitEntries lists the .git entries of the tree (slash paths relative
// to root).
func findGitEntries(root string, limits Limits) (map[string]bool, error) {
	entries, err := gitguard.FindEntries(root, gitEntryOptions(limits))
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, p := range entries {
		if rel, ok := relInside(root, p); ok {
			found[rel] = true
		}
	}
	return found, nil
}

// take records the guarded state.
func (g *gitGuard) take() (*gitSnapshot, error) {
	s := &gitSnapshot{Entries: map[string]entryState{}, Dirs: map[string]*snapshot{}}
	for _, p := range g.entries {
		e, err := statEntry(p, g.limits.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("toolrun: git guard: %w", err)
		}
		s.Entries[p] = e
	}
	for _, d := range g.dirs {
		sn := &snapshotter{root: d, limits: g.limits, gitDir: true, priority: map[string]bool{}}
		ds, err := sn.take()
		if err != nil {
			return nil, fmt.Errorf("toolrun: git guard: %w", err)
		}
		s.Dirs[d] = ds
	}
	nested := g.nested
	g.nested = nil
	if nested == nil {
		var err error
		if nested, err = findGitEntries(g.root, g.limits); err != nil {
			return nil, err
		}
	}
	s.Nested = nested
	s.Heads = g.heads()
	return s, nil
}

// gitChange is one guarded path that changed, and what was done about it.
type gitChange struct {
	Path     string // absolute
	What     string // for people: "created", "edited", "deleted", "replaced"
	Reverted bool
	Err      error
}

// restore compares now with before and puts every guarded path back:
// first the .git entries (so that a git directory moved aside is back
// before anything else is read), then the files of each git directory,
// then .git entries created in the tree. It returns one gitChange per path
// that differed.
func (g *gitGuard) restore(before *gitSnapshot, quarantine string) []gitChange {
	var out []gitChange
	for _, p := range g.entries {
		b := before.Entries[p]
		now, err := statEntry(p, g.limits.MaxFileBytes)
		if err == nil && now.same(b) {
			continue
		}
		c := gitChange{Path: p, What: fmt.Sprintf("%s became %s", b.kind(), now.kind())}
		c.Err = restoreEntry(p, b, now, quarantine)
		c.Reverted = c.Err == nil
		out = append(out, c)
	}
	for _, d := range g.dirs {
		bs := before.Dirs[d]
		sn := &snapshotter{root: d, limits: g.limits, gitDir: true, priority: map[string]bool{}}
		as, err := sn.take()
		if err != nil {
			out = append(out, gitChange{Path: d, What: "cannot be read after the run", Err: err})
			continue
		}
		// Every kind of entry counts: a FIFO planted as a hook (or put in
		// place of config, where it blocks every git command) is reported
		// and removed like a script would be, and a file made a hard link
		// to one outside is replaced.
		changes := treeChanges(bs, as)
		// Remove what was created before restoring what was changed, deepest
		// first, so that a folder replaced by a file (or the reverse) can
		// be put back.
		sort.SliceStable(changes, func(i, j int) bool {
			ci, cj := changes[i].Op == opCreate, changes[j].Op == opCreate
			if ci != cj {
				return ci
			}
			if ci {
				return changes[i].Path > changes[j].Path
			}
			return changes[i].Path < changes[j].Path
		})
		for _, ch := range changes {
			c := gitChange{Path: filepath.Join(d, filepath.FromSlash(ch.Path)), What: ch.describe()}
			c.Err = revert(d, bs, ch)
			c.Reverted = c.Err == nil
			out = append(out, c)
		}
	}
	now, err := findGitEntries(g.root, g.limits)
	if err != nil {
		out = append(out, gitChange{Path: g.root, What: "cannot be searched for new .git entries", Err: err})
		return out
	}
	var created []string
	for rel := range now {
		p := filepath.Join(g.root, filepath.FromSlash(rel))
		if !before.Nested[rel] && !slices.Contains(g.entries, p) {
			created = append(created, rel)
		}
	}
	sort.Strings(created)
	for _, rel := range created {
		p := filepath.Join(g.root, filepath.FromSlash(rel))
		c := gitChange{Path: p, What: "created"}
		if err := checkInside(g.root, filepath.Dir(p)); err != nil {
			c.Err = err
		} else if err := os.RemoveAll(p); err != nil {
			c.Err = err
		}
		c.Reverted = c.Err == nil
		out = append(out, c)
	}
	return out
}

func opPast(op string) string {
	switch op {
	case opCreate:
		return "created"
	case opDelete:
		return "deleted"
	}
	return "edited"
}

// restoreEntry puts one .git entry (or guarded single file) back. A git
// directory cannot be rebuilt from a snapshot: when the folder at p is not
// the one that was there, whatever is at p now is moved aside to
// p+quarantine, and the original folder is searched for among p's
// siblings (a tool that renamed .git and wrote a .git file pointing at
// the copy) and moved back.
func restoreEntry(p string, b, now entryState, quarantine string) error {
	parent := filepath.Dir(p)
	if now.Exists {
		if b.Exists && b.Dir {
			if err := os.Rename(p, p+quarantine); err != nil {
				return fmt.Errorf("move the planted %s aside: %w", p, err)
			}
		} else if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove %s: %w", p, err)
		}
	}
	switch {
	case !b.Exists:
		return nil
	case b.Dir:
		ents, err := os.ReadDir(parent)
		if err != nil {
			return err
		}
		for _, e := range ents {
			q := filepath.Join(parent, e.Name())
			st, err := statEntry(q, 0)
			if err == nil && st.Dir && st.Dev == b.Dev && st.Ino == b.Ino {
				return os.Rename(q, p)
			}
		}
		// Moved deeper into the tree (the work tree holds the .git), the
		// dependency folders included.
		if q := gitguard.FindFolder(parent, b.info, 0); q != "" {
			return os.Rename(q, p)
		}
		return fmt.Errorf("the git directory %s was moved or removed and cannot be found to put back", p)
	case b.File.Link:
		return os.Symlink(string(b.File.Content), p)
	case !b.File.Kept:
		return fmt.Errorf("restore %s: its content was not kept", p)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, b.File.Perm)
	if err != nil {
		return fmt.Errorf("restore %s: %w", p, err)
	}
	_, err = f.Write(b.File.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p, b.File.Perm)
	}
	return err
}

// headState describes where the HEAD of git directory dir points: its
// HEAD line and, for a symbolic ref, the commit of that ref (loose in dir
// or its common directory, else in packed-refs). It is "" when dir has no
// readable HEAD. HEAD cannot make git run a program, so a moved HEAD is
// reported, not reverted: it means the tool committed or switched
// branches, which the user sees in git log.
func headState(dir string) string {
	b, err := readRegular(filepath.Join(dir, "HEAD"), 4096)
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(b))
	ref, ok := strings.CutPrefix(head, "ref:")
	if !ok {
		return head
	}
	ref = strings.TrimSpace(ref)
	if strings.Contains(ref, "..") {
		return head
	}
	dirs := []string{dir}
	if c, err := readRegular(filepath.Join(dir, "commondir"), 4096); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(dir, cd)
		}
		dirs = append(dirs, cd)
	}
	for _, d := range dirs {
		// refs/ is not guarded: a link planted there must not lead the
		// read (whose content goes into an event) out of the git directory.
		p := filepath.Join(d, filepath.FromSlash(ref))
		if checkInside(d, filepath.Dir(p)) != nil {
			continue
		}
		if v, err := readRegular(p, 4096); err == nil {
			return head + " " + strings.TrimSpace(string(v))
		}
	}
	for _, d := range dirs {
		packed, err := readRegular(filepath.Join(d, "packed-refs"), 64<<20)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(packed), "\n") {
			if sha, name, ok := strings.Cut(line, " "); ok && name == ref {
				return head + " " + sha
			}
		}
	}
	return head + " (unborn)"
}

// heads records headState of every guarded git directory that has a HEAD.
func (g *gitGuard) heads() map[string]string {
	out := map[string]string{}
	for _, d := range g.dirs {
		if h := headState(d); h != "" {
			out[d] = h
		}
	}
	return out
}

// dirIDs returns the identities of the guarded git directories and of the
// .git entries that are folders.
func (g *gitGuard) dirIDs(before *gitSnapshot) map[devIno]bool {
	out := map[devIno]bool{}
	for _, e := range before.Entries {
		if e.Exists && e.Dir {
			out[devIno{e.Dev, e.Ino}] = true
		}
	}
	for _, d := range g.dirs {
		if e, err := statEntry(d, 0); err == nil && e.Dir {
			out[devIno{e.Dev, e.Ino}] = true
		}
	}
	return out
}
