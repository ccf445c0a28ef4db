package executor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// countingBwrap puts first in PATH a bwrap that logs its arguments, one
// line per start, then runs the real one, and returns the log's path.
func countingBwrap(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skipf("no bwrap here: %v", err)
	}
	if err := (sandbox.Bwrap{}).Probe(context.Background(), ""); err != nil {
		t.Skipf("bwrap does not work here: %v", err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "starts")
	script := "#!/bin/sh\necho \"$*\" >>'" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// helpRuns counts the feature probes (bwrap --help) in the log: one per
// choice of the backend.
func helpRuns(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if line == "--help" {
			n++
		}
	}
	return n
}

// TestWarmChoosesOnce: Warm and a Run started beside it choose the
// backend once between them (the Run waits for the Warm's probe), and a
// later Run probes no more.
func TestWarmChoosesOnce(t *testing.T) {
	log := countingBwrap(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	e := New(Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true})
	in := contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: "true"}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		e.Warm(context.Background(), ws, in)
	}()
	var runErr error
	go func() {
		defer wg.Done()
		_, runErr = e.Run(context.Background(), in)
	}()
	wg.Wait()
	if runErr != nil {
		t.Fatal(runErr)
	}
	if n := helpRuns(t, log); n != 1 {
		t.Errorf("Warm and Run beside it chose the backend %d times, want once", n)
	}
	out, err := e.Run(context.Background(), in)
	if err != nil || out.ExitCode != 0 || out.EnvironmentMetadata.Isolation != sandbox.IsolationBwrap {
		t.Fatalf("second run: %+v, %v", out, err)
	}
	if n := helpRuns(t, log); n != 1 {
		t.Errorf("a later Run chose the backend again (%d choices)", n)
	}
}

// TestWarmFailureNotKept: a Warm that finds no sandbox leaves nothing
// behind; the first Run probes again, and builds once the sandbox works.
func TestWarmFailureNotKept(t *testing.T) {
	countingBwrap(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir()) // no bwrap at all
	ws := t.TempDir()
	e := New(Options{Isolation: sandbox.IsolationBwrap, SkipProbe: true})
	in := contract.ExecutorInput{WorkspacePath: ws, ResolvedBuildCommand: "true"}
	e.Warm(context.Background(), ws, in)
	if _, err := e.Run(context.Background(), in); err == nil {
		t.Fatal("a run without bwrap did not fail")
	}
	t.Setenv("PATH", path)
	out, err := e.Run(context.Background(), in)
	if err != nil || out.ExitCode != 0 {
		t.Fatalf("once bwrap is back the run got %+v, %v; the failed choice was kept", out, err)
	}
}
