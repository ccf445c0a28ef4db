package heal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/adapter"
	"github.com/salve-dev/salve/internal/heal/ci"
	"github.com/salve-dev/salve/internal/testrepo"
)

// greenBuild is an Executor whose build passes at once, so a heal is
// only its setup and cleanup.
type greenBuild struct{}

func (greenBuild) Run(context.Context, contract.ExecutorInput) (contract.ExecutorOutput, error) {
	return contract.ExecutorOutput{ExitCode: 0, BuildLog: "ok\n"}, nil
}

// bigRepo is the c-broken example plus n small tracked files, 100 per
// folder.
func bigRepo(b *testing.B, n int) string {
	b.Helper()
	repo := testrepo.Example(b, "c-broken")
	for i := 0; i < n; i++ {
		dir := filepath.Join(repo, "extra", fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	run(b, repo, "git", "add", "-A")
	run(b, repo, "git", "-c", "gc.auto=0", "commit", "-qm", "extra files")
	return repo
}

// BenchmarkHealWorktree measures a heal's setup and cleanup (the build
// passes at once) on repositories with 1,000, 10,000 and 50,000 extra
// tracked files:
//
//   - fresh: a new worktree per heal, removed at the end (WorktreeDir set;
//     what every heal did before persistent worktrees);
//   - first: the first heal with persistent worktrees (the worktree is
//     created, then kept);
//   - removed: a later heal whose worktree was removed at the end of the
//     last one (the default under heal.DefaultKeepFiles tracked files,
//     or KeepNever): it adds the worktree again and removes it;
//   - second: a later heal that verifies, resets and cleans the worktree
//     the last one kept, and keeps it, clean, at its end (the default from
//     heal.DefaultKeepFiles tracked files).
//
// Metrics: setup-s/op, cleanup-s/op and their sum total-s/op, from the
// heal's own stage timings. With -short (make bench's small run) only the
// smallest repository is measured.
func BenchmarkHealWorktree(b *testing.B) {
	gitIdentity(b)
	gitAgent, _ := heal.Binaries()
	g := adapter.Git{Bin: gitAgent}
	sizes := []int{1000, 10000, 50000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) { benchWorktree(b, g, n) })
	}
}

func benchWorktree(b *testing.B, g adapter.Git, n int) {
	repo := bigRepo(b, n)
	opts := func(data, wt string, keep heal.WorktreeKeep) heal.Options {
		// KeepFiles 1: KeepAuto keeps whatever the size, as it does from
		// heal.DefaultKeepFiles files.
		return heal.Options{
			Repo: repo, Command: "true", Executor: greenBuild{}, Parser: adapter.Parser{}, Targets: adapter.Targets{},
			Git: g, Worktrees: adapter.Worktrees{Git: g}, CI: &ci.Local{Executor: greenBuild{}},
			WorktreeRoot: data, WorktreeDir: wt, KeepWorktree: keep, KeepFiles: 1,
		}
	}
	for _, phase := range []string{"fresh", "first", "removed", "second"} {
		b.Run(phase, func(b *testing.B) {
			data := b.TempDir()
			keep := heal.KeepAuto
			if phase == "removed" {
				keep = heal.KeepNever
			}
			if _, err := heal.Run(context.Background(), opts(data, "", keep)); err != nil {
				b.Fatal(err)
			}
			var setup, cleanup float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				o := opts(data, "", keep)
				switch phase {
				case "fresh":
					o = opts(data, filepath.Join(b.TempDir(), "wt"), keep)
				case "first":
					o = opts(b.TempDir(), "", keep)
				}
				b.StartTimer()
				res, err := heal.Run(context.Background(), o)
				if err != nil || res.Outcome != results.OutcomeGreen {
					b.Fatalf("heal: %v %+v", err, res)
				}
				setup += res.Timings[results.StageSetup]
				cleanup += res.Timings[results.StageCleanup]
			}
			b.ReportMetric(setup/float64(b.N), "setup-s/op")
			b.ReportMetric(cleanup/float64(b.N), "cleanup-s/op")
			b.ReportMetric((setup+cleanup)/float64(b.N), "total-s/op")
		})
	}
}
