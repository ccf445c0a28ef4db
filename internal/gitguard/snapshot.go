package gitguard

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/safefile"
)

// maxKeep bounds the content kept of one guarded file; a larger one is
// compared by size and modification time, and cannot be put back.
const maxKeep = 4 << 20

// Guard watches the git metadata of one work tree across a build. Make it
// with [New]; a Guard is not safe for concurrent use.
type Guard struct {
	root       string
	maxEntries int
	// entries are the .git entries and single files watched whole.
	entries []string
	// dirs are the git directories whose guarded parts are watched.
	dirs []string
	// nested are the .git entries found in the tree by New.
	nested map[string]bool
}

// Snapshot is the guarded state at one moment, taken by [Guard.Take].
type Snapshot struct {
	entries map[string]state            // by absolute path
	dirs    map[string]map[string]state // by git directory, then slash path
	nested  map[string]bool
}

// state is one path: absent, a folder (by identity), a link (by target)
// or a file (by content).
type state struct {
	kind    kind
	info    fs.FileInfo // folders, and files too large to keep
	perm    fs.FileMode
	content []byte // a file's bytes or a link's target
	kept    bool
}

type kind int

const (
	absent kind = iota
	folder
	link
	file
	special
)

var kindNames = map[kind]string{absent: "absent", folder: "a folder", link: "a link", file: "a file", special: "a special file"}

func (s state) same(t state) bool {
	if s.kind != t.kind {
		return false
	}
	switch s.kind {
	case folder, special:
		return os.SameFile(s.info, t.info)
	case link:
		return bytes.Equal(s.content, t.content)
	case file:
		if s.perm != t.perm || s.kept != t.kept {
			return false
		}
		if !s.kept {
			return s.info.Size() == t.info.Size() && s.info.ModTime().Equal(t.info.ModTime())
		}
		return bytes.Equal(s.content, t.content)
	}
	return true
}

// Change is one guarded path the build changed, and what was done about
// it.
type Change struct {
	// Path is the absolute path.
	Path string
	// What says how it changed, for people: "a file became absent".
	What string
	// Restored is true when the path was put back as it was.
	Restored bool
	// Err says why it could not be put back.
	Err error
}

// String describes the change in one line.
func (c Change) String() string {
	switch {
	case c.Restored && c.What == "created":
		return fmt.Sprintf("%s: created; removed", c.Path)
	case c.Restored:
		return fmt.Sprintf("%s: %s; put back", c.Path, c.What)
	case c.Err != nil:
		return fmt.Sprintf("%s: %s; NOT put back: %v", c.Path, c.What, c.Err)
	}
	return fmt.Sprintf("%s: %s", c.Path, c.What)
}

// Options tune a [Guard]. The zero value guards everything with the
// default bound.
type Options struct {
	// MaxEntries bounds the searches; zero means [DefaultMaxEntries].
	MaxEntries int
	// Extra are single files watched whole, such as the user's global git
	// config.
	Extra []string
	// EntriesOnly watches the .git entries alone (each one's kind and
	// content, and the new ones in the tree), not what the git directories
	// hold: for a build in a sandbox that mounts the git directories
	// read-only, where any change inside them is the user's own.
	EntriesOnly bool
}

// New finds what to guard around root (an absolute, symlink-free folder):
// the repositories of [Find], their git directories, and root/.git even
// when absent (one the build creates is removed).
func New(root string, o Options) (*Guard, error) {
	maxEntries := o.MaxEntries
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	repos, err := Find(root, FindOptions{MaxEntries: maxEntries})
	if err != nil {
		return nil, err
	}
	g := &Guard{root: root, maxEntries: maxEntries, nested: map[string]bool{}}
	add := func(list *[]string, p string) {
		if !slices.Contains(*list, p) {
			*list = append(*list, p)
		}
	}
	for _, r := range repos {
		add(&g.entries, r.Entry)
		if within(r.Entry, root) {
			g.nested[r.Entry] = true
		}
		for _, d := range r.Dirs {
			if !o.EntriesOnly {
				add(&g.dirs, d)
			}
		}
	}
	add(&g.entries, filepath.Join(root, ".git"))
	for _, p := range o.Extra {
		if filepath.IsAbs(p) {
			add(&g.entries, filepath.Clean(p))
		}
	}
	sort.Strings(g.entries)
	sort.Strings(g.dirs)
	return g, nil
}

// Take records the guarded state.
func (g *Guard) Take() (*Snapshot, error) {
	s := &Snapshot{entries: map[string]state{}, dirs: map[string]map[string]state{}, nested: g.nested}
	for _, p := range g.entries {
		st, err := stat(p)
		if err != nil {
			return nil, fmt.Errorf("gitguard: %w", err)
		}
		s.entries[p] = st
	}
	for _, d := range g.dirs {
		m, err := g.walk(d)
		if err != nil {
			return nil, err
		}
		s.dirs[d] = m
	}
	return s, nil
}

// walk records the guarded parts of git directory dir. Other worktrees'
// folders are left alone: a heal or the user may add a worktree while the
// build runs. The worktree being built, if linked, is a git directory of
// its own here.
func (g *Guard) walk(dir string) (map[string]state, error) {
	out := map[string]state{}
	err := WalkGitDir(dir, WalkOptions{MaxEntries: g.maxEntries, SkipWorktrees: true}, func(p, rel string, d fs.DirEntry) error {
		if !Guarded(rel) {
			return nil
		}
		st, err := stat(p)
		if err != nil {
			return err
		}
		out[rel] = st
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitguard: read %s: %w", dir, err)
	}
	return out, nil
}

// stat reads one path without following a final link.
func stat(p string) (state, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
		return state{}, nil
	}
	if err != nil {
		return state{}, err
	}
	st := state{info: fi, perm: fi.Mode().Perm()}
	switch {
	case fi.IsDir():
		st.kind = folder
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return state{}, err
		}
		st.kind, st.content, st.kept = link, []byte(t), true
	case fi.Mode().IsRegular():
		st.kind = file
		if fi.Size() <= maxKeep {
			b, err := safefile.ReadPrefix(p, maxKeep+1, safefile.Options{NoFollow: true})
			if err != nil {
				return state{}, err
			}
			st.content, st.kept = b, len(b) <= maxKeep
		}
	default:
		st.kind = special
	}
	return st, nil
}

// isNotDir reports whether err says a parent of the path is not a folder.
func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

// Restore compares the present with before and puts every guarded path
// back: first the .git entries and single files (so that a git directory
// moved aside is back before anything in it is read), then the guarded
// parts of each git directory, then it removes the .git entries created
// in the tree. It returns one Change per path that differed.
func (g *Guard) Restore(before *Snapshot) []Change {
	var out []Change
	for _, p := range g.entries {
		b := before.entries[p]
		now, err := stat(p)
		if err == nil && now.same(b) {
			continue
		}
		c := Change{Path: p, What: describe(b, now)}
		if b.kind == folder {
			c.Err = g.putBackFolder(p, b, now)
			if c.Err == nil && now.kind != absent {
				c.What += " (the build's one is now " + p + ".planted)"
			}
		} else {
			c.Err = g.putBack(g.baseOf(p), p, b, now)
		}
		c.Restored = c.Err == nil
		out = append(out, c)
	}
	for _, d := range g.dirs {
		out = append(out, g.restoreDir(d, before.dirs[d])...)
	}
	entries, err := FindEntries(g.root, FindOptions{MaxEntries: g.maxEntries})
	if err != nil {
		return append(out, Change{Path: g.root, What: "cannot be searched for new .git entries", Err: err})
	}
	for _, p := range entries {
		if before.nested[p] || slices.Contains(g.entries, p) {
			continue
		}
		c := Change{Path: p, What: "created"}
		if c.Err = realParents(g.root, p); c.Err == nil {
			c.Err = os.RemoveAll(p)
		}
		c.Restored = c.Err == nil
		out = append(out, c)
	}
	return out
}

func describe(b, now state) string {
	if b.kind == file && now.kind == file {
		return "edited"
	}
	if b.kind == folder && now.kind == folder {
		return "a folder replaced by another"
	}
	return kindNames[b.kind] + " became " + kindNames[now.kind]
}

// baseOf is the folder below which p's parents must be real folders
// before p is touched: the work tree root for paths in it, else p's own
// folder.
func (g *Guard) baseOf(p string) string {
	if within(p, g.root) {
		return g.root
	}
	return filepath.Dir(p)
}

// putBackFolder puts back the .git folder at p, which a git directory
// cannot be rebuilt from a snapshot: whatever stands at p now is moved
// aside (p + ".planted"), and the original folder is searched for, by
// identity, in the folder around p (a build that renamed .git and wrote a
// new one) and moved back.
func (g *Guard) putBackFolder(p string, b, now state) error {
	if err := realParents(g.baseOf(p), p); err != nil {
		return err
	}
	if now.kind != absent {
		aside := p + ".planted"
		if err := os.RemoveAll(aside); err != nil {
			return fmt.Errorf("clear %s: %w", aside, err)
		}
		if err := os.Rename(p, aside); err != nil {
			return fmt.Errorf("move the planted %s aside: %w", p, err)
		}
	}
	if q := FindFolder(filepath.Dir(p), b.info, g.maxEntries); q != "" {
		return os.Rename(q, p)
	}
	return errors.New("the git directory was moved or removed and cannot be found to put back")
}

// realParents checks that every folder between base and p (base
// excluded, p too) is a real folder, not a link: a path is never removed
// or written through a link the build planted.
func realParents(base, p string) error {
	rel, err := filepath.Rel(base, filepath.Dir(p))
	if err != nil || rel == "." {
		return nil
	}
	if strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is not under %s", p, base)
	}
	cur := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s was replaced by %s", cur, kindNames[kindOf(fi)])
		}
	}
	return nil
}

func kindOf(fi fs.FileInfo) kind {
	switch {
	case fi.IsDir():
		return folder
	case fi.Mode()&fs.ModeSymlink != 0:
		return link
	case fi.Mode().IsRegular():
		return file
	}
	return special
}

// restoreDir puts the guarded parts of git directory d back as before.
func (g *Guard) restoreDir(d string, before map[string]state) []Change {
	if st, err := stat(d); err != nil || st.kind != folder {
		return []Change{{Path: d, What: "the git directory is gone", Err: errors.New("not a folder any more")}}
	}
	now, err := g.walk(d)
	if err != nil {
		return []Change{{Path: d, What: "cannot be read after the build", Err: err}}
	}
	var created, changed []string
	for rel := range now {
		if _, ok := before[rel]; !ok {
			created = append(created, rel)
		}
	}
	for rel, b := range before {
		if n, ok := now[rel]; !ok || !n.same(b) {
			changed = append(changed, rel)
		}
	}
	// Remove what was created deepest first, then put back what changed
	// shallowest first, so that a folder replaced by a file (or the
	// reverse) can be put back.
	sort.Sort(sort.Reverse(sort.StringSlice(created)))
	sort.Strings(changed)
	var out []Change
	for _, rel := range created {
		p := filepath.Join(d, filepath.FromSlash(rel))
		c := Change{Path: p, What: "created"}
		if c.Err = realParents(d, p); c.Err == nil {
			c.Err = os.RemoveAll(p)
		}
		c.Restored = c.Err == nil
		out = append(out, c)
	}
	for _, rel := range changed {
		p := filepath.Join(d, filepath.FromSlash(rel))
		n, _ := stat(p)
		b := before[rel]
		c := Change{Path: p, What: describe(b, n)}
		c.Err = g.putBack(d, p, b, n)
		c.Restored = c.Err == nil
		out = append(out, c)
	}
	return out
}

// putBack makes p, below base, what b recorded, replacing now. A guarded
// folder (hooks/) that is gone is recreated, and its files are put back
// after it; one replaced by another folder is kept, its content being
// compared file by file.
func (g *Guard) putBack(base, p string, b, now state) error {
	if err := realParents(base, p); err != nil {
		return err
	}
	if b.kind == folder && now.kind == folder {
		return nil
	}
	if b.kind == folder && slices.Contains(g.dirs, p) {
		return errors.New("the git directory was replaced; check the repository by hand")
	}
	if now.kind != absent {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("remove: %w", err)
		}
	}
	switch b.kind {
	case absent:
		return nil
	case folder:
		if err := os.Mkdir(p, b.perm); err != nil {
			return err
		}
		return os.Chmod(p, b.perm)
	case link:
		return os.Symlink(string(b.content), p)
	case file:
		if !b.kept {
			return errors.New("its content was too large to keep")
		}
		return writeNew(p, b.content, b.perm)
	}
	return errors.New("a special file cannot be put back")
}

// writeNew creates p (which must not exist: no link is followed) with
// data and perm.
func writeNew(p string, data []byte, perm fs.FileMode) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p, perm)
	}
	return err
}
