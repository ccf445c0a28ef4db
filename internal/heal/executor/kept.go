package executor

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// keepLocal gives each cache of caches inside the workspace ws (the
// checkout's node_modules and target/, shared with a heal's worktree,
// which no layer of salve's keeps) an upper layer kept from one of this
// Executor's builds to the next, in its directory of the repository
// directory repoDir: the flaky check and the verify then start from what
// the failing build compiled, as a developer's next build does, instead
// of compiling the crate again. [Executor.Discard] removes it.
func (e *Executor) keepLocal(caches []sandbox.Cache, repoDir, ws string) []sandbox.Cache {
	if repoDir == "" {
		return caches
	}
	e.mu.Lock()
	dir := e.keptDirLocked(repoDir)
	e.mu.Unlock()
	used := false
	for i, c := range caches {
		if c.Layer != "" || c.Name == "" || !insideDir(c.Dst, ws) {
			continue
		}
		caches[i].Keep, used = filepath.Join(dir, c.Name), true
	}
	if used {
		now := time.Now()
		_ = os.Chtimes(dir, now, now) // in use: not stale for TrimCaches
	}
	return caches
}

// insideDir reports whether p is strictly inside dir.
func insideDir(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
