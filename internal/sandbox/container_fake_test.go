package sandbox_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// fakeEngine writes a stand-in for the docker CLI that logs its arguments
// and environment to calls.log, answers "info" and "image inspect" (only for
// the image "present:1"), and runs the script of "run" with sh. It checks
// what salve asks of an engine when none runs here; the real engine tests
// skip without one. DOCKER_HOST names an engine, so that the CLI is asked
// (where the CLI's rules lead to no socket, docker is never started).
func fakeEngine(t *testing.T) (path, calls string) {
	t.Helper()
	t.Setenv("DOCKER_HOST", "unix:///run/salve-fake-engine.sock")
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls.log")
	script := `#!/bin/sh
echo "ARGS $*" >> "` + calls + `"
case "$1" in
info) echo 27.0.0; exit 0 ;;
image) [ "$5" = "present:1" ] && exit 0; echo "No such image: $5" >&2; exit 1 ;;
rm) exit 0 ;;
run)
	echo "ENV SALVE_FAKE_VAR=${SALVE_FAKE_VAR:-unset}" >> "` + calls + `"
	eval "script=\${$#}"
	exec sh -c "$script" ;;
esac
exit 125
`
	path = filepath.Join(dir, "docker")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, calls
}

func TestContainerWithFakeEngine(t *testing.T) {
	path, calls := fakeEngine(t)
	c := sandbox.Container{Engine: "docker", Path: path}
	ctx := context.Background()
	if err := c.Probe(ctx, "present:1"); err != nil {
		t.Fatalf("probe with the image present: %v", err)
	}
	if err := c.Probe(ctx, "absent:1"); err == nil || !strings.Contains(err.Error(), "not present") {
		t.Errorf("probe with the image absent: %v", err)
	}
	res, err := sandbox.RunJob(ctx, c, sandbox.Job{Workspace: t.TempDir(), Script: "echo in-container; exit 4",
		Image: "present:1", Name: "salve-exec-t1", Env: []string{"SALVE_FAKE_VAR=v1", "PATH=/host/only"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 4 || string(res.Stdout) != "in-container\n" {
		t.Errorf("exit %d output %q", res.ExitCode, res.Stdout)
	}
	log, _ := os.ReadFile(calls)
	for _, want := range []string{
		"--network none", "--env SALVE_FAKE_VAR present:1 sh -c", "ENV SALVE_FAKE_VAR=v1", "ARGS rm --force salve-exec-t1",
	} {
		if !strings.Contains(string(log), want) {
			t.Errorf("engine calls lack %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), "v1 ") || strings.Contains(string(log), "/host/only") {
		t.Errorf("a variable value or a host PATH reached the engine's command line:\n%s", log)
	}
}

// TestContainerTimeoutRemovesContainer checks that a timeout kills the CLI
// and that the container is then removed by name.
func TestContainerTimeoutRemovesContainer(t *testing.T) {
	path, calls := fakeEngine(t)
	c := sandbox.Container{Engine: "docker", Path: path}
	res, err := sandbox.RunJob(context.Background(), c, sandbox.Job{Workspace: t.TempDir(), Script: "sleep 30",
		Image: "present:1", Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut {
		t.Errorf("not timed out: %+v", res)
	}
	log, _ := os.ReadFile(calls)
	if !strings.Contains(string(log), "ARGS rm --force salve-exec-") {
		t.Errorf("the container was not removed after the timeout:\n%s", log)
	}
}

// TestAutoPrefersAContainerWithItsImage puts the fake engine first in PATH:
// auto picks docker when the image is present, and falls back when not.
func TestAutoPrefersAContainerWithItsImage(t *testing.T) {
	path, _ := fakeEngine(t)
	t.Setenv("PATH", filepath.Dir(path)+":"+os.Getenv("PATH"))
	b, err := sandbox.SelectBackend(context.Background(), sandbox.IsolationAuto, "present:1")
	if err != nil || b.Name() != sandbox.IsolationDocker {
		t.Errorf("image present: got %v, %v; want docker", b, err)
	}
	b, err = sandbox.SelectBackend(context.Background(), sandbox.IsolationAuto, "absent:1")
	if err != nil || b.Name() == sandbox.IsolationDocker {
		t.Errorf("image absent: got %v, %v; want a fallback", b, err)
	}
}

// TestCleanupFailureKeepsResult makes the engine's "rm" fail to start: the
// job's result must survive, with an error wrapping ErrCleanup.
func TestCleanupFailureKeepsResult(t *testing.T) {
	path, _ := fakeEngine(t)
	c := sandbox.Container{Engine: "docker", Path: path}
	job := sandbox.Job{Workspace: t.TempDir(), Script: "echo done; exit 3", Image: "present:1", Name: "salve-exec-t2"}
	broken := brokenCleanup{Container: c}
	res, err := sandbox.RunJob(context.Background(), broken, job)
	if !errors.Is(err, sandbox.ErrCleanup) || res.ExitCode != 3 || string(res.Stdout) != "done\n" {
		t.Errorf("err %v, exit %d, output %q", err, res.ExitCode, res.Stdout)
	}
}

// brokenCleanup is a container backend whose Cleanup cannot reach the
// engine.
type brokenCleanup struct{ sandbox.Container }

func (brokenCleanup) Cleanup(ctx context.Context, job sandbox.Job) error {
	c := sandbox.Container{Engine: "docker", Path: "/nonexistent/docker"}
	return c.Cleanup(ctx, job)
}

// TestContainerMountsCachesReadOnly checks that the user's caches a tool
// can read read-only reach a container as read-only volumes, found through
// their variable or at their workspace path, and that the others (a Go
// build cache, which Go must write) are not shared.
func TestContainerMountsCachesReadOnly(t *testing.T) {
	base := t.TempDir()
	home, source, ws := filepath.Join(base, "home"), filepath.Join(base, "src"), filepath.Join(base, "ws")
	for _, d := range []string{filepath.Join(home, "go/pkg/mod"), filepath.Join(home, ".cache/go-build"), filepath.Join(source, "node_modules"), ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin"}
	job := sandbox.Job{Workspace: ws, Script: "true", Image: "golang:1", Name: "n", Env: env,
		Caches: sandbox.UserCaches(env, source, ws)}
	got := strings.Join(sandbox.Container{Engine: "docker"}.Args(job, 0, 0), " ")
	for _, want := range []string{
		"--volume " + filepath.Join(home, "go/pkg/mod") + ":/salve-cache/go-mod:ro --env GOMODCACHE",
		"--volume " + filepath.Join(source, "node_modules") + ":" + filepath.Join(ws, "node_modules") + ":ro",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("args lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "go-build") {
		t.Errorf("the Go build cache must not be shared with a container (Go writes it):\n%s", got)
	}
	c, err := sandbox.Container{Engine: "docker"}.Command(job)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Env, "GOMODCACHE=/salve-cache/go-mod") {
		t.Errorf("client env lacks GOMODCACHE: %q", c.Env)
	}
}
