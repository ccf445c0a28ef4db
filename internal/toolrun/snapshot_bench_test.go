package toolrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

func benchTree(b *testing.B, files, size int) string {
	b.Helper()
	root := b.TempDir()
	body := []byte(strings.Repeat("x = 1\n", size/6))
	for i := 0; i < files; i++ {
		p := filepath.Join(root, fmt.Sprintf("pkg%02d", i%50), fmt.Sprintf("f%04d.py", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkSnapshot hashes and keeps a tree of 1000 files of 4 KiB.
func BenchmarkSnapshot(b *testing.B) {
	root := benchTree(b, 1000, 4096)
	sn := &snapshotter{root: root, limits: Limits{}.withDefaults()}
	b.SetBytes(1000 * 4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := sn.take(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderDiffs renders 100 edited files with one git process.
func BenchmarkRenderDiffs(b *testing.B) {
	var changes []change
	for i := 0; i < 100; i++ {
		before := fileState{Perm: 0o644, Content: []byte(strings.Repeat("a\n", 200)), Kept: true}
		after := fileState{Perm: 0o644, Content: []byte(strings.Repeat("a\n", 100) + "b\n" + strings.Repeat("a\n", 99)), Kept: true}
		changes = append(changes, change{Path: fmt.Sprintf("d/f%03d.txt", i), Op: opEdit, Before: before, After: after})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		diffs, err := renderDiffs(context.Background(), "git", changes)
		if err != nil || len(diffs) != 100 {
			b.Fatalf("%d diffs, %v", len(diffs), err)
		}
	}
}

// BenchmarkGitGuard takes the git guard's snapshot of a fresh repository
// (its sample hooks, config, info/exclude) holding a tree of 1000 files:
// the cost a run adds before and after the tool for finding .git entries
// and reading what can make git run a program.
func BenchmarkGitGuard(b *testing.B) {
	root := benchTree(b, 1000, 64)
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "git", Args: []string{"init", "-q", root}, Env: sandbox.AllowedEnv(), Timeout: time.Minute})
	if err != nil || res.ExitCode != 0 {
		b.Skipf("git init: %v %s", err, res.Stderr)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := newGitGuard(root, "", "", Limits{}.withDefaults())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := g.take(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWatchDependencies records a node_modules of 20,000 files by
// metadata, as each run does before and after the tool.
func BenchmarkWatchDependencies(b *testing.B) {
	root := b.TempDir()
	for i := 0; i < 20000; i++ {
		p := filepath.Join(root, "node_modules", fmt.Sprintf("pkg%03d", i%400), fmt.Sprintf("f%05d.js", i))
		if i%400 == i {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte("module.exports = 1\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w := watchFolders(root); len(w.Deps) != 20401 {
			b.Fatalf("%d entries", len(w.Deps))
		}
	}
}
