package worker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/service"
)

// TestCacheKey keys a job's build-cache layer by its repository however
// its URL is spelled, and a fork's by the repository it is proposed to,
// read only.
func TestCacheKey(t *testing.T) {
	tests := []struct {
		name      string
		req       service.Request
		identity  string
		untrusted bool
	}{
		{"a clone URL", service.Request{Repo: "https://github.com/acme/api.git"}, "https://github.com/acme/api", false},
		{"the same without .git", service.Request{Repo: "https://github.com/acme/api"}, "https://github.com/acme/api", false},
		{"a fork", service.Request{Repo: "https://github.com/mallory/api.git", Upstream: "https://github.com/acme/api.git", Untrusted: true},
			"https://github.com/acme/api", true},
		{"an upstream implies untrusted", service.Request{Repo: "https://github.com/mallory/api.git", Upstream: "https://github.com/acme/api.git"},
			"https://github.com/acme/api", true},
		{"untrusted by the API", service.Request{Repo: "https://github.com/acme/api.git", Untrusted: true}, "https://github.com/acme/api", true},
		{"a local path", service.Request{Repo: "/srv/git/api.git"}, "file:///srv/git/api", false},
	}
	for _, tt := range tests {
		id, untrusted := cacheKey(tt.req)
		if id != tt.identity || untrusted != tt.untrusted {
			t.Errorf("%s: %q, %v; want %q, %v", tt.name, id, untrusted, tt.identity, tt.untrusted)
		}
	}
}

// TestTrimCacheAfterJob: after a job, the worker weighs again only the
// job's repository layer (another layer's growth waits for the next full
// trim), and the job that pushes the cache over the budget has it
// trimmed, the least recently used repository first.
func TestTrimCacheAfterJob(t *testing.T) {
	dir := t.TempDir()
	layer := func(identity string, size int, age time.Duration) string {
		repo := executor.RepoCacheDir(dir, identity)
		f := filepath.Join(repo, "layer", "go-build", fmt.Sprintf("f-%d", size))
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(repo, when, when); err != nil {
			t.Fatal(err)
		}
		return repo
	}
	const job = "https://github.com/acme/api"
	old := layer("https://github.com/acme/old", 1000, 2*time.Hour)
	layer(job, 1000, 0)
	w := &Worker{CacheDir: dir, CacheBudget: 2500}
	log := slog.New(slog.DiscardHandler)
	w.trimCache(context.Background(), log, "") // start-up: a full trim
	// Another repository's layer grows (a build the worker did not
	// run): the job's trim does not weigh it, so nothing goes yet.
	layer("https://github.com/acme/old", 600, 2*time.Hour)
	w.trimCache(context.Background(), log, job)
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("a job within the budget, by the sizes kept, removed a layer: %v", err)
	}
	layer(job, 1200, 0) // the job's layer grows past the budget
	w.trimCache(context.Background(), log, job)
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the least recently used layer is still there after the job that pushed the cache over its budget: %v", err)
	}
	if _, err := os.Stat(executor.RepoCacheDir(dir, job)); err != nil {
		t.Errorf("the job's own layer was removed: %v", err)
	}
}
