package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// reposDir is the folder, inside salve's cache directory, that holds one
// directory per repository ([RepoCacheDir]).
const reposDir = "repos"

// DefaultCacheCap bounds salve's cache directory in [TrimCaches]: past it
// the repositories built least recently lose their layers.
const DefaultCacheCap = 10 << 30

// DefaultCacheMaxAge is how long [TrimCaches] keeps the layers of a
// repository no build has used.
const DefaultCacheMaxAge = 30 * 24 * time.Hour

// cacheInUse is how recently a repository's directory must have been used
// for [TrimCaches] to leave it alone: a heal may be building with it.
const cacheInUse = time.Hour

// RepoCacheDir is the directory, under salve's cache directory cacheDir,
// of the builds of the repository checked out at repo: it holds salve's
// layers of the build caches and the builds' scratch layers. One per
// repository, so that a build can reach with what it writes there only the
// later builds of its own repository, never another's (docs/executor.md
// §Caches). The name is a hash of repo's absolute path.
func RepoCacheDir(cacheDir, repo string) string {
	if abs, err := filepath.Abs(repo); err == nil {
		repo = abs
	}
	sum := sha256.Sum256([]byte(filepath.Clean(repo)))
	return filepath.Join(cacheDir, reposDir, hex.EncodeToString(sum[:8]))
}

// markUsed creates dir and sets its modification time to now: the last
// use [TrimCaches] goes by. A failure only costs the cache, not the build.
func markUsed(dir string) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	now := time.Now()
	_ = os.Chtimes(dir, now, now)
}

// TrimReport says what [TrimCaches] did.
type TrimReport struct {
	// Removed are the repository directories removed.
	Removed []string
	// Kept is the size in bytes of what is left.
	Kept int64
}

// TrimCaches removes from salve's cache directory cacheDir the directories
// of repositories not built for maxAge, then, while the rest is larger than
// maxBytes, those built least recently; a directory used within the last
// hour is kept whatever its size. Zero maxAge or maxBytes means the
// defaults ([DefaultCacheMaxAge], [DefaultCacheCap]). A missing cacheDir
// is no error.
func TrimCaches(ctx context.Context, cacheDir string, maxBytes int64, maxAge time.Duration) (TrimReport, error) {
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
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("executor: trim caches: %w", err)
	}
	type repoDir struct {
		path string
		used time.Time
		size int64
	}
	var dirs []repoDir
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		info, err := e.Info()
		if err != nil || !info.IsDir() {
			continue
		}
		p := filepath.Join(root, e.Name())
		dirs = append(dirs, repoDir{path: p, used: info.ModTime(), size: treeSize(p)})
		rep.Kept += dirs[len(dirs)-1].size
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].used.Before(dirs[j].used) })
	now := time.Now()
	var errs []error
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if now.Sub(d.used) < cacheInUse || (now.Sub(d.used) < maxAge && rep.Kept <= maxBytes) {
			continue
		}
		if err := os.RemoveAll(d.path); err != nil {
			errs = append(errs, err)
			continue
		}
		rep.Removed = append(rep.Removed, d.path)
		rep.Kept -= d.size
	}
	if err := errors.Join(errs...); err != nil {
		return rep, fmt.Errorf("executor: trim caches: %w", err)
	}
	return rep, nil
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
