package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/sandbox"
)

// BenchmarkOverhead compares running a command directly (one sandbox.Run of
// sh -c, the least salve can do; and the bwrap backend alone, RunJob) with
// running it through the Executor:
// input checks, detection, backend probe, tool/version probe, log file,
// excerpt and output.json. Two commands: "true" shows the fixed cost, a real
// C build and test ("make -B && make test" on the c-make sample) shows it
// against real work. Run with:
//
//	go test ./executor/ -run '^$' -bench Overhead -benchtime 20x
func BenchmarkOverhead(b *testing.B) {
	commands := []struct{ name, cmd string }{
		{"true", "true"},
		{"make", "make -B && make test"},
	}
	for _, c := range commands {
		ws := benchWorkspace(b)
		b.Run(c.name+"/direct", func(b *testing.B) {
			env := sandbox.AllowedEnv()
			for i := 0; i < b.N; i++ {
				res, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: "sh", Args: []string{"-c", c.cmd},
					Dir: ws, Env: env, Combined: true})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("exit %d err %v: %s", res.ExitCode, err, res.Stdout)
				}
			}
		})
		b.Run(c.name+"/direct-bwrap", func(b *testing.B) {
			if (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
				b.Skip("bwrap unavailable here")
			}
			job := sandbox.Job{Workspace: ws, Script: c.cmd, Env: sandbox.AllowedEnv(), CacheDir: testCacheDir}
			for i := 0; i < b.N; i++ {
				res, err := sandbox.RunJob(context.Background(), sandbox.Bwrap{}, job)
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("exit %d err %v: %s", res.ExitCode, err, res.Stdout)
				}
			}
		})
		b.Run(c.name+"/direct-bwrap-overlay", func(b *testing.B) {
			bw := sandbox.Bwrap{}.Detect(context.Background())
			if !bw.Features.Overlay {
				b.Skip("overlays unavailable here")
			}
			env := sandbox.AllowedEnv()
			// The two Go caches, as a Go build gets them.
			var caches []sandbox.Cache
			for _, ca := range sandbox.UserCaches(env, "", ws) {
				if ca.Name == "go-build" || ca.Name == "go-mod" {
					caches = append(caches, ca)
				}
			}
			job := sandbox.Job{Workspace: ws, Script: c.cmd, Env: env, CacheDir: testCacheDir, Caches: caches}
			for i := 0; i < b.N; i++ {
				res, err := sandbox.RunJob(context.Background(), bw, job)
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("exit %d err %v: %s", res.ExitCode, err, res.Stdout)
				}
			}
		})
		for _, v := range []struct {
			name      string
			iso       string
			skipProbe bool
		}{
			{"none-noprobe", sandbox.IsolationNone, true},
			{"none", sandbox.IsolationNone, false},
			{"bwrap-noprobe", sandbox.IsolationBwrap, true},
			{"bwrap", sandbox.IsolationBwrap, false},
			{"auto", sandbox.IsolationAuto, false},
		} {
			b.Run(c.name+"/executor-"+v.name, func(b *testing.B) {
				if v.iso != sandbox.IsolationNone && (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
					b.Skip("bwrap unavailable here")
				}
				runDir := b.TempDir()
				ex := executor.New(executor.Options{Isolation: v.iso, SkipProbe: v.skipProbe, RunDir: runDir, CacheDir: testCacheDir})
				in := contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: c.cmd}
				for i := 0; i < b.N; i++ {
					out, err := ex.Run(context.Background(), in)
					if err != nil || out.ExitCode != 0 {
						b.Fatalf("exit %d err %v: %s", out.ExitCode, err, out.BuildLog)
					}
				}
			})
		}
	}
}

// benchWorkspace copies the c-make sample for a benchmark.
func benchWorkspace(b *testing.B) string {
	b.Helper()
	dst := b.TempDir()
	src := filepath.Join("testdata", "projects", "c-make-pass")
	entries, err := os.ReadDir(src)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dst
}
