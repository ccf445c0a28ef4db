package toolrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/salve-dev/salve/contract"
)

// Folders the content snapshot does not read, each for a reason:
//
//   - dependency folders (node_modules, .venv, venv, .tox) hold code that
//     the user's next `npm test` or `pytest` runs, so a file the tool plants
//     or changes there is as dangerous as a git hook. They are too big to
//     keep, so they are watched by metadata only (inode, size, mode, change
//     time): a created file is removed, a changed or deleted one is
//     reported (its bytes were never kept). Either is an unsafe change.
//     node_modules/.cache (build tools' caches) is skipped.
//   - __pycache__ holds bytecode that Python runs instead of the source
//     when its header matches, so a planted .pyc is code too. A cache can
//     always be rebuilt: every .pyc the run created or changed is deleted,
//     with a WARN event, and it is not a violation (tests and linters the
//     tool runs write them all the time).
//   - .mypy_cache, .pytest_cache, .ruff_cache hold data no program runs:
//     skipped.
//   - .git, .hg, .svn: version control; .git belongs to the git guard.

// depDirs are the dependency folders watched by metadata.
var depDirs = map[string]bool{"node_modules": true, ".venv": true, "venv": true, ".tox": true}

// cacheDirs are the bytecode caches whose new files are deleted.
var cacheDirs = map[string]bool{"__pycache__": true}

// DefaultMaxDepEntries caps the entries watched under dependency folders;
// past it, the rest is not watched (a WARN event says so).
const DefaultMaxDepEntries = 400000

// watched is the metadata state of the dependency and cache folders.
type watched struct {
	DepRoots, CacheRoots []string
	Deps, Caches         map[string]statRecord
	DepsTruncated        bool
}

// watchFolders records the dependency and cache folders of the tree.
func watchFolders(root string) *watched {
	w := &watched{Deps: map[string]statRecord{}, Caches: map[string]statRecord{}}
	w.DepRoots, w.CacheRoots = findWatchedRoots(root)
	for _, top := range w.DepRoots {
		if metaWalk(root, top, w.Deps, DefaultMaxDepEntries, nil) {
			w.DepsTruncated = true
		}
	}
	for _, top := range w.CacheRoots {
		metaWalk(root, top, w.Caches, DefaultMaxDepEntries, nil)
	}
	return w
}

// metaWalk records the entries under dir (rel is its slash path under the
// root) by metadata, into m, up to max entries in all. It skips
// node_modules/.cache. It reports whether it stopped at max.
func metaWalk(root, rel string, m map[string]statRecord, max int, skip map[devIno]bool) bool {
	full := filepath.Join(root, filepath.FromSlash(rel))
	truncated := false
	_ = filepath.WalkDir(full, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		r, _ := filepath.Rel(root, p)
		r = filepath.ToSlash(r)
		if d.IsDir() && d.Name() == ".cache" && filepath.Base(filepath.Dir(p)) == "node_modules" {
			return filepath.SkipDir
		}
		if len(m) >= max {
			truncated = true
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && d.IsDir() && skip[devIno{uint64(st.Dev), st.Ino}] {
			return filepath.SkipDir // a guarded git directory moved here
		}
		m[r] = statRecordOf(fi)
		return nil
	})
	return truncated
}

// checkWatched compares the dependency folders and caches of before with
// the tree now and acts on the differences (see the policy above).
func (rs *runState) checkWatched(before *watched) {
	if before == nil {
		return
	}
	if before.DepsTruncated {
		rs.event(contract.LevelWarn, fmt.Sprintf("Dependency folders hold more than %d entries; the rest is not watched", DefaultMaxDepEntries), nil)
	}
	deps, caches := map[string]statRecord{}, map[string]statRecord{}
	for _, top := range before.DepRoots {
		metaWalk(rs.root, top, deps, DefaultMaxDepEntries, rs.sn.gitDirIDs)
	}
	for _, top := range before.CacheRoots {
		metaWalk(rs.root, top, caches, DefaultMaxDepEntries, rs.sn.gitDirIDs)
	}
	// New dependency or cache folders the tool created are found by the
	// content snapshot's walk; look for them too.
	newDeps, newCaches := findWatchedRoots(rs.root)
	for _, top := range newDeps {
		if !slices.Contains(before.DepRoots, top) {
			metaWalk(rs.root, top, deps, DefaultMaxDepEntries, rs.sn.gitDirIDs)
		}
	}
	for _, top := range newCaches {
		if !slices.Contains(before.CacheRoots, top) {
			metaWalk(rs.root, top, caches, DefaultMaxDepEntries, rs.sn.gitDirIDs)
		}
	}

	// Caches: delete what is new or changed.
	var removed []string
	for _, p := range sortedKeys(caches) {
		a := caches[p]
		if b, ok := before.Caches[p]; (ok && b == a) || a.Mode.IsDir() {
			continue
		}
		if err := rs.removeInTree(p); err == nil {
			removed = append(removed, p)
		}
	}
	if len(removed) > 0 {
		rs.event(contract.LevelWarn, fmt.Sprintf("Deleted %d bytecode cache files the run wrote (a cache is rebuilt; a planted one would run)", len(removed)),
			map[string]any{"files": clipList(removed, 50)})
	}

	// Dependency folders: remove created entries, report changed ones.
	var created, changed []string
	for p, a := range deps {
		b, ok := before.Deps[p]
		switch {
		case !ok:
			created = append(created, p)
		case b != a && !(a.Mode.IsDir() && b.Mode.IsDir()):
			changed = append(changed, p)
		}
	}
	for p := range before.Deps {
		if _, ok := deps[p]; !ok {
			changed = append(changed, p)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(created))) // children first
	sort.Strings(changed)
	for _, p := range created {
		ctx := map[string]any{"file_path": p}
		if err := rs.removeInTree(p); err != nil {
			rs.event(contract.LevelError, fmt.Sprintf("The tool created %s in a dependency folder; NOT removed: %v", p, err), ctx)
		} else {
			rs.event(contract.LevelError, fmt.Sprintf("The tool created %s in a dependency folder; removed", p), ctx)
		}
		rs.unsafe = append(rs.unsafe, p)
	}
	for _, p := range changed {
		rs.event(contract.LevelError, fmt.Sprintf("The tool changed or deleted %s in a dependency folder; NOT reverted (dependency folders are watched, not kept)", p),
			map[string]any{"file_path": p})
		rs.unsafe = append(rs.unsafe, p)
	}
}

// removeInTree removes one file, link or empty folder of the tree, never
// through a link out of it.
func (rs *runState) removeInTree(rel string) error {
	full := filepath.Join(rs.root, filepath.FromSlash(rel))
	if err := checkInside(rs.root, filepath.Dir(full)); err != nil {
		return err
	}
	fi, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return os.Remove(full) // children were removed first
	}
	return os.Remove(full)
}

// findWatchedRoots lists the top dependency and cache folders of the tree.
func findWatchedRoots(root string) (deps, caches []string) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == root {
			return nil
		}
		name := d.Name()
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case name == ".git" || name == ".hg" || name == ".svn":
			return filepath.SkipDir
		case depDirs[name]:
			deps = append(deps, rel)
			return filepath.SkipDir
		case cacheDirs[name]:
			caches = append(caches, rel)
			return filepath.SkipDir
		case isIgnoredDir(name):
			return filepath.SkipDir
		}
		return nil
	})
	return deps, caches
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func clipList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("… %d more", len(s)-n))
}

// matchAny reports whether rel matches one of the doublestar globs.
func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, rel); ok {
			return true
		}
	}
	return false
}
