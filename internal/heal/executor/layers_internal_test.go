package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// layerOf makes the directory of a repository with size bytes in its
// layer, last used age ago.
func layerOf(t *testing.T, cacheDir, identity string, size int, age time.Duration) string {
	t.Helper()
	dir := RepoCacheDir(cacheDir, identity)
	f := filepath.Join(dir, layerDir, "go-build", "00", "x-d")
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(strings.Repeat("x", size)), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(dir, when, when); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTrimCaches trims many layers to a budget: the least recently used
// go first, one unused past the age limit goes even under the budget, and
// one a build holds stays whatever its age.
func TestTrimCaches(t *testing.T) {
	cacheDir := t.TempDir()
	const n, size, budget = 12, 1000, 5500
	var dirs []string
	for i := range n {
		// dirs[0] is the least recently used.
		dirs = append(dirs, layerOf(t, cacheDir, fmt.Sprintf("https://example.com/r%d", i), size, time.Duration(n-i)*time.Minute))
	}
	stale := layerOf(t, cacheDir, "https://example.com/stale", 10, 40*24*time.Hour)
	held := layerOf(t, cacheDir, "https://example.com/held", 10, 50*24*time.Hour)
	release := useRepoDir(held)
	defer release()
	if err := os.Chtimes(held, time.Now().Add(-50*24*time.Hour), time.Now().Add(-50*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	rep, err := TrimCaches(context.Background(), cacheDir, budget, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept > budget {
		t.Errorf("the layers' total is %d bytes, over the budget of %d", rep.Kept, budget)
	}
	kept := budget / size
	for i, d := range dirs {
		_, err := os.Stat(d)
		if want := i >= n-kept; (err == nil) != want {
			t.Errorf("layer %d (of %d, oldest first): kept %v, want %v", i, n, err == nil, want)
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("a layer unused for 40 days was kept")
	}
	if _, err := os.Stat(held); err != nil || len(rep.InUse) != 1 || rep.InUse[0] != held {
		t.Errorf("the layer a build holds: %v, in use %v", err, rep.InUse)
	}
	if rep.Repos != kept+1 || rep.Kept != int64(kept*size+10) {
		t.Errorf("report %+v, want %d repositories of %d bytes", rep, kept+1, kept*size+10)
	}
	if rep, err := TrimCaches(context.Background(), filepath.Join(cacheDir, "none"), 0, 0); err != nil || len(rep.Removed) != 0 {
		t.Errorf("a missing cache directory: %+v %v", rep, err)
	}
}

// TestUseRepoDirAfterTrim takes a directory a trim removed: it is made
// again, and held.
func TestUseRepoDirAfterTrim(t *testing.T) {
	cacheDir := t.TempDir()
	dir := layerOf(t, cacheDir, "https://example.com/a", 100, 40*24*time.Hour)
	if rep, err := TrimCaches(context.Background(), cacheDir, 0, 0); err != nil || len(rep.Removed) != 1 {
		t.Fatalf("trim: %+v %v", rep, err)
	}
	release := useRepoDir(dir)
	defer release()
	if rep, err := TrimCaches(context.Background(), cacheDir, 1, time.Nanosecond); err != nil || len(rep.InUse) != 1 {
		t.Errorf("a held directory: %+v %v", rep, err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the held directory was removed: %v", err)
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"512K", 512 << 10}, {"10G", 10 << 30}, {"10GiB", 10 << 30}, {"3 MB", 3 << 20}, {"2t", 2 << 40},
		{"", -1}, {"0", -1}, {"-5G", -1}, {"1.5G", -1}, {"10X", -1}, {"G", -1}, {"99999999999T", -1},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if tt.want < 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	if n, err := CacheBudget(func(string) string { return "" }); err != nil || n != DefaultCacheCap {
		t.Errorf("CacheBudget unset: %d %v", n, err)
	}
	if _, err := CacheBudget(func(string) string { return "lots" }); err == nil || !strings.Contains(err.Error(), EnvCacheBudget) {
		t.Errorf("CacheBudget of a bad value: %v", err)
	}
}

// TestTrimUsed keeps the cache within its budget weighing only what a
// heal's builds used: a first call weighs everything; a heal whose layer
// stays within the budget is not followed by a full trim; the heal whose
// layer pushes the cache over the budget is, and the least recently used
// repository goes; kept sizes that are too old or unreadable mean a full
// trim.
func TestTrimUsed(t *testing.T) {
	ctx := context.Background()
	cacheDir := t.TempDir()
	const budget = 2500
	old := layerOf(t, cacheDir, "https://example.com/old", 1000, 2*time.Hour)
	e := New(Options{CacheDir: cacheDir, RepoIdentity: "https://example.com/mine"})
	used := e.UsedCacheDirs()
	mine := RepoCacheDir(cacheDir, "https://example.com/mine")
	if len(used) != 1 || used[0] != mine {
		t.Fatalf("UsedCacheDirs = %v, want [%s]", used, mine)
	}
	layerOf(t, cacheDir, "https://example.com/mine", 1000, 0)

	rep, err := TrimUsed(ctx, cacheDir, used, budget, 0)
	if err != nil || !rep.Weighed || rep.Kept != 2000 || len(rep.Removed) != 0 {
		t.Fatalf("first trim (nothing kept yet): %+v %v, want a full weighing of 2000 bytes", rep, err)
	}
	// A repository no heal of this cache reported grows: the kept sizes
	// do not see it until the next full weighing, which proves the other
	// layers were not walked.
	other := layerOf(t, cacheDir, "https://example.com/other", 100, time.Hour)
	rep, err = TrimUsed(ctx, cacheDir, used, budget, 0)
	if err != nil || rep.Weighed || rep.Kept != 2000 {
		t.Fatalf("a heal within the budget: %+v %v, want no full weighing and 2000 bytes", rep, err)
	}
	// This heal's layer grows past the budget: the same call trims.
	grow(t, mine, 1000)
	rep, err = TrimUsed(ctx, cacheDir, used, budget, 0)
	if err != nil || !rep.Weighed {
		t.Fatalf("a heal over the budget: %+v %v, want a full trim", rep, err)
	}
	if len(rep.Removed) != 1 || rep.Removed[0] != old || rep.Kept > budget {
		t.Errorf("a heal over the budget removed %v and kept %d bytes, want %s removed and at most %d kept", rep.Removed, rep.Kept, old, budget)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a repository within the budget was removed: %v", err)
	}
	if rep, err := TrimUsed(ctx, cacheDir, used, budget, time.Nanosecond); err != nil || !rep.Weighed {
		t.Errorf("kept sizes older than the interval: %+v %v, want a full weighing", rep, err)
	}
	if err := os.WriteFile(filepath.Join(cacheDir, trimStateFile), []byte(`{"weighed":"2026-01-01T00:00:00Z","sizes":{"x":-5}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, err := TrimUsed(ctx, cacheDir, used, budget, 1000*time.Hour); err != nil || !rep.Weighed {
		t.Errorf("unusable kept sizes: %+v %v, want a full weighing", rep, err)
	}
}

// grow adds n bytes to the layer of the repository directory dir.
func grow(t *testing.T, dir string, n int) {
	t.Helper()
	f := filepath.Join(dir, layerDir, "go-build", "01", fmt.Sprintf("grow-%d", n))
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(strings.Repeat("y", n)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTrimDropsStaleHealLayers: a trim removes the throw-away layers and
// the kept upper layers that no heal removed within a day (a heal that
// died), and leaves those of heals still running.
func TestTrimDropsStaleHealLayers(t *testing.T) {
	cacheDir := t.TempDir()
	repo := layerOf(t, cacheDir, "https://example.com/r", 10, time.Minute)
	old, fresh := time.Now().Add(-2*untrustedMaxAge), time.Now()
	made := map[string]time.Time{}
	for _, sub := range []string{untrustedDir, keptDir} {
		for name, when := range map[string]time.Time{"dead": old, "running": fresh} {
			d := filepath.Join(repo, sub, name)
			if err := os.MkdirAll(filepath.Join(d, "target", "upper"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(d, when, when); err != nil {
				t.Fatal(err)
			}
			made[d] = when
		}
	}
	if _, err := TrimCaches(context.Background(), cacheDir, 1<<30, 0); err != nil {
		t.Fatal(err)
	}
	for d, when := range made {
		_, err := os.Stat(d)
		if want := when.Equal(fresh); (err == nil) != want {
			t.Errorf("%s (used %s ago): kept %v, want %v", d, time.Since(when).Round(time.Hour), err == nil, want)
		}
	}
}
