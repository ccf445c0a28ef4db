package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/sandbox"
)

// compiles is the script that builds the module and prints how many
// packages the compiler was run for (go build -x names each run), then
// where GOCACHE points.
const compiles = `n=$(go build -x ./... 2>&1 | grep -c '/compile '); echo "compiled $n"`

// TestBuildsReuseTheLayer runs the builds of a heal, with the real bwrap
// and Go, on a cold Go cache of the user's: the first build compiles, the
// second (the heal's verify build) and a later heal's compile nothing,
// because salve's layer of the Go build cache kept the first one's output;
// the user's cache stays empty. A file the build plants in its GOCACHE is
// seen by the next build of the same repository (the accepted trade-off),
// never by another repository's.
func TestBuildsReuseTheLayer(t *testing.T) {
	if (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
		t.Skip("bwrap unavailable here (scripts/executor/setup.sh installs bubblewrap)")
	}
	if !lookPath("go") {
		t.Skip("go is not installed here")
	}
	userCache := filepath.Join(t.TempDir(), "go-build")
	if err := os.Mkdir(userCache, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", userCache)
	t.Setenv("GOFLAGS", "")
	cacheDir := t.TempDir()
	module := func() string {
		ws := t.TempDir()
		mustWriteFile(t, filepath.Join(ws, "go.mod"), "module example.com/leaf\n\ngo 1.21\n")
		mustWriteFile(t, filepath.Join(ws, "leaf.go"), "package leaf\n\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n")
		return ws
	}
	ws, other := module(), module()
	heal := func() *executor.Executor {
		return executor.New(executor.Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true,
			CacheDir: cacheDir, RunDir: filepath.Join(t.TempDir(), "run")})
	}
	build := func(ex *executor.Executor, ws, script string) string {
		t.Helper()
		out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: script, TimeoutSeconds: 120})
		if err != nil {
			t.Fatal(err)
		}
		return out.BuildLog
	}
	first := heal()
	if log := build(first, ws, compiles+"; echo planted > \"$GOCACHE/planted\""); !strings.HasPrefix(log, "compiled ") || strings.HasPrefix(log, "compiled 0\n") {
		t.Fatalf("the first build compiled nothing, or failed:\n%s", log)
	}
	layer := filepath.Join(executor.RepoCacheDir(cacheDir, ws), "layer", "go-build")
	if entries, err := os.ReadDir(layer); err != nil || len(entries) == 0 {
		t.Errorf("salve's layer holds nothing after the first build: %v %v", entries, err)
	}
	tests := []struct {
		name string
		ex   *executor.Executor
		ws   string
		want string
	}{
		{"the heal's next build", first, ws, "compiled 0\nplanted\n"},
		{"a later heal of the repository", heal(), ws, "compiled 0\nplanted\n"},
		{"another repository", heal(), other, "missing\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := build(tt.ex, tt.ws, compiles+`; cat "$GOCACHE/planted" 2>/dev/null || echo missing`)
			if tt.ws == other {
				log = log[strings.Index(log, "\n")+1:] // it compiles: its own layer is cold
			}
			if log != tt.want {
				t.Errorf("log %q, want %q", log, tt.want)
			}
		})
	}
	if entries, err := os.ReadDir(userCache); err != nil || len(entries) != 0 {
		t.Errorf("the user's Go cache was written: %v %v", entries, err)
	}
	if left, _ := filepath.Glob(filepath.Join(cacheDir, "repos", "*", "scratch", "*")); len(left) != 0 {
		t.Errorf("scratch layers left behind: %v", left)
	}
}

// TestTrimCaches keeps the repositories used recently and removes those
// unused past the age limit, then the least recently used past the size
// cap.
func TestTrimCaches(t *testing.T) {
	cacheDir := t.TempDir()
	now := time.Now()
	repo := func(name string, age time.Duration, size int) string {
		dir := executor.RepoCacheDir(cacheDir, "/src/"+name)
		mustWriteFile(t, filepath.Join(dir, "layer", "go-build", "00", "x-d"), strings.Repeat("x", size))
		if err := os.Chtimes(dir, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	fresh := repo("fresh", time.Minute, 4000)
	stale := repo("stale", 40*24*time.Hour, 10)
	old := repo("old", 3*24*time.Hour, 2000)
	recent := repo("recent", 2*time.Hour, 2000)
	rep, err := executor.TrimCaches(context.Background(), cacheDir, 5000, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir  string
		kept bool
	}{{fresh, true}, {stale, false}, {old, false}, {recent, false}}
	for _, tt := range tests {
		if _, err := os.Stat(tt.dir); (err == nil) != tt.kept {
			t.Errorf("%s: kept %v, want %v (report %+v)", tt.dir, err == nil, tt.kept, rep)
		}
	}
	if rep.Kept != 4000 {
		t.Errorf("kept %d bytes, want 4000", rep.Kept)
	}
	if rep, err := executor.TrimCaches(context.Background(), filepath.Join(cacheDir, "none"), 0, 0); err != nil || len(rep.Removed) != 0 {
		t.Errorf("a missing cache directory: %+v %v", rep, err)
	}
}
