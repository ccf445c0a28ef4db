//go:build unix

package toolrun_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/toolrun"
)

// hangLimit bounds a run whose tool returns at once: a run still going
// after it is blocked (on main, in a write to a FIFO), which the test
// reports instead of hanging.
const hangLimit = 60 * time.Second

// runWithin runs req and fails the test if no outcome comes within
// hangLimit. The FIFOs named in unblock are opened for reading when it
// fails, so that a run blocked writing into one can end.
func runWithin(t *testing.T, a *toolrun.Adapter, req contract.ToolRunRequestV1, unblock ...string) toolrun.Outcome {
	t.Helper()
	done := make(chan toolrun.Outcome, 1)
	go func() { done <- a.RunAider(context.Background(), req, toolrun.RunOptions{}) }()
	select {
	case out := <-done:
		return out
	case <-time.After(hangLimit):
		for _, p := range unblock {
			if fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				defer syscall.Close(fd)
			}
		}
		t.Fatalf("no result %v after the tool exited: the revert blocked", hangLimit)
		return toolrun.Outcome{}
	}
}

// wantRegular fails unless path is a regular file holding want.
func wantRegular(t *testing.T, path, want string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s: %v %v, want a regular file", path, fi, err)
		return
	}
	if got := readFile(t, path); got != want {
		t.Errorf("%s = %q, want %q", path, got, want)
	}
}

// TestFIFOSwappedInIsReplaced: a tool that swaps a tracked file out of
// its scope, a file in its scope and .git/config for FIFOs gets a result
// (exit_code -5) instead of blocking salve, and every FIFO is replaced by
// the pre-run file; git works afterwards. On main the git guard's revert
// opened .git/config for writing and blocked forever (no reader), so the
// run never returned: this test fails there by its time limit.
func TestFIFOSwappedInIsReplaced(t *testing.T) {
	root := newWorkTree(t)
	config := filepath.Join(root, ".git", "config")
	configBefore := readFile(t, config)
	req := aiderRequest(t, root, []string{"src/app.py", "src/util.py"},
		"write src/app.py x = 2",
		"delete README.md",
		"mkfifo README.md",
		"delete src/util.py",
		"mkfifo src/util.py",
		"delete .git/config",
		"mkfifo .git/config")
	out := runWithin(t, newAdapter(t), req, config, filepath.Join(root, "README.md"), filepath.Join(root, "src/util.py"))
	if out.Result.ExitCode != toolrun.ExitUnsafeChange || out.Result.Success {
		t.Errorf("result %+v, want exit_code %d", out.Result, toolrun.ExitUnsafeChange)
	}
	wantRegular(t, config, configBefore)
	wantRegular(t, filepath.Join(root, "README.md"), baseTree["README.md"])
	wantRegular(t, filepath.Join(root, "src/util.py"), baseTree["src/util.py"])
	wantRegular(t, filepath.Join(root, "src/app.py"), "x = 2\n")
	for _, want := range []string{"README.md", "src/util.py a FIFO", "config (replaced by a FIFO)"} {
		if !hasEvent(out.Record, contract.LevelError, want) {
			t.Errorf("no ERROR event naming %q: %+v", want, out.Record.Events)
		}
	}
	if code, outText := gitStatus(t, root, "", "diff", "--name-only"); code != 0 || outText != "src/app.py\n" {
		t.Errorf("git diff after the run: %d %q", code, outText)
	}
}

// TestFIFOHookIsReported: a FIFO planted as .git/hooks/pre-commit is an
// unsafe change, reported and removed. On main the git guard skipped
// anything but files and links, so the run succeeded with the FIFO left
// in place.
func TestFIFOHookIsReported(t *testing.T) {
	root := newWorkTree(t)
	hook := filepath.Join(root, ".git", "hooks", "pre-commit")
	req := aiderRequest(t, root, []string{"src/app.py"}, "write src/app.py x = 2", "mkfifo .git/hooks/pre-commit")
	out := runWithin(t, newAdapter(t), req, hook)
	if out.Result.ExitCode != toolrun.ExitUnsafeChange {
		t.Errorf("result %+v, want exit_code %d", out.Result, toolrun.ExitUnsafeChange)
	}
	if !hasEvent(out.Record, contract.LevelError, ".git/hooks/pre-commit (created as a FIFO)") {
		t.Errorf("no ERROR event names the FIFO hook: %+v", out.Record.Events)
	}
	if _, err := os.Lstat(hook); err == nil {
		t.Errorf("the FIFO hook was left in place")
	}
}

// TestFIFOInTreeBeforeRunIsLeftAlone: a FIFO that was in the tree before
// the run and is untouched by the tool is no change at all (it is
// recorded by identity, never opened). It guards the fix against
// over-reporting, and passes on main too (main skipped FIFOs).
func TestFIFOInTreeBeforeRunIsLeftAlone(t *testing.T) {
	root := newWorkTree(t)
	fifo := filepath.Join(root, "run.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	req := aiderRequest(t, root, []string{"src/app.py"}, "write src/app.py x = 2")
	out := runWithin(t, newAdapter(t), req, fifo)
	if out.Result.ExitCode != 0 || out.Record.Status != contract.RunSucceeded {
		t.Errorf("result %+v status %s", out.Result, out.Record.Status)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the user's FIFO: %v %v", fi, err)
	}
}
