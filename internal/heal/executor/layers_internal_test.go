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
