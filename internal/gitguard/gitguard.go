// Package gitguard keeps a build from leaving behind, in a checkout's git
// metadata, anything that makes the user's next git command run a
// program: a hook, a config key such as core.fsmonitor, core.hooksPath,
// core.pager or a filter driver, an attributes file naming such a driver,
// a .git file pointed at a git directory the build made, a commondir
// pointed at another repository's config, a pending rebase with "exec"
// lines.
//
// It has two halves, one per kind of sandbox:
//
//   - [ReadOnlyPaths] names the .git entries and git directories inside a
//     workspace that a sandbox mounts read-only over its writable
//     workspace, so that the build can neither write them nor rename or
//     remove them (a mount point cannot be moved);
//   - [Guard] snapshots the program-running parts of those git directories
//     before a build and puts them back after it, reporting each change:
//     the only protection a build without a sandbox has, and a second
//     line behind one (a .git the build creates where none was is removed
//     too).
//
// What counts as program-running is one table ([Guarded]): in each git
// directory, every file named config, config.worktree, commondir or
// gitdir, and everything under hooks/, info/, rebase-merge/, rebase-apply/
// and sequencer/, at any depth (submodules under modules/, linked
// worktrees under worktrees/, though [Guard] leaves the worktrees/ of a
// common directory alone and watches only the worktree it guards). The
// data folders (objects/, refs/, logs/,
// lfs/, annex/) are never entered: objects, refs, HEAD and the index
// cannot make git run a program, and reading them would cost as much as
// the repository. Around the git directories, the user's and the system's
// git config files ([GlobalConfig]) apply to every repository.
//
// The walkers are here too, shared by every guard of git metadata: the
// search of a tree for its .git entries ([FindEntries], [Find]), the walk
// of a git directory's guarded parts ([WalkGitDir]) and the search for a
// git directory moved elsewhere ([FindFolder]). The tool adapter
// (internal/toolrun) keeps and reverts what a tool changed its own way,
// but asks this package what to watch and walks through it.
//
// It also holds the rule for running git itself on a repository salve does
// not trust ([Args], [Env]): the "-c" settings that keep hooks, the file
// system monitor, pagers, editors and submodule recursion from running,
// and the transports a command may use. The git agent's actions and the
// queue worker's clone and fetch both follow it.
package gitguard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/salve-dev/salve/internal/safefile"
)

// DefaultMaxEntries bounds the folders visited when searching a workspace
// for nested .git entries, and the entries of one git directory's guarded
// parts.
const DefaultMaxEntries = 200000

// ErrTooMany is wrapped when a search or a snapshot passes its bound.
var ErrTooMany = errors.New("gitguard: too many entries")

// dataDirs are the folders of a git directory never entered.
var dataDirs = map[string]bool{"objects": true, "refs": true, "logs": true, "lfs": true, "annex": true}

// guardedNames are the file names guarded at any depth of a git directory.
var guardedNames = map[string]bool{"config": true, "config.worktree": true, "commondir": true, "gitdir": true}

// guardedDirs are the folders whose whole content is guarded.
var guardedDirs = map[string]bool{"hooks": true, "info": true, "rebase-merge": true, "rebase-apply": true, "sequencer": true}

// skipDirs are the folders of a work tree the search for nested .git
// entries does not enter unless its caller says otherwise
// ([FindOptions.Skip]): dependency and tool caches, which hold no
// submodule and may hold many folders. A repository planted there is not
// one git recurses into from the checkout.
var skipDirs = map[string]bool{
	"node_modules": true, "__pycache__": true, ".venv": true, "venv": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, ".tox": true, ".gradle": true, ".hg": true, ".svn": true,
}

// Guarded reports whether rel, a slash path inside a git directory, is
// one the guard keeps: a guarded file name, or anything in (or being) a
// guarded folder.
func Guarded(rel string) bool {
	parts := strings.Split(rel, "/")
	if guardedNames[parts[len(parts)-1]] {
		return true
	}
	for _, p := range parts {
		if guardedDirs[p] {
			return true
		}
	}
	return false
}

// DataDir reports whether a folder of a git directory called name holds
// data the guard never reads (objects, refs, logs, LFS and annex content).
func DataDir(name string) bool { return dataDirs[name] }

// Repo is one .git entry and the git directories it leads to.
type Repo struct {
	// Entry is the .git path: a folder, a file ("gitdir: …") or a link.
	Entry string
	// Dirs are its git directory and, for a linked worktree, the common
	// directory, with symbolic links resolved. Empty when Entry leads to
	// no git directory.
	Dirs []string
}

// GitDirs returns the git directory of a .git entry (the folder itself,
// the target of a link, or the "gitdir:" of a file) and its common
// directory, when they are folders that look like git directories (they
// hold HEAD), with symbolic links resolved.
func GitDirs(dotGit string) []string {
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return nil
	}
	var dir string
	switch {
	case fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0:
		dir = dotGit
	case fi.Mode().IsRegular():
		dir = pointer(dotGit, "gitdir:")
	}
	if dir == "" {
		return nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || !isGitDir(real) {
		return nil
	}
	out := []string{real}
	if c := pointer(filepath.Join(real, "commondir"), ""); c != "" {
		if rc, err := filepath.EvalSymlinks(c); err == nil && rc != real && isGitDir(rc) {
			out = append(out, rc)
		}
	}
	return out
}

// pointer reads the small file p whose first line is prefix followed by a
// path, and returns that path made absolute against p's folder, or "".
func pointer(p, prefix string) string {
	b, err := safefile.ReadPrefix(p, 4096, safefile.Options{NoFollow: true})
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	if !ok {
		return ""
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(filepath.Dir(p), v)
	}
	return filepath.Clean(v)
}

func isGitDir(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = os.Lstat(filepath.Join(dir, "HEAD"))
	return err == nil
}

// ReadOnlyPaths returns what a sandbox whose writable workspace is root
// mounts read-only over it: every .git entry in root's tree that is not a
// symbolic link (a folder, or a worktree's or submodule's .git file, so
// that it can be neither written, renamed nor removed), and each git
// directory those entries lead to when it lies inside root. A git
// directory outside root is left alone: the sandbox does not show it at
// all. Paths under another one returned are dropped; the result is
// sorted. An error (too large a tree) comes with root's own .git paths
// still listed, so a caller can bind those and report the rest.
func ReadOnlyPaths(root string, maxEntries int) ([]string, error) {
	entries, err := FindEntries(root, FindOptions{MaxEntries: maxEntries})
	if err != nil {
		entries = nil
		if _, lerr := os.Lstat(filepath.Join(root, ".git")); lerr == nil {
			entries = []string{filepath.Join(root, ".git")}
		}
	}
	var paths []string
	for _, e := range entries {
		if fi, lerr := os.Lstat(e); lerr == nil && fi.Mode()&fs.ModeSymlink == 0 {
			paths = append(paths, e)
		}
		for _, d := range GitDirs(e) {
			if within(d, root) && d != root {
				paths = append(paths, d)
			}
		}
	}
	return dropNested(paths), err
}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// dropNested sorts paths and removes duplicates and those under another.
func dropNested(paths []string) []string {
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		if len(out) > 0 && within(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}
