package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/sandbox"
)

// TestLayerKeepsNewFiles runs two builds with a cache of the user's and
// salve's layer of it, with and without overlays: the second build sees
// the first one's new file and the user's cache is unchanged. With
// overlays, what the first build changed of the user's cache or planted as
// a link stays behind; without, the layer is the cache, written directly
// (the user's is not shared).
func TestLayerKeepsNewFiles(t *testing.T) {
	tests := []struct {
		name    string
		overlay bool
		want    string
	}{
		{"overlay", true, "new user missing "},
		{"no overlay", false, "new poison missing link "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bw := detected(t)
			if tt.overlay && !bw.Features.Overlay {
				t.Skip("overlays cannot be mounted in a bwrap sandbox here")
			}
			bw.Features.Overlay = tt.overlay
			base := hostDir(t)
			user, ws, cacheDir := filepath.Join(base, "user"), filepath.Join(base, "ws"), filepath.Join(base, "salve")
			mustWrite(t, filepath.Join(user, "a"), "user")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			env := []string{"PATH=/usr/bin:/bin", "HOME=" + base, "GOCACHE=" + user}
			caches := sandbox.Layered(sandbox.UserCaches(env, "", ws), env, filepath.Join(cacheDir, "layer"))
			job := sandbox.Job{Workspace: ws, Env: env, CacheDir: cacheDir, Caches: caches}
			job.Name, job.Script = "first", `echo new > "$GOCACHE/new"; echo poison > "$GOCACHE/a"; ln -s /nonexistent "$GOCACHE/link"`
			run(t, bw, job)
			job.Name, job.Script = "second", `for f in new a link; do printf '%s ' "$(cat "$GOCACHE/$f" 2>/dev/null || echo missing)"; done;
test -L "$GOCACHE/link" && printf 'link '`
			got := string(run(t, bw, job).Stdout)
			if got != tt.want {
				t.Errorf("second build saw %q, want %q", got, tt.want)
			}
			if b, err := os.ReadFile(filepath.Join(user, "a")); err != nil || string(b) != "user" {
				t.Errorf("the user's cache changed: %q %v", b, err)
			}
			if left, _ := os.ReadDir(user); len(left) != 1 {
				t.Errorf("files planted in the user's cache: %v", left)
			}
		})
	}
}

// TestLayerCommitStaysInside plants, through a build without overlays
// (which writes salve's layer directly), a link from the layer to a host
// directory, then lets a build with overlays write a new file under it:
// the move into the layer must not follow the link out of salve's cache.
func TestLayerCommitStaysInside(t *testing.T) {
	bw := detected(t)
	if !bw.Features.Overlay {
		t.Skip("overlays cannot be mounted in a bwrap sandbox here")
	}
	base := hostDir(t)
	outside, ws, cacheDir := filepath.Join(base, "outside"), filepath.Join(base, "ws"), filepath.Join(base, "salve")
	for _, d := range []string{outside, ws} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + base, "GOCACHE=" + filepath.Join(base, "no-user-cache")}
	caches := sandbox.Layered(nil, env, filepath.Join(cacheDir, "layer"))
	job := sandbox.Job{Workspace: ws, Env: env, CacheDir: cacheDir, Caches: caches, Name: "plant",
		Script: `ln -s ` + outside + ` "$GOCACHE/sub"`}
	flat := bw
	flat.Features.Overlay = false
	run(t, flat, job)
	job.Name, job.Script = "write", `mkdir -p "$GOCACHE/sub2" && echo x > "$GOCACHE/sub2/f" && rm "$GOCACHE/sub" && mkdir "$GOCACHE/sub" && echo x > "$GOCACHE/sub/f"`
	_, err := sandbox.RunJob(t.Context(), bw, job)
	if err != nil && !errors.Is(err, sandbox.ErrCleanup) {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(outside); len(left) != 0 {
		t.Errorf("the commit wrote outside salve's cache: %v", left)
	}
	if _, err := os.Stat(filepath.Join(cacheDir, "layer", "go-build", "sub2", "f")); err != nil {
		t.Errorf("the new file was not kept: %v", err)
	}
}

// TestContainerMountsLayer checks that a container mounts salve's layer of
// a cache writable, with the tool's variable pointing at it, and leaves
// out a layer whose path a volume option cannot name.
func TestContainerMountsLayer(t *testing.T) {
	tests := []struct {
		name  string
		layer string
		want  string
	}{
		{"layer", "/c/repos/1/layer/go-build", "--volume /c/repos/1/layer/go-build:/salve-cache/go-build --env GOCACHE --env CI golang:1"},
		{"colon", "/c/a:b/go-build", "dev.salve.exec=1 --env CI golang:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := sandbox.Job{Workspace: "/w/p", Script: "go build ./...", Image: "golang:1", Name: "x",
				Env:    []string{"CI=true"},
				Caches: []sandbox.Cache{{Name: "go-build", Dst: "/root/.cache/go-build", Env: "GOCACHE", Layer: tt.layer}}}
			if got := strings.Join(sandbox.Container{Engine: "docker"}.Args(job, 0, 0), " "); !strings.Contains(got, tt.want) {
				t.Errorf("args %q lack %q", got, tt.want)
			}
		})
	}
}

// TestKeptUpperLayer runs two builds over a checkout's target/ shared
// with a separate workspace, as a heal's worktree gets it: with a kept
// upper layer (Cache.Keep), the second sees what the first wrote and
// changed, and what it deleted stays deleted; without one, each build
// starts from the checkout's target/ again. The
// checkout's target/ is never changed.
func TestKeptUpperLayer(t *testing.T) {
	for _, tt := range []struct {
		name string
		keep bool
		want string
	}{
		{"kept", true, "built changed gone "},
		{"not kept", false, "gone old old "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bw := detected(t)
			if !bw.Features.Overlay {
				t.Skip("overlays cannot be mounted in a bwrap sandbox here")
			}
			base := hostDir(t)
			src, ws, cacheDir := filepath.Join(base, "checkout"), filepath.Join(base, "ws"), filepath.Join(base, "salve")
			mustWrite(t, filepath.Join(src, "target", "a"), "old")
			mustWrite(t, filepath.Join(src, "target", "b"), "old")
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			env := []string{"PATH=/usr/bin:/bin", "HOME=" + base}
			caches := sandbox.UserCaches(env, src, ws)
			if len(caches) != 1 || caches[0].Name != "target" {
				t.Fatalf("caches %+v, want the checkout's target/", caches)
			}
			if tt.keep {
				caches[0].Keep = filepath.Join(cacheDir, "kept", "heal-1", "target")
			}
			job := sandbox.Job{Workspace: ws, Env: env, CacheDir: cacheDir, Caches: caches}
			job.Name, job.Script = "first", `echo built > target/new; echo changed > target/a; rm target/b`
			run(t, bw, job)
			job.Name, job.Script = "second", `for f in new a b; do printf '%s ' "$(cat "target/$f" 2>/dev/null || echo gone)"; done`
			if got := string(run(t, bw, job).Stdout); got != tt.want {
				t.Errorf("second build saw %q, want %q", got, tt.want)
			}
			for f, w := range map[string]string{"a": "old", "b": "old"} {
				if b, err := os.ReadFile(filepath.Join(src, "target", f)); err != nil || string(b) != w {
					t.Errorf("the checkout's target/%s changed: %q %v", f, b, err)
				}
			}
			if left, _ := os.ReadDir(filepath.Join(src, "target")); len(left) != 2 {
				t.Errorf("files planted in the checkout's target/: %v", left)
			}
		})
	}
}

// TestKeptUpperLayerStaysInside: a Keep outside the job's cache directory
// is not mounted writable; the overlay's upper layer is then the job's
// scratch, as without Keep.
func TestKeptUpperLayerStaysInside(t *testing.T) {
	bw := detected(t)
	if !bw.Features.Overlay {
		t.Skip("overlays cannot be mounted in a bwrap sandbox here")
	}
	base := hostDir(t)
	src, ws, cacheDir, outside := filepath.Join(base, "checkout"), filepath.Join(base, "ws"), filepath.Join(base, "salve"), filepath.Join(base, "outside")
	mustWrite(t, filepath.Join(src, "target", "a"), "old")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + base}
	for _, keep := range []string{outside, cacheDir} {
		caches := sandbox.UserCaches(env, src, ws)
		caches[0].Keep = keep
		cmd, err := bw.Command(sandbox.Job{Workspace: ws, Env: env, CacheDir: cacheDir, Caches: caches, Name: "j", Script: "true"})
		if err != nil {
			t.Fatal(err)
		}
		if args := strings.Join(cmd.Args, " "); strings.Contains(args, "--bind "+keep+" ") {
			t.Errorf("Keep %s is bound writable: %s", keep, args)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a directory was made at the Keep outside the cache directory")
	}
}
