package executor

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/salve-dev/salve/internal/gitguard"
	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/safefile"
	"github.com/salve-dev/salve/internal/sandbox"
)

// reposDir is the folder, inside salve's cache directory, that holds one
// directory per repository ([RepoCacheDir]).
const reposDir = "repos"

// Inside a repository's directory: its layers, the throw-away layers of
// its untrusted changes, and the lock its builds hold (shared) and a trim
// takes (exclusive) before removing the directory.
const (
	layerDir     = "layer"
	untrustedDir = "untrusted"
	keptDir      = "kept"
	lockFile     = "lock"
)

// LockFile is the file inside each directory [TrimCaches] weighs that a
// process using the directory holds with a shared flock, and that a trim
// must take exclusively (without waiting) before it removes the
// directory. Another folder laid out as a cache directory (directories
// named by [RepoCacheDir], each with its LockFile), such as the queue
// worker's kept clones, is trimmed by the same rule.
const LockFile = lockFile

// DefaultCacheCap bounds salve's cache directory in [TrimCaches]: past it
// the repositories built least recently lose their layers.
const DefaultCacheCap = 10 << 30

// EnvCacheBudget names the variable that sets the budget of salve's build
// cache ([CacheBudget]): bytes, or a number with K, M, G or T (powers of
// 1024, "GiB" and "G" alike).
const EnvCacheBudget = "SALVE_BUILD_CACHE_MAX"

// DefaultCacheMaxAge is how long [TrimCaches] keeps the layers of a
// repository no build has used.
const DefaultCacheMaxAge = 30 * 24 * time.Hour

// untrustedMaxAge is how long a throw-away layer that no heal discarded
// (its process died) is left before [TrimCaches] removes it.
const untrustedMaxAge = 24 * time.Hour

// noIdentity names the directory of the builds of a folder whose
// repository has no identity (no git, no commit): they get a scratch
// directory there and no layer.
const noIdentity = "none"

// RepoIdentity names the repository checked out at dir, the key of its
// build-cache layer: the URL of its remote (empty remote: origin),
// normalised by [gitremote.Identity] (scheme, host and path; no
// credentials, no ".git"), for a clone; else the first commit reachable
// from base (empty base: HEAD) along first parents, the root of its
// history. The folder dir is never part of it, so a different repository
// later checked out at the same path has another identity. git runs with
// gitguard's hardened settings and reaches nothing.
func RepoIdentity(ctx context.Context, dir, remote, base string) (string, error) {
	if id, ok := RemoteIdentity(ctx, dir, remote); ok {
		return id, nil
	}
	return RootIdentity(ctx, dir, base)
}

// RemoteIdentity is [RepoIdentity]'s first answer: the normalised URL of
// dir's remote (empty: origin), and false when it has none.
func RemoteIdentity(ctx context.Context, dir, remote string) (string, bool) {
	if remote == "" {
		remote = "origin"
	}
	url, err := gitOutput(ctx, dir, "config", "--get", "remote."+remote+".url")
	if err != nil {
		return "", false
	}
	return gitremote.Identity(url)
}

// RootIdentity is [RepoIdentity]'s answer for a repository without a
// remote: the first commit reachable from base (empty: HEAD) along first
// parents.
func RootIdentity(ctx context.Context, dir, base string) (string, error) {
	if base == "" {
		base = "HEAD"
	}
	out, err := gitOutput(ctx, dir, "rev-list", "--first-parent", "--max-parents=0", "--end-of-options", base, "--")
	if err != nil {
		return "", fmt.Errorf("executor: the repository at %s has no remote and no history to name it by: %w", dir, err)
	}
	lines := strings.Fields(out)
	if len(lines) == 0 {
		return "", fmt.Errorf("executor: the repository at %s has no root commit reachable from %s", dir, base)
	}
	return "root:" + lines[len(lines)-1], nil
}

// gitOutput runs git in dir with gitguard's hardened settings and no
// transport, and returns its output, trimmed.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", gitguard.Args(gitguard.Offline, append([]string{"-C", dir}, args...)...)...)
	over := gitguard.Env()
	over["LC_ALL"] = "C"
	cmd.Env = sandbox.MergeEnv(sandbox.AllowedEnv(), over)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return strings.TrimSpace(string(out)), nil
}

// RepoCacheDir is the directory, under salve's cache directory cacheDir,
// of the builds of the repository named identity ([RepoIdentity]): it
// holds salve's layers of the build caches, the throw-away layers of its
// untrusted changes and the builds' scratch layers. One per repository,
// so that a build can reach with what it writes there only the later
// builds of its own repository, never another's (docs/executor.md
// §Caches). The name is a hash of the identity; an empty identity names
// the directory of builds that get no layer.
func RepoCacheDir(cacheDir, identity string) string {
	if identity == "" {
		return filepath.Join(cacheDir, reposDir, noIdentity)
	}
	sum := sha256.Sum256([]byte(identity))
	return filepath.Join(cacheDir, reposDir, hex.EncodeToString(sum[:8]))
}

// CacheBudget reads the budget of salve's build cache from EnvCacheBudget
// through getenv: unset or empty is [DefaultCacheCap].
func CacheBudget(getenv func(string) string) (int64, error) {
	v := strings.TrimSpace(getenv(EnvCacheBudget))
	if v == "" {
		return DefaultCacheCap, nil
	}
	n, err := ParseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", EnvCacheBudget, err)
	}
	return n, nil
}

// ParseSize reads a size: a whole number of bytes, or one followed by K,
// M, G or T (with or without "iB" or "B"; powers of 1024). It must be
// positive.
func ParseSize(s string) (int64, error) {
	num := strings.TrimRight(s, "KMGTiBkmgtb ")
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if !ok || err != nil || n <= 0 || n > (1<<62)>>sh {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, or one with K, M, G or T (10G)", s)
	}
	return n << sh, nil
}

// useRepoDir creates dir, marks it used now (the last use [TrimCaches]
// goes by) and takes its lock, shared, until the returned function is
// called: a trim does not remove a directory a build holds. A trim that
// removed dir between its creation and the lock is noticed (the lock file
// is no longer the one at its path) and the directory made again. A
// failure only costs the cache, never the build: the function returned
// then holds nothing.
func useRepoDir(dir string) func() {
	for range 3 {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return func() {}
		}
		f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			_ = f.Close()
			return func() {}
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(filepath.Join(dir, lockFile))
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			t := time.Now()
			_ = os.Chtimes(dir, t, t)
			return func() { _ = f.Close() }
		}
		_ = f.Close()
	}
	return func() {}
}

// tryRemove removes dir unless a build holds its lock; it reports whether
// it did.
func tryRemove(dir string) (bool, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false, nil // in use
	}
	if err := os.RemoveAll(dir); err != nil {
		return false, err
	}
	return true, nil
}

// newUntrustedDir returns a fresh throw-away directory of a heal of an
// untrusted change inside the repository's directory repoDir.
func newUntrustedDir(repoDir string) string {
	return filepath.Join(repoDir, untrustedDir, rand.Text())
}

// TrimReport says what [TrimCaches] did.
type TrimReport struct {
	// Removed are the repository directories removed.
	Removed []string
	// Kept is the size in bytes of what is left: the layers' total.
	Kept int64
	// Repos is how many repository directories are left.
	Repos int
	// InUse are the directories over the budget or age that were kept
	// because a build holds them.
	InUse []string
	// Weighed is true when every repository directory was weighed (a
	// full trim); [TrimUsed] leaves it false when the sizes it keeps,
	// with the directories just used weighed again, were within the
	// budget.
	Weighed bool
}

// TrimCaches removes from salve's cache directory cacheDir the directories
// of repositories not built for maxAge, then, while the rest is larger than
// maxBytes, those built least recently. A directory a build holds (its
// lock) is kept whatever its size or age, and listed in InUse. It also
// removes the throw-away layers of untrusted changes that no heal
// discarded within a day (a heal that died). Zero maxAge or maxBytes
// means the defaults ([DefaultCacheMaxAge], [DefaultCacheCap]). A missing
// cacheDir is no error.
func TrimCaches(ctx context.Context, cacheDir string, maxBytes int64, maxAge time.Duration) (TrimReport, error) {
	rep, _, err := trimAll(ctx, cacheDir, maxBytes, maxAge)
	rep.Weighed = err == nil
	return rep, err
}

// trimAll is [TrimCaches]; it also returns the size of each repository
// directory left, by name.
func trimAll(ctx context.Context, cacheDir string, maxBytes int64, maxAge time.Duration) (TrimReport, map[string]int64, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheCap
	}
	if maxAge <= 0 {
		maxAge = DefaultCacheMaxAge
	}
	var rep TrimReport
	root := filepath.Join(cacheDir, reposDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, map[string]int64{}, nil
	}
	if err != nil {
		return rep, nil, fmt.Errorf("executor: trim caches: %w", err)
	}
	type repoDir struct {
		path string
		used time.Time
		size int64
	}
	now := time.Now()
	var dirs []repoDir
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return rep, nil, err
		}
		info, err := e.Info()
		if err != nil || !info.IsDir() {
			continue
		}
		p := filepath.Join(root, e.Name())
		dropStaleUntrusted(p, now)
		dirs = append(dirs, repoDir{path: p, used: info.ModTime(), size: treeSize(p)})
		rep.Kept += dirs[len(dirs)-1].size
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].used.Before(dirs[j].used) })
	var errs []error
	rep.Repos = len(dirs)
	sizes := make(map[string]int64, len(dirs))
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return rep, nil, err
		}
		if now.Sub(d.used) < maxAge && rep.Kept <= maxBytes {
			sizes[filepath.Base(d.path)] = d.size
			continue
		}
		removed, err := tryRemove(d.path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !removed {
			rep.InUse = append(rep.InUse, d.path)
			sizes[filepath.Base(d.path)] = d.size
			continue
		}
		rep.Removed = append(rep.Removed, d.path)
		rep.Kept -= d.size
		rep.Repos--
	}
	if err := errors.Join(errs...); err != nil {
		return rep, nil, fmt.Errorf("executor: trim caches: %w", err)
	}
	return rep, sizes, nil
}

// dropStaleUntrusted removes the throw-away layers, and the upper layers
// kept for one heal's builds, in the repository directory dir that were
// last used more than untrustedMaxAge before now: those of heals that
// ended without removing them.
func dropStaleUntrusted(dir string, now time.Time) {
	for _, sub := range []string{untrustedDir, keptDir} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > untrustedMaxAge {
				_ = os.RemoveAll(filepath.Join(dir, sub, e.Name()))
			}
		}
	}
}

// treeSize is the size of the regular files under dir, links not followed.
func treeSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// trimStateFile is the file, in salve's cache directory, where
// [TrimUsed] keeps the size of each repository directory as the last
// full weighing found it, corrected by every heal since for the
// directories it used; trimLockFile serialises its readers and writers.
const (
	trimStateFile = "trim-state.json"
	trimLockFile  = "trim-state.lock"
)

// DefaultTrimInterval is how long [TrimUsed] goes by the sizes it keeps
// before it weighs every repository directory again: the age rules
// ([DefaultCacheMaxAge], a day for a dead heal's throw-away layer) are
// applied at least that often.
const DefaultTrimInterval = time.Hour

// maxTrimState bounds the kept sizes file read back.
const maxTrimState = 16 << 20

// trimState is what [TrimUsed] keeps between heals.
type trimState struct {
	// Weighed is when every repository directory was last weighed.
	Weighed time.Time `json:"weighed"`
	// Sizes are the repository directories' sizes in bytes, by name.
	Sizes map[string]int64 `json:"sizes"`
}

// TrimUsed keeps salve's cache directory cacheDir within maxBytes after
// builds that used the repository directories used (see
// [Executor.UsedCacheDirs]), without weighing every repository's layers
// each time. It weighs only the directories used, again, and adds them
// to the sizes kept from the last full weighing (a file in cacheDir);
// only when that total is over maxBytes, when nothing is kept, or when
// the last full weighing is older than interval (zero:
// [DefaultTrimInterval]; negative: weigh everything now) does it run
// [TrimCaches] with the default age, keeping what it weighed.
// Every heal that ends through it records what its builds wrote, so a
// cache pushed over its budget is trimmed by the heal that pushed it.
// The report's Weighed says whether the full trim ran; when it did not,
// Kept is the estimate and Repos the directories counted.
func TrimUsed(ctx context.Context, cacheDir string, used []string, maxBytes int64, interval time.Duration) (TrimReport, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheCap
	}
	if interval == 0 {
		interval = DefaultTrimInterval
	}
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return TrimReport{}, fmt.Errorf("executor: trim caches: %w", err)
	}
	unlock, err := lockTrimState(ctx, filepath.Join(cacheDir, trimLockFile))
	if err != nil {
		return TrimReport{}, err
	}
	defer unlock()
	statePath := filepath.Join(cacheDir, trimStateFile)
	st, ok := readTrimState(statePath)
	now := time.Now()
	if ok && now.Sub(st.Weighed) < interval && now.After(st.Weighed) {
		root := filepath.Join(cacheDir, reposDir)
		for _, dir := range used {
			if filepath.Dir(dir) != root {
				continue // not a repository directory of this cache
			}
			if _, err := os.Lstat(dir); err != nil {
				delete(st.Sizes, filepath.Base(dir))
				continue
			}
			st.Sizes[filepath.Base(dir)] = treeSize(dir)
		}
		rep := TrimReport{Repos: len(st.Sizes)}
		for _, n := range st.Sizes {
			rep.Kept += n
		}
		if rep.Kept <= maxBytes {
			return rep, writeTrimState(statePath, st)
		}
	}
	rep, sizes, err := trimAll(ctx, cacheDir, maxBytes, 0)
	if err != nil {
		return rep, err
	}
	rep.Weighed = true
	return rep, writeTrimState(statePath, trimState{Weighed: now, Sizes: sizes})
}

// lockTrimState takes the lock of the kept sizes, exclusive, waiting for
// another heal's update (or full trim) to end, or for ctx.
func lockTrimState(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("executor: trim caches: %w", err)
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("executor: trim caches: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return func() { _ = f.Close() }, nil
}

// readTrimState reads the kept sizes; ok is false when there are none
// to go by (missing, unreadable, or not what TrimUsed writes).
func readTrimState(path string) (trimState, bool) {
	b, err := safefile.Read(path, maxTrimState)
	if err != nil {
		return trimState{}, false
	}
	var st trimState
	if json.Unmarshal(b, &st) != nil || st.Sizes == nil || st.Weighed.IsZero() {
		return trimState{}, false
	}
	for _, n := range st.Sizes {
		if n < 0 {
			return trimState{}, false
		}
	}
	return st, true
}

// writeTrimState replaces the kept sizes.
func writeTrimState(path string, st trimState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("executor: trim caches: %w", err)
	}
	if err := safefile.ReplaceFile(path, b, 0o600); err != nil {
		return fmt.Errorf("executor: trim caches: %w", err)
	}
	return nil
}

// UsedCacheDirs returns the repository directories of salve's cache
// directory that the Executor's builds have used, for [TrimUsed].
func (e *Executor) UsedCacheDirs() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, id := range e.identities {
		dir := RepoCacheDir(e.cacheDir(), id)
		if !seen[dir] {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	if e.opts.RepoIdentity != "" {
		if dir := RepoCacheDir(e.cacheDir(), e.opts.RepoIdentity); !seen[dir] {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out
}
