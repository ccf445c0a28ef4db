package executor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// TestBuildsKeepTheirTarget: the builds of one Executor over a worktree
// made from a checkout with a target/ (a heal's) see what the builds
// before them wrote there, as a developer's next build does; the
// checkout's target/ is unchanged, and Discard removes what was kept.
func TestBuildsKeepTheirTarget(t *testing.T) {
	bw := sandbox.Bwrap{}.Detect(context.Background())
	if err := bw.Probe(context.Background(), ""); err != nil || !bw.Features.Overlay {
		t.Skip("no bwrap with overlays here")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	base := t.TempDir()
	src, ws, cacheDir := filepath.Join(base, "checkout"), filepath.Join(base, "worktree"), filepath.Join(base, "cache")
	for _, d := range []string{filepath.Join(src, "target"), ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "target", "dep"), []byte("compiled by the user\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true, SourceDir: src, CacheDir: cacheDir, RepoIdentity: "example"})
	build := func(script string) string {
		t.Helper()
		out, err := e.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: script})
		if err != nil || out.ExitCode != 0 {
			t.Fatalf("%s: %+v, %v", script, out, err)
		}
		return out.BuildLog
	}
	build(`cat target/dep && echo "compiled by the heal" > target/crate`)
	if got := build(`cat target/dep target/crate`); got != "compiled by the user\ncompiled by the heal\n" {
		t.Errorf("the second build saw %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(src, "target", "dep")); string(b) != "compiled by the user\n" {
		t.Errorf("the checkout's target/ changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(src, "target", "crate")); err == nil {
		t.Error("a build wrote into the checkout's target/")
	}
	kept, _ := filepath.Glob(filepath.Join(cacheDir, "repos", "*", keptDir, "*"))
	if len(kept) != 1 {
		t.Fatalf("kept upper layers %v, want one for this Executor", kept)
	}
	if err := e.Discard(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kept[0]); !os.IsNotExist(err) {
		t.Errorf("Discard left %s: %v", kept[0], err)
	}
	// A new Executor (the next heal) starts from the checkout's target/.
	e = New(Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true, SourceDir: src, CacheDir: cacheDir, RepoIdentity: "example"})
	if got := build(`ls target`); strings.Contains(got, "crate") {
		t.Errorf("the next heal's build saw the last heal's target/: %q", got)
	}
}
