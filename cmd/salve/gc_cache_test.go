package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/worker"
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

// TestGCTrimsKeptClones runs salve gc over a queue worker's kept clones of
// three repositories, over the budget: the oldest is kept because a job
// holds it (its lock, taken shared as a job does), the next goes, the
// newest then fits, and gc prints the clones' total.
func TestGCTrimsKeptClones(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv(executor.EnvCacheBudget, "")
	root, err := worker.ClonesDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{}
	for _, id := range []string{"https://example.com/held", "https://example.com/old", "https://example.com/new"} {
		dir := executor.RepoCacheDir(root, id)
		dirs[id] = dir
		f := filepath.Join(dir, "git", "objects", "pack", "pack-1.pack")
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(strings.Repeat("x", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	lock, err := os.OpenFile(filepath.Join(dirs["https://example.com/held"], executor.LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"https://example.com/held", "https://example.com/old", "https://example.com/new"} {
		when := time.Now().Add(time.Duration(i-3) * time.Hour)
		if err := os.Chtimes(dirs[id], when, when); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errb := runSalve(t, "gc", "--worktrees", t.TempDir(), "--git-agent", "/bin/true", "--cache-max", "2000")
	for _, want := range []string{
		"in use clone " + dirs["https://example.com/held"] + "\n",
		"removed clone " + dirs["https://example.com/old"] + "\n",
		"kept clones: 2000 bytes in 2 repositor(ies), budget 2000 bytes\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in stdout:\n%s\nstderr:\n%s", code, want, out, errb)
		}
	}
	if _, err := os.Stat(dirs["https://example.com/new"]); err != nil {
		t.Errorf("the clone used last was removed: %v", err)
	}
}
