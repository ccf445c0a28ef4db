package executor_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/sandbox"
)

// treeSum hashes every path, mode and content under dir.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d\n", p, info.Mode(), info.Size())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestGoCacheCannotBePoisoned warms a Go build cache of the user's on the
// host, then runs real sandboxed builds through the Executor: the first
// finds the cache warm (nothing to compile), then tries to poison it
// (overwrites every entry, then go clean -cache); the user's cache is
// byte-identical afterwards, and the next build, sandboxed or not, still
// finds it warm and passes.
func TestGoCacheCannotBePoisoned(t *testing.T) {
	if (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
		t.Skip("bwrap unavailable here (scripts/executor/setup.sh installs bubblewrap)")
	}
	if !(sandbox.Bwrap{}).Detect(context.Background()).Features.Overlay {
		t.Skip("overlays cannot be mounted in a bwrap sandbox here: the user's Go cache is not shared, so it cannot be poisoned either")
	}
	if !lookPath("go") {
		t.Skip("go is not installed here")
	}
	userCache := filepath.Join(t.TempDir(), "go-build")
	t.Setenv("GOCACHE", userCache)
	t.Setenv("GOFLAGS", "")
	ws := t.TempDir()
	mustWriteFile(t, filepath.Join(ws, "go.mod"), "module example.com/leaf\n\ngo 1.21\n")
	mustWriteFile(t, filepath.Join(ws, "leaf.go"), "package leaf\n\n// Double doubles.\nfunc Double(x int) int { return 2 * x }\n")
	warm := exec.Command("go", "build", "./...")
	warm.Dir = ws
	if out, err := warm.CombinedOutput(); err != nil {
		t.Fatalf("warming the user's cache: %v\n%s", err, out)
	}
	before := treeSum(t, userCache)
	build := func(cmd string) contract.ExecutorOutput {
		t.Helper()
		ex := newExec(t, sandbox.IsolationBwrap, executor.Options{SkipProbe: true})
		out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: cmd, TimeoutSeconds: 120})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	poison := `go build -x ./... 2>&1 | grep -c '/compile ' ; echo "GOCACHE=$GOCACHE";
find "$GOCACHE" -type f -exec sh -c 'for f; do echo POISON > "$f"; done' _ {} + && echo overwrote;
go clean -cache && echo cleaned; exit 0`
	out := build(poison)
	if !strings.HasPrefix(out.BuildLog, "0\nGOCACHE="+userCache+"\n") {
		t.Errorf("the sandboxed build did not find the user's cache warm at its own path:\n%s", out.BuildLog)
	}
	if !strings.Contains(out.BuildLog, "overwrote") || !strings.Contains(out.BuildLog, "cleaned") {
		t.Errorf("the poisoning attempt did not run to the end inside (it should succeed there):\n%s", out.BuildLog)
	}
	if after := treeSum(t, userCache); after != before {
		t.Fatalf("the user's Go cache changed under a sandboxed build")
	}
	out = build(`go build -x ./... 2>&1 | grep -c '/compile '; go vet ./... && echo vet-ok`)
	if !strings.HasPrefix(out.BuildLog, "0\n") || !strings.Contains(out.BuildLog, "vet-ok") {
		t.Errorf("the next sandboxed build was affected:\n%s", out.BuildLog)
	}
	host := exec.Command("go", "build", "-x", "./...")
	host.Dir = ws
	if b, err := host.CombinedOutput(); err != nil || strings.Contains(string(b), "/compile ") {
		t.Errorf("the next build on the host was affected (err %v):\n%s", err, b)
	}
}

func mustWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSharedTargetSurvivesTheProbe builds in a worktree that shares its
// checkout's target/ while the probe runs beside the build: the probe ends
// first, and nothing it cleans up may take the build's overlay away.
func TestSharedTargetSurvivesTheProbe(t *testing.T) {
	if (sandbox.Bwrap{}).Probe(context.Background(), "") != nil {
		t.Skip("bwrap unavailable here (scripts/executor/setup.sh installs bubblewrap)")
	}
	if !(sandbox.Bwrap{}).Detect(context.Background()).Features.Overlay {
		t.Skip("overlays cannot be mounted in a bwrap sandbox here: target/ is not shared")
	}
	source, ws := t.TempDir(), t.TempDir()
	mustWriteFile(t, filepath.Join(source, "target", "debug", "built"), "from the checkout\n")
	mustWriteFile(t, filepath.Join(ws, "Makefile"), "all:\n\ttrue\n")
	ex := newExec(t, sandbox.IsolationBwrap, executor.Options{SourceDir: source})
	out, err := ex.Run(context.Background(), contract.ExecutorInput{WorkspacePath: ws, TimeoutSeconds: 60,
		ResolvedBuildCommand: `sleep 2; cat target/debug/built && echo new > target/debug/new && cat target/debug/new`})
	if err != nil {
		t.Fatal(err)
	}
	if out.ExitCode != 0 || out.BuildLog != "from the checkout\nnew\n" {
		t.Errorf("exit %d, log %q", out.ExitCode, out.BuildLog)
	}
	if len(out.EnvironmentMetadata.DetectedTools) == 0 {
		t.Errorf("the probe did not run beside the build: %+v", out.EnvironmentMetadata)
	}
	if _, err := os.Stat(filepath.Join(source, "target", "debug", "new")); err == nil {
		t.Errorf("the build wrote into the checkout's target/")
	}
	if _, err := os.Lstat(filepath.Join(ws, "target")); err == nil {
		t.Errorf("the target/ mount point was left in the worktree")
	}
}
