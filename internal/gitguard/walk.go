package gitguard

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The walkers every guard of git metadata shares: the search of a tree for
// its .git entries ([FindEntries], [Find]), the walk of a git directory's
// guarded parts ([WalkGitDir]) and the search for a git directory moved
// elsewhere in a tree ([FindFolder]). This package's [Guard] and the tool
// adapter's (internal/toolrun) both walk through them, so that what is
// entered, skipped and bounded is decided here once.

// FindOptions tune [FindEntries] and [Find].
type FindOptions struct {
	// MaxEntries bounds the folders searched; zero means
	// [DefaultMaxEntries].
	MaxEntries int
	// Skip reports the folders (by name) the search does not enter; nil
	// means the dependency and tool caches of [SkipDir]. A caller that
	// watches such folders itself passes its own, so that every folder it
	// reads is searched for a .git too.
	Skip func(name string) bool
}

// SkipDir reports whether the search for .git entries passes over a work
// tree folder called name by default: a dependency or tool cache, or
// another version control system's metadata.
func SkipDir(name string) bool { return skipDirs[name] }

// FindEntries lists the .git entries under root (absolute paths), root's
// own included, sorted, entering neither them nor the folders o skips,
// and never following a link.
func FindEntries(root string, o FindOptions) ([]string, error) {
	maxEntries := o.MaxEntries
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	skip := o.Skip
	if skip == nil {
		skip = SkipDir
	}
	var found []string
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil
		}
		if path == root {
			return nil
		}
		if d.Name() == ".git" {
			found = append(found, path)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if seen++; seen > maxEntries {
			return fmt.Errorf("%w: more than %d folders under %s", ErrTooMany, maxEntries, root)
		}
		if skip(d.Name()) {
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("gitguard: find .git entries: %w", err)
	}
	sort.Strings(found)
	return found, nil
}

// Find returns the repositories of root (an absolute, symlink-free
// folder): root's own .git and those nested in its tree (submodules,
// vendored repositories), sorted by entry, and the repository that holds
// root when root is not its top (searching upwards as git does), last.
func Find(root string, o FindOptions) ([]Repo, error) {
	nested, err := FindEntries(root, o)
	if err != nil {
		return nil, err
	}
	var out []Repo
	for _, p := range nested {
		out = append(out, Repo{Entry: p, Dirs: GitDirs(p)})
	}
	if _, err := os.Lstat(filepath.Join(root, ".git")); err == nil {
		return out, nil
	}
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ".git")
		if _, err := os.Lstat(p); err == nil {
			return append(out, Repo{Entry: p, Dirs: GitDirs(p)}), nil
		}
		if filepath.Dir(dir) == dir {
			return out, nil
		}
	}
}

// WalkOptions tune [WalkGitDir].
type WalkOptions struct {
	// MaxEntries bounds the entries visited (every one the walk reaches,
	// guarded or not); zero or less means no bound.
	MaxEntries int
	// SkipWorktrees leaves the git directory's own worktrees/ folder
	// alone: the other linked worktrees' folders, which a heal or the
	// user may add while a build runs. Without it they are walked like
	// the rest (a linked worktree's commondir and gitdir are guarded).
	SkipWorktrees bool
	// Strict fails the walk on an entry that cannot be read; otherwise
	// only an unreadable dir itself fails it, and what cannot be read
	// below it is passed over.
	Strict bool
}

// WalkGitDir walks git directory dir without following links, never
// entering its data folders ([DataDir], at any depth), and calls fn with
// the absolute path, the slash path relative to dir and the entry of each
// folder it enters and of each other entry [Guarded] keeps. A folder is
// passed to fn whether it is guarded or not (callers that record
// folders need them all); fn tells the guarded ones with [Guarded].
func WalkGitDir(dir string, o WalkOptions, fn func(path, rel string, d fs.DirEntry) error) error {
	n := 0
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if o.Strict || p == dir {
				return err
			}
			return nil
		}
		if p == dir {
			return nil
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		if d.IsDir() && (DataDir(d.Name()) || (o.SkipWorktrees && rel == "worktrees")) {
			return filepath.SkipDir
		}
		if n++; o.MaxEntries > 0 && n > o.MaxEntries {
			return fmt.Errorf("%w: more than %d entries in %s", ErrTooMany, o.MaxEntries, dir)
		}
		if !d.IsDir() && !Guarded(rel) {
			return nil
		}
		return fn(p, rel, d)
	})
}

// FindFolder searches the tree under root, entering no .git entry and no
// link but every other folder (dependency folders too: a build may move a
// git directory into one), for the folder that is info (by identity), and
// returns its path or "". maxEntries bounds the folders searched; zero
// means [DefaultMaxEntries].
func FindFolder(root string, info fs.FileInfo, maxEntries int) string {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	found, n := "", 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == root {
			return nil
		}
		if n++; n > maxEntries {
			return filepath.SkipAll
		}
		if fi, err := os.Lstat(p); err == nil && os.SameFile(fi, info) {
			found = p
			return filepath.SkipAll
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		return nil
	})
	return found
}

// GlobalConfig returns the git config files outside any repository that
// git reads on the host, where a key planted applies to every
// repository: the user's (~/.gitconfig and ~/.config/git/config under
// home, git/config under xdgConfig) and the system's /etc/gitconfig
// (writable when salve runs as root, as in many CI containers). A home or
// xdgConfig that is not absolute is left out.
func GlobalConfig(home, xdgConfig string) []string {
	out := []string{"/etc/gitconfig"}
	if filepath.IsAbs(home) {
		out = append(out, filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config"))
	}
	if filepath.IsAbs(xdgConfig) {
		out = append(out, filepath.Join(xdgConfig, "git", "config"))
	}
	return out
}
