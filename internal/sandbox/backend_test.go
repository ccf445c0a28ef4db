package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestContainerArgs(t *testing.T) {
	job := sandbox.Job{
		Workspace: "/w/p", Script: "go test ./...", Image: "golang:1", Name: "salve-exec-x",
		Env: []string{"PATH=/usr/bin", "HOME=/root", "GOCACHE=/root/.cache/go-build", "LANG=C.UTF-8", "CI=true"},
	}
	base := []string{"run", "--rm", "--name", "salve-exec-x", "--network", "none", "--init",
		"--volume", "/w/p:/w/p", "--workdir", "/w/p", "--tmpfs", "/tmp", "--label", "dev.salve.exec=1"}
	tail := []string{"--env", "CI", "--env", "LANG", "golang:1", "sh", "-c", "go test ./..."}
	tests := []struct {
		name     string
		engine   string
		uid, gid int
		user     []string
	}{
		{"docker root", "docker", 0, 0, nil},
		{"docker user", "docker", 1000, 100, []string{"--user", "1000:100", "--env", "HOME=/tmp"}},
		{"podman root", "podman", 0, 0, nil},
		{"podman user", "podman", 1000, 100, []string{"--userns", "keep-id", "--env", "HOME=/tmp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sandbox.Container{Engine: tt.engine}.Args(job, tt.uid, tt.gid)
			want := append(append(append([]string(nil), base...), tt.user...), tail...)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("args:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestContainerEnvDropsHostPaths(t *testing.T) {
	got := sandbox.ContainerEnv([]string{"PATH=/x", "TZ=UTC", "GOPATH=/g", "MY_TOKEN=1", "HOME=/h", "bad"})
	if want := []string{"MY_TOKEN=1", "TZ=UTC"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ContainerEnv = %q, want %q", got, want)
	}
}

func TestNewBackendUnknown(t *testing.T) {
	for _, name := range []string{"", "auto", "chroot", "Docker"} {
		if _, err := sandbox.NewBackend(name); !errors.Is(err, sandbox.ErrUnknownBackend) {
			t.Errorf("NewBackend(%q) err = %v, want ErrUnknownBackend", name, err)
		}
	}
	if _, err := sandbox.SelectBackend(context.Background(), "vm", ""); !errors.Is(err, sandbox.ErrUnknownBackend) {
		t.Errorf("SelectBackend(vm) err = %v", err)
	}
}

// backendOrSkip returns the backend called name, skipping the test with a
// clear message when it does not work on this machine.
func backendOrSkip(t *testing.T, name string) sandbox.Backend {
	t.Helper()
	b, err := sandbox.NewBackend(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Probe(context.Background(), ""); err != nil {
		switch name {
		case sandbox.IsolationBwrap:
			t.Skipf("bwrap backend unavailable here (install bubblewrap: scripts/executor/setup.sh): %v", err)
		default:
			t.Skipf("%s backend skipped: no engine responds here: %v", name, err)
		}
	}
	return b
}

var realBackends = []string{sandbox.IsolationNone, sandbox.IsolationBwrap, sandbox.IsolationDocker, sandbox.IsolationPodman}

func TestRunJobEveryBackend(t *testing.T) {
	for _, name := range realBackends {
		t.Run(name, func(t *testing.T) {
			b := backendOrSkip(t, name)
			ws := t.TempDir()
			var live bytes.Buffer
			res, err := sandbox.RunJob(context.Background(), b, sandbox.Job{
				Workspace: ws, Script: "echo out; echo err >&2; pwd; echo made > made.txt; exit 3",
				Env: []string{"PATH=" + os.Getenv("PATH")}, Image: "debian:stable-slim", Output: &live,
			})
			if err != nil {
				t.Fatal(err)
			}
			want := "out\nerr\n" + ws + "\n"
			if res.ExitCode != 3 || string(res.Stdout) != want || live.String() != want {
				t.Errorf("exit %d, captured %q, live %q; want exit 3 and %q", res.ExitCode, res.Stdout, live.String(), want)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "made.txt")); err != nil || string(b) != "made\n" {
				t.Errorf("workspace not writable from the job: %q %v", b, err)
			}
		})
	}
}

// TestBwrapIsolation checks each promise of the bwrap backend from inside a
// real sandbox, and that the same probe succeeds without isolation (so the
// checks can fail).
func TestBwrapIsolation(t *testing.T) {
	bw := backendOrSkip(t, sandbox.IsolationBwrap)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ws := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := copyFile(exe, filepath.Join(ws, "helper")); err != nil {
		t.Fatal(err)
	}
	hostTmp := t.TempDir() // under the host's TMPDIR; must be invisible inside
	if err := os.WriteFile(filepath.Join(hostTmp, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	checks := []struct {
		name   string
		script string
		// inside is the exit status wanted under bwrap; without isolation the
		// status must differ (nil means the check is bwrap-only).
		inside int
	}{
		{"network unreachable", "SANDBOX_HELPER=dial ./helper " + ln.Addr().String(), 3},
		{"host tmp hidden", "test -e " + filepath.Join(hostTmp, "secret"), 1},
		{"root cannot remount", "mount -o remount,rw / 2>/dev/null || exit 32", 32},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			job := sandbox.Job{Workspace: ws, Script: c.script, Env: []string{"PATH=" + os.Getenv("PATH")},
				CacheDir: cache, Timeout: 30 * time.Second}
			res, err := sandbox.RunJob(context.Background(), bw, job)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != c.inside {
				t.Errorf("bwrap: exit %d, want %d; output %q", res.ExitCode, c.inside, res.Stdout)
			}
			if c.name == "root cannot remount" {
				return // not safe to try on the host
			}
			res, err = sandbox.RunJob(context.Background(), sandbox.None{}, job)
			if err != nil {
				t.Fatal(err)
			}
			if res.ExitCode != 0 {
				t.Errorf("control run without isolation: exit %d, want 0 (output %q)", res.ExitCode, res.Stdout)
			}
		})
	}
	t.Run("cache writable and used", func(t *testing.T) {
		res, err := sandbox.RunJob(context.Background(), bw, sandbox.Job{Workspace: ws, CacheDir: cache,
			Script: `echo "$GOCACHE $TMPDIR" && touch "$GOCACHE/x" /tmp/y`, Env: []string{"PATH=" + os.Getenv("PATH")}})
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(cache, "go-build") + " /tmp\n"
		if res.ExitCode != 0 || string(res.Stdout) != want {
			t.Errorf("exit %d output %q, want 0 and %q", res.ExitCode, res.Stdout, want)
		}
	})
}

func TestRunJobTimeoutKillsGrandchildren(t *testing.T) {
	for _, name := range realBackends[:2] {
		t.Run(name, func(t *testing.T) {
			b := backendOrSkip(t, name)
			// A unique sleep length marks this test's processes in /proc.
			marker := fmt.Sprintf("%d.%d", 900+os.Getpid()%90, time.Now().UnixNano()%1000000)
			script := fmt.Sprintf("(sleep %s &) ; sleep %s & echo started; wait", marker, marker)
			start := time.Now()
			res, err := sandbox.RunJob(context.Background(), b, sandbox.Job{
				Workspace: t.TempDir(), Script: script, Env: []string{"PATH=" + os.Getenv("PATH")},
				Timeout: 2 * time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if !res.TimedOut || !strings.Contains(string(res.Stdout), "started") {
				t.Errorf("timedOut %v output %q", res.TimedOut, res.Stdout)
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("the run returned %v after a 2s timeout", d)
			}
			deadline := time.Now().Add(5 * time.Second)
			left := procsWith(marker)
			for len(left) > 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
				left = procsWith(marker)
			}
			if len(left) > 0 {
				t.Errorf("processes survived the timeout: %v", left)
			}
		})
	}
}

// procsWith returns the pids of live processes whose command line holds s.
func procsWith(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !bytes.Contains(stat, []byte(") Z ")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestSelectBackend(t *testing.T) {
	ctx := context.Background()
	b, err := sandbox.SelectBackend(ctx, sandbox.IsolationAuto, "")
	if err != nil {
		t.Fatal(err)
	}
	// Without an image, auto never picks a container.
	if n := b.Name(); n != sandbox.IsolationBwrap && n != sandbox.IsolationNone {
		t.Errorf("auto without image picked %q", n)
	}
	if (sandbox.Bwrap{}).Probe(ctx, "") == nil && b.Name() != sandbox.IsolationBwrap {
		t.Errorf("bwrap works here but auto picked %q", b.Name())
	}
	_, err = sandbox.SelectBackend(ctx, sandbox.IsolationBwrap, "")
	if err != nil && !errors.Is(err, sandbox.ErrBackendUnavailable) {
		t.Errorf("bwrap: err %v does not wrap ErrBackendUnavailable", err)
	}
	missing := sandbox.Container{Engine: "docker", Path: filepath.Join(t.TempDir(), "no-docker")}
	if err := missing.Probe(ctx, ""); !errors.Is(err, sandbox.ErrBackendUnavailable) {
		t.Errorf("missing engine: err %v, want ErrBackendUnavailable", err)
	}
	missingBwrap := sandbox.Bwrap{Path: filepath.Join(t.TempDir(), "no-bwrap")}
	if err := missingBwrap.Probe(ctx, ""); !errors.Is(err, sandbox.ErrBackendUnavailable) {
		t.Errorf("missing bwrap: err %v, want ErrBackendUnavailable", err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestNoneSharesCheckoutDirs: without a sandbox to mount them, a heal
// worktree's node_modules from the checkout it was made from is linked in
// for the build and the link removed after it; the checkout's copy is
// untouched, and a workspace's own node_modules wins.
func TestNoneSharesCheckoutDirs(t *testing.T) {
	base := t.TempDir()
	source, ws := filepath.Join(base, "src"), filepath.Join(base, "ws")
	mustWrite(t, filepath.Join(source, "node_modules", "left-pad", "index.js"), "module.exports = 1;\n")
	mustWrite(t, filepath.Join(ws, "package.json"), "{}\n")
	job := sandbox.Job{Workspace: ws, Env: []string{"PATH=" + os.Getenv("PATH")}, Timeout: time.Minute,
		Script: `cat node_modules/left-pad/index.js`, Caches: sandbox.UserCaches(nil, source, ws)}
	res, err := sandbox.RunJob(context.Background(), sandbox.None{}, job)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || !strings.Contains(string(res.Stdout), "module.exports = 1;") {
		t.Errorf("the build did not read the checkout's node_modules: exit %d\n%s", res.ExitCode, res.Stdout)
	}
	if _, err := os.Lstat(filepath.Join(ws, "node_modules")); !os.IsNotExist(err) {
		t.Errorf("the link is still in the workspace after the build: %v", err)
	}
	if _, err := os.Stat(filepath.Join(source, "node_modules", "left-pad", "index.js")); err != nil {
		t.Errorf("the checkout's node_modules was touched: %v", err)
	}

	// The workspace's own node_modules wins and is left alone.
	mustWrite(t, filepath.Join(ws, "node_modules", "left-pad", "index.js"), "module.exports = 2;\n")
	job.Caches = []sandbox.Cache{{Name: "node_modules", Src: filepath.Join(source, "node_modules"), Dst: filepath.Join(ws, "node_modules")}}
	res, err = sandbox.RunJob(context.Background(), sandbox.None{}, job)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Stdout), "module.exports = 2;") {
		t.Errorf("the workspace's own node_modules lost: %s", res.Stdout)
	}
	if _, err := os.Stat(filepath.Join(ws, "node_modules", "left-pad", "index.js")); err != nil {
		t.Errorf("the workspace's own node_modules was removed: %v", err)
	}
}
