//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/toolrun"
	"github.com/salve-dev/salve/internal/toolrun/pattern"
)

// hostileToolTimeout is the --timeout the tests give the tool, and the
// time salve has to print its result: the tool returns at once, so a
// salve still running then is blocked.
const hostileToolTimeout = 60

// salveRun runs the salve binary with args in an environment that keeps
// the user's git configuration out, under a 2 GiB address-space limit
// (so that a salve reading a device without bound fails fast instead of
// exhausting the machine), and kills it after limit. It returns the
// result.
func salveRun(t *testing.T, salve string, limit time.Duration, args ...string) sandbox.Result {
	t.Helper()
	res, err := sandbox.Run(context.Background(), sandbox.Cmd{
		Path: "sh", Args: append([]string{"-c", `ulimit -v 2097152 && exec "$0" "$@"`, salve}, args...),
		Env: sandbox.MergeEnv(os.Environ(), map[string]string{
			"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1",
		}),
		Timeout: limit,
	})
	if errors.Is(err, sandbox.ErrNotFound) {
		t.Skipf("sh is not available: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// hostileResult runs "salve tool run" with the fake aider following
// lines on src/app.py in root, and returns the printed result and stderr.
// It fails the test unless salve printed a result within the tool's
// time limit.
func hostileResult(t *testing.T, salve, root string, lines ...string) (map[string]any, string) {
	t.Helper()
	res := salveRun(t, salve, hostileToolTimeout*time.Second, "tool", "run", "aider",
		"--store", filepath.Join(t.TempDir(), "runs.db"), "--cwd", root, "--timeout", "60",
		"--model", "gpt-4", "--message-file", message(t, lines...), "--", "src/app.py")
	if res.TimedOut {
		t.Fatalf("salve printed no result within the tool's time limit (%ds)\nstdout: %s\nstderr: %s", hostileToolTimeout, res.Stdout, res.Stderr)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Stdout, &out); err != nil {
		t.Fatalf("stdout is not a result: %v\n%s\nstderr: %s", err, res.Stdout, res.Stderr)
	}
	return out, string(res.Stderr)
}

// regularHolding fails unless path is a regular file holding want.
func regularHolding(t *testing.T, path, want string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s: %v %v, want a regular file", path, fi, err)
		return
	}
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Errorf("%s = %q, want %q", path, b, want)
	}
}

// TestToolRunHostileInputs runs the real salve binary against a tool
// that leaves FIFOs and hard links behind, and against pattern indexes
// that are devices or FIFOs. Every case fails on a main without the
// bounded reads and the reverts that never write through a path:
//   - a FIFO swapped in: main blocked writing the pre-run .git/config
//     into the FIFO, printed nothing and was killed at the time limit,
//     with or without a SIGTERM;
//   - --index /dev/zero (and a committed index linking to it): main read
//     it until memory ran out (here, the 2 GiB limit), a FIFO blocked it;
//   - a hard link to an outside file: main kept the in-scope one and
//     wrote README.md's pre-run content into the outside file;
//   - a FIFO hook: main did not see it, the run succeeded.
func TestToolRunHostileInputs(t *testing.T) {
	salve := buildSalve(t)
	installFakeAider(t)

	t.Run("fifo swapped in", func(t *testing.T) {
		root, _ := workTree(t)
		config := filepath.Join(root, ".git", "config")
		configBefore, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unblockFIFOs(config, filepath.Join(root, "README.md")) })
		out, stderr := hostileResult(t, salve, root,
			"write src/app.py x = 2", "delete README.md", "mkfifo README.md", "delete .git/config", "mkfifo .git/config")
		if out["exit_code"] != float64(toolrun.ExitUnsafeChange) {
			t.Errorf("result %v\nstderr: %s", out, stderr)
		}
		regularHolding(t, config, string(configBefore))
		regularHolding(t, filepath.Join(root, "README.md"), "# demo\n")
		regularHolding(t, filepath.Join(root, "src/app.py"), "x = 2\n")
		if code, diff := shStatus(t, root, "", "git", "diff", "--name-only"); code != 0 || diff != "src/app.py\n" {
			t.Errorf("git diff after the run: %d %q", code, diff)
		}
	})

	t.Run("fifo swapped in, then SIGTERM", func(t *testing.T) {
		root, _ := workTree(t)
		config := filepath.Join(root, ".git", "config")
		configBefore, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unblockFIFOs(config) })
		// salve runs in the background; once the tool has put its FIFO in
		// place (and sleeps), salve gets one SIGTERM, and must still put
		// .git/config back and print its result.
		script := `"$0" "$@" & pid=$!
while [ ! -p "$CONFIG" ]; do sleep 0.05; done
kill -TERM "$pid"
wait "$pid"`
		res, err := sandbox.Run(context.Background(), sandbox.Cmd{
			Path: "sh",
			Args: []string{"-c", script, salve, "tool", "run", "aider", "--store", filepath.Join(t.TempDir(), "runs.db"),
				"--cwd", root, "--timeout", "60", "--model", "gpt-4",
				"--message-file", message(t, "delete .git/config", "mkfifo .git/config", "sleep 50"), "--", "src/app.py"},
			Env:     sandbox.MergeEnv(os.Environ(), map[string]string{"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1", "CONFIG": config}),
			Timeout: hostileToolTimeout * time.Second,
		})
		if errors.Is(err, sandbox.ErrNotFound) {
			t.Skipf("sh is not available: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if res.TimedOut || json.Unmarshal(res.Stdout, &out) != nil {
			t.Fatalf("no result after SIGTERM: timed out %v\nstdout: %s\nstderr: %s", res.TimedOut, res.Stdout, res.Stderr)
		}
		if out["success"] != false {
			t.Errorf("result %v", out)
		}
		regularHolding(t, config, string(configBefore))
	})

	t.Run("hostile pattern index", func(t *testing.T) {
		root, _ := workTree(t)
		fifo := filepath.Join(t.TempDir(), "index.fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unblockFIFOs(fifo) })
		linked, _ := workTree(t)
		committed := filepath.Join(linked, pattern.DefaultIndexFile)
		if err := os.Remove(committed); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", committed); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ name, cwd, index, named, why string }{
			{"--index /dev/zero", root, "/dev/zero", "/dev/zero", "character device"},
			{"--index FIFO", root, fifo, fifo, "FIFO"},
			{"committed link to /dev/zero", linked, "", committed, "not a regular file"},
		} {
			args := []string{"tool", "run", "aider", "--store", filepath.Join(t.TempDir(), "runs.db"), "--cwd", tc.cwd,
				"--model", "gpt-4", "--message-file", message(t, "write src/app.py x = 2"), "--pattern", "aider_refactor"}
			if tc.index != "" {
				args = append(args, "--index", tc.index)
			}
			res := salveRun(t, salve, 30*time.Second, append(args, "--", "src/app.py")...)
			if res.TimedOut || res.ExitCode != exitBadInput || !strings.Contains(string(res.Stderr), tc.named) || !strings.Contains(string(res.Stderr), tc.why) {
				t.Errorf("%s: timed out %v, exit %d, stderr %.400s; want exit %d naming %s (%s)", tc.name, res.TimedOut, res.ExitCode, res.Stderr, exitBadInput, tc.named, tc.why)
			}
			if b, _ := os.ReadFile(filepath.Join(tc.cwd, "src/app.py")); string(b) != "def main():\n    return 1\n" {
				t.Errorf("%s: the tool ran: src/app.py = %q", tc.name, b)
			}
		}
	})

	t.Run("hard link to an outside file", func(t *testing.T) {
		root, _ := workTree(t)
		outside := t.TempDir()
		victims := map[string]string{"in.txt": "outside in\n", "out.txt": "outside out\n"}
		for name, c := range victims {
			if err := os.WriteFile(filepath.Join(outside, name), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, stderr := hostileResult(t, salve, root,
			"delete src/app.py", "hardlink "+filepath.Join(outside, "in.txt")+" src/app.py",
			"delete README.md", "hardlink "+filepath.Join(outside, "out.txt")+" README.md")
		if out["exit_code"] != float64(toolrun.ExitUnsafeChange) || !strings.Contains(stderr, "src/app.py") || !strings.Contains(stderr, "README.md") {
			t.Errorf("result %v\nstderr: %s", out, stderr)
		}
		for name, want := range victims {
			if b, _ := os.ReadFile(filepath.Join(outside, name)); string(b) != want {
				t.Errorf("outside %s = %q, want %q", name, b, want)
			}
		}
		regularHolding(t, filepath.Join(root, "src/app.py"), "def main():\n    return 1\n")
		regularHolding(t, filepath.Join(root, "README.md"), "# demo\n")
	})

	t.Run("fifo hook", func(t *testing.T) {
		root, _ := workTree(t)
		hook := filepath.Join(root, ".git", "hooks", "pre-commit")
		t.Cleanup(func() { unblockFIFOs(hook) })
		out, stderr := hostileResult(t, salve, root, "write src/app.py x = 2", "mkfifo .git/hooks/pre-commit")
		if out["exit_code"] != float64(toolrun.ExitUnsafeChange) || !strings.Contains(stderr, ".git/hooks/pre-commit") {
			t.Errorf("result %v\nstderr: %s", out, stderr)
		}
		if _, err := os.Lstat(hook); err == nil {
			t.Errorf("the FIFO hook was left in place")
		}
	})
}

// unblockFIFOs opens for reading, and closes, each path that is a FIFO,
// so that nothing a failed test leaves behind stays blocked writing one.
func unblockFIFOs(paths ...string) {
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			if fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
				_ = syscall.Close(fd)
			}
		}
	}
}
