package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/executor"
)

// TestGCTrimsTheBuildCache runs salve gc over a build cache of two
// repositories' layers, over the budget it is given: the one used least
// recently goes, and gc prints the layers' total.
func TestGCTrimsTheBuildCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(executor.EnvCacheBudget, "")
	for i, id := range []string{"https://example.com/old", "https://example.com/new"} {
		dir := executor.RepoCacheDir(executor.DefaultCacheDir(), id)
		f := filepath.Join(dir, "layer", "go-build", "00", "x-d")
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(strings.Repeat("x", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(time.Duration(i-2) * time.Hour)
		if err := os.Chtimes(dir, when, when); err != nil {
			t.Fatal(err)
		}
	}
	old := executor.RepoCacheDir(executor.DefaultCacheDir(), "https://example.com/old")
	code, out, errb := runSalve(t, "gc", "--worktrees", t.TempDir(), "--git-agent", "/bin/true", "--cache-max", "1500")
	if code != 0 || !strings.Contains(out, "removed cache "+old+"\n") || !strings.Contains(out, "build cache: 1000 bytes in 1 repositor(ies), budget 1500 bytes\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	if code, _, errb := runSalve(t, "gc", "--worktrees", t.TempDir(), "--git-agent", "/bin/true", "--cache-max", "lots"); code != exitBadInput || !strings.Contains(errb, "--cache-max") {
		t.Errorf("a bad --cache-max: exit %d, %s", code, errb)
	}
	t.Setenv(executor.EnvCacheBudget, "0.5G")
	if code, _, errb := runSalve(t, "gc", "--worktrees", t.TempDir(), "--git-agent", "/bin/true"); code != exitBadInput || !strings.Contains(errb, executor.EnvCacheBudget) {
		t.Errorf("a bad $%s: exit %d, %s", executor.EnvCacheBudget, code, errb)
	}
}
