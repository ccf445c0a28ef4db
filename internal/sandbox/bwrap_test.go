package sandbox_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/sandbox"
)

// hostDir returns a fresh directory outside the host's /tmp (which every
// sandbox replaces with its own), so that what a sandbox cannot see there
// is hidden by the allow-list and not by the private /tmp.
func hostDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(wd, ".bwrap-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// detected returns the real bwrap with its features, or skips.
func detected(t *testing.T) sandbox.Bwrap {
	t.Helper()
	backendOrSkip(t, sandbox.IsolationBwrap)
	return sandbox.Bwrap{}.Detect(context.Background())
}

func run(t *testing.T, b sandbox.Backend, job sandbox.Job) sandbox.Result {
	t.Helper()
	if job.Timeout == 0 {
		job.Timeout = time.Minute
	}
	res, err := sandbox.RunJob(context.Background(), b, job)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestBwrapArgsAllowList(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	for _, d := range []string{".cargo/bin", ".rustup", ".pyenv/shims", "src/bin", ".local/bin", ".local/state/salve", "go/pkg/mod"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(home, ".cargo", "credentials.toml"), "token = \"x\"\n")
	// Tools installed with npm outside HOME: node_modules/.bin links into
	// node_modules, which is bound whole; a project's under HOME is not.
	tools := filepath.Join(t.TempDir(), "opt", "tools", "node_modules")
	for _, d := range []string{filepath.Join(tools, ".bin"), filepath.Join(home, "src/app/node_modules/.bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := strings.Join([]string{filepath.Join(home, ".cargo/bin"), filepath.Join(home, ".pyenv/shims"),
		filepath.Join(home, "src/bin"), filepath.Join(home, ".local/bin"), home, "/usr/bin", "relative/bin",
		filepath.Join(tools, ".bin"), filepath.Join(home, "src/app/node_modules/.bin")}, ":")
	job := sandbox.Job{Workspace: "/w/proj", Script: "make test", CacheDir: "/c/salve",
		Env: []string{"HOME=" + home, "PATH=" + path}}
	b := sandbox.Bwrap{Features: sandbox.BwrapFeatures{TmpfsSize: true}}
	args := b.Args(job)
	got := strings.Join(args, " ")
	for _, want := range []string{
		"--die-with-parent", "--unshare-net", "--unshare-pid", "--cap-drop ALL", "--new-session",
		"--ro-bind /usr /usr", "--dev /dev", "--proc /proc",
		"--size 2147483648 --tmpfs /tmp",
		"--size 268435456 --tmpfs " + home,
		"--ro-bind " + filepath.Join(home, ".cargo") + " " + filepath.Join(home, ".cargo"),
		"--ro-bind " + filepath.Join(home, ".rustup") + " ",
		"--ro-bind " + filepath.Join(home, ".pyenv") + " ",
		"--ro-bind " + filepath.Join(home, "src/bin") + " ",
		"--ro-bind " + filepath.Join(home, ".local/bin") + " ",
		"--ro-bind " + tools + " " + tools + " ",
		"--ro-bind " + filepath.Join(home, "src/app/node_modules/.bin") + " ",
		"--ro-bind /dev/null " + filepath.Join(home, ".cargo/credentials.toml"),
		"--bind /c/salve /c/salve", "--bind /w/proj /w/proj", "--remount-ro /", "--chdir /w/proj",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("args lack %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{
		"--ro-bind / /", "/etc/shadow", "/etc/ssh", "/etc/gshadow", "/etc/sudoers",
		"--ro-bind " + home + " ", "--ro-bind " + filepath.Join(home, "src") + " ", "--ro-bind " + filepath.Join(home, "src/app/node_modules") + " ",
		"--ro-bind " + filepath.Join(home, ".local") + " ", ".local/state", "relative",
	} {
		if strings.Contains(got, bad) {
			t.Errorf("args hold %q:\n%s", bad, got)
		}
	}
	if i, j := slices.Index(args, "/dev/null"), slices.Index(args, "/w/proj"); i < j {
		t.Errorf("masks must come after every bind: %s", got)
	}
	if tail := args[len(args)-4:]; !slices.Equal(tail, []string{"--", "sh", "-c", "make test"}) {
		t.Errorf("args end %q", tail)
	}
	old := strings.Join(sandbox.Bwrap{}.Args(job), " ")
	if strings.Contains(old, "--size") {
		t.Errorf("a bwrap without --size got one: %s", old)
	}
}

// TestBwrapHidesHostFiles runs a real sandbox over a host layout with a
// HOME, a run store, a sibling repository and /etc/shadow, and checks that
// the build sees none of them, while the same script without isolation
// does (so the check can fail).
func TestBwrapHidesHostFiles(t *testing.T) {
	bw := detected(t)
	base := hostDir(t)
	home := filepath.Join(base, "home")
	ws := filepath.Join(base, "repos", "mine")
	sibling := filepath.Join(base, "repos", "theirs", "secret.txt")
	storeFile := filepath.Join(home, ".local", "state", "salve", "salve.db")
	mustWrite(t, filepath.Join(home, "notes.txt"), "SECRET-HOME\n")
	mustWrite(t, filepath.Join(home, ".netrc"), "machine x password SECRET-NETRC\n")
	mustWrite(t, storeFile, "SECRET-STORE\n")
	mustWrite(t, sibling, "SECRET-SIBLING\n")
	mustWrite(t, filepath.Join(ws, "main.txt"), "mine\n")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	script := `for f in "$HOME/notes.txt" "$HOME/.netrc" "` + storeFile + `" "` + sibling + `" main.txt; do
  cat "$f" 2>/dev/null || echo "absent $f"; done
test -e /etc/shadow && echo SHADOW-VISIBLE
test -e /etc/ssh && echo SSH-VISIBLE
echo planted > "$HOME/planted" && echo wrote-home
exit 0`
	job := sandbox.Job{Workspace: ws, Script: script, Env: env, CacheDir: filepath.Join(base, "cache")}
	res := run(t, bw, job)
	out := string(res.Stdout)
	if strings.Contains(out, "SECRET") || strings.Contains(out, "VISIBLE") || !strings.Contains(out, "mine\n") {
		t.Errorf("inside bwrap the build saw host files:\n%s", out)
	}
	if strings.Count(out, "absent ") != 4 {
		t.Errorf("want 4 files absent, got:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, "planted")); err == nil {
		t.Errorf("a write to HOME inside the sandbox reached the host")
	}
	// Control: without isolation the same script reads everything.
	res = run(t, sandbox.None{}, job)
	if n := strings.Count(string(res.Stdout), "SECRET"); n != 4 {
		t.Errorf("control run without isolation read %d secrets, want 4:\n%s", n, res.Stdout)
	}
	_ = os.Remove(filepath.Join(home, "planted"))
	if _, err := os.Stat("/etc/shadow"); err == nil && !strings.Contains(string(res.Stdout), "SHADOW-VISIBLE") {
		t.Errorf("control run does not see /etc/shadow")
	}
}

// TestBwrapToolchainUnderHome puts a toolchain in a hidden directory of
// HOME, as rustup and pyenv do: its bin is in PATH and it reads its own
// files next to bin. It must work in the sandbox although HOME is empty.
func TestBwrapToolchainUnderHome(t *testing.T) {
	bw := detected(t)
	base := hostDir(t)
	home := filepath.Join(base, "home")
	tool := filepath.Join(home, ".mytool")
	mustWrite(t, filepath.Join(tool, "lib", "data.txt"), "toolchain data\n")
	mustWrite(t, filepath.Join(tool, "bin", "mytool"), "#!/bin/sh\ncat \"$(dirname \"$0\")/../lib/data.txt\"\n")
	if err := os.Chmod(filepath.Join(tool, "bin", "mytool"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(home, "private.txt"), "SECRET\n")
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, bw, sandbox.Job{Workspace: ws, CacheDir: filepath.Join(base, "cache"),
		Env:    []string{"HOME=" + home, "PATH=" + filepath.Join(tool, "bin") + ":/usr/bin:/bin"},
		Script: `mytool && (cat "$HOME/private.txt" 2>/dev/null || echo private-absent) && (touch "$HOME/.mytool/x" 2>/dev/null || echo tool-read-only)`})
	if want := "toolchain data\nprivate-absent\ntool-read-only\n"; res.ExitCode != 0 || string(res.Stdout) != want {
		t.Errorf("exit %d, output %q, want %q", res.ExitCode, res.Stdout, want)
	}
}

func TestBwrapTmpSizeCapped(t *testing.T) {
	bw := detected(t)
	if !bw.Features.TmpfsSize {
		t.Skip("this bwrap has no --size option; /tmp is not capped")
	}
	res := run(t, bw, sandbox.Job{Workspace: t.TempDir(), TmpSize: 4 << 20, Env: []string{"PATH=/usr/bin:/bin"},
		Script: `head -c 16777216 /dev/zero > /tmp/big 2>/dev/null && echo wrote-16M; exit 0`})
	if strings.Contains(string(res.Stdout), "wrote-16M") {
		t.Errorf("16 MiB fit in a 4 MiB /tmp: %q", res.Stdout)
	}
}

// userCacheLayout makes a HOME with a Go build cache, a cargo registry and
// an npm cache, and a checkout with node_modules, each holding "good".
func userCacheLayout(t *testing.T, base string) (home, source, ws string, files []string) {
	t.Helper()
	home = filepath.Join(base, "home")
	source = filepath.Join(base, "checkout")
	ws = filepath.Join(base, "worktree")
	files = []string{
		filepath.Join(home, ".cache", "go-build", "ab", "abcdef-d"),
		filepath.Join(home, ".cargo", "registry", "index", "config.json"),
		filepath.Join(home, ".npm", "_cacache", "index"),
		filepath.Join(source, "node_modules", "dep", "index.js"),
	}
	for _, f := range files {
		mustWrite(t, f, "good\n")
	}
	// cargo itself, as rustup installs it: a toolchain, bound read-only.
	cargo := filepath.Join(home, ".cargo", "bin", "cargo")
	mustWrite(t, cargo, "#!/bin/sh\necho good\n")
	if err := os.Chmod(cargo, 0o755); err != nil {
		t.Fatal(err)
	}
	files = append(files, cargo)
	mustWrite(t, filepath.Join(ws, "package.json"), "{}\n")
	return home, source, ws, files
}

// poisonScript reads every cache (through the variables a tool would use)
// and then tries to poison each: overwrite, add, delete.
const poisonScript = `set -u
for f in "$GOCACHE/ab/abcdef-d" "$HOME/.cargo/registry/index/config.json" "$npm_config_cache/_cacache/index" node_modules/dep/index.js; do
  printf '%s ' "$(cat "$f" 2>/dev/null || echo missing)"
  (echo POISON > "$f") 2>/dev/null
  (echo POISON > "$(dirname "$f")/planted") 2>/dev/null
done
rm -f "$GOCACHE/ab/abcdef-d" 2>/dev/null
(echo 'echo POISON' > "$HOME/.cargo/bin/cargo") 2>/dev/null
(echo '[build]' > "$HOME/.cargo/config.toml") 2>/dev/null
echo
exit 0`

// TestBwrapCachesCannotBePoisoned shares the user's caches with a real
// sandbox as overlays: the build reads them warm, its writes (overwrite,
// add, delete) succeed inside but never reach the host, and the next build
// sees the caches as they were.
func TestBwrapCachesCannotBePoisoned(t *testing.T) {
	bw := detected(t)
	if !bw.Features.Overlay {
		t.Skip("overlays cannot be mounted in a sandbox here; see TestBwrapCachesReadOnlyFallback")
	}
	base := hostDir(t)
	home, source, ws, files := userCacheLayout(t, base)
	env := []string{"PATH=" + filepath.Join(home, ".cargo", "bin") + ":/usr/bin:/bin", "HOME=" + home}
	cacheDir := filepath.Join(base, "salve-cache")
	for i := range 2 {
		job := sandbox.Job{Workspace: ws, Env: env, CacheDir: cacheDir, Script: poisonScript,
			Caches: sandbox.UserCaches(env, source, ws), Name: "poison-" + string(rune('a'+i))}
		if len(job.Caches) != 4 {
			t.Fatalf("caches %+v, want 4", job.Caches)
		}
		res := run(t, bw, job)
		if got := string(res.Stdout); got != "good good good good \n" {
			t.Errorf("run %d: the build read %q, want the user's caches as they were", i, got)
		}
		if _, err := os.Stat(filepath.Join(home, ".cargo", "config.toml")); err == nil {
			t.Errorf("run %d: a cargo config was planted", i)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil || !strings.Contains(string(b), "good\n") || strings.Contains(string(b), "POISON") {
				t.Errorf("run %d: %s now %q (%v)", i, f, b, err)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), "planted")); err == nil {
				t.Errorf("run %d: a file was planted next to %s", i, f)
			}
		}
		if _, err := os.Lstat(filepath.Join(ws, "node_modules")); err == nil {
			t.Errorf("run %d: the node_modules mount point was left in the workspace", i)
		}
		if left, _ := os.ReadDir(filepath.Join(cacheDir, "scratch")); len(left) != 0 {
			t.Errorf("run %d: scratch layers left behind: %v", i, left)
		}
	}
}

// TestBwrapCachesReadOnlyFallback runs the same poisoning attempt without
// overlays: the caches a tool can read read-only are bound read-only, the
// others are absent, and the host's stay unchanged.
func TestBwrapCachesReadOnlyFallback(t *testing.T) {
	bw := detected(t)
	bw.Features.Overlay = false
	base := hostDir(t)
	home, source, ws, files := userCacheLayout(t, base)
	env := []string{"PATH=" + filepath.Join(home, ".cargo", "bin") + ":/usr/bin:/bin", "HOME=" + home}
	res := run(t, bw, sandbox.Job{Workspace: ws, Env: env, CacheDir: filepath.Join(base, "salve-cache"),
		Script: poisonScript, Caches: sandbox.UserCaches(env, source, ws)})
	// GOCACHE and the npm cache are salve's own here (empty); the cargo
	// registry and node_modules are the user's, read-only.
	if got := string(res.Stdout); got != "missing good missing good \n" {
		t.Errorf("the build read %q", got)
	}
	if _, err := os.Stat(filepath.Join(home, ".cargo", "config.toml")); err == nil {
		t.Errorf("a cargo config was planted")
	}
	for _, f := range files {
		if b, err := os.ReadFile(f); err != nil || !strings.Contains(string(b), "good\n") || strings.Contains(string(b), "POISON") {
			t.Errorf("%s now %q (%v)", f, b, err)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(f), "planted")); err == nil {
			t.Errorf("a file was planted next to %s", f)
		}
	}
}

// TestBwrapDaemonDiesWithBuild starts a daemon the way a hostile build
// would (setsid, in the background) and lets the build exit at once: the
// daemon must not outlive it, because the sandbox's PID namespace ends with
// the build.
func TestBwrapDaemonDiesWithBuild(t *testing.T) {
	bw := detected(t)
	marker := fmt.Sprintf("%d.%d", 800+os.Getpid()%90, time.Now().UnixNano()%1000000)
	res := run(t, bw, sandbox.Job{Workspace: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"},
		Script: "setsid sleep " + marker + " </dev/null >/dev/null 2>&1 & echo started"})
	if !strings.Contains(string(res.Stdout), "started") {
		t.Fatalf("output %q", res.Stdout)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(procsWith(marker)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if left := procsWith(marker); len(left) > 0 {
		t.Errorf("a setsid daemon outlived the sandboxed build: %v", left)
	}
}

// TestBwrapOverlayKeepsPythonBytecode checks that where overlays work
// Python is not sent to an empty pycache prefix (it would recompile the
// standard library in every build) and no build gets salve's shared cache
// directory writable (a .pyc planted there would run in the next build),
// with or without caches to share; without overlays it uses salve's cache.
func TestBwrapOverlayKeepsPythonBytecode(t *testing.T) {
	base := t.TempDir()
	mustWrite(t, filepath.Join(base, "home", ".cache", "go-build", "x"), "x")
	env := []string{"HOME=" + filepath.Join(base, "home"), "PATH=/usr/bin:/bin"}
	job := sandbox.Job{Workspace: filepath.Join(base, "ws"), Script: "true", Env: env, Name: "py",
		CacheDir: filepath.Join(base, "cache"), Caches: sandbox.UserCaches(env, "", "")}
	for _, tt := range []struct {
		overlay bool
		caches  []sandbox.Cache
		want    string
	}{
		{true, job.Caches, ""},
		{true, nil, ""}, // a Python build shares no cache, and still gets no shared writable one
		{false, job.Caches, filepath.Join(base, "cache", "pycache")},
	} {
		job.Caches = tt.caches
		c, err := sandbox.Bwrap{Features: sandbox.BwrapFeatures{Overlay: tt.overlay}}.Command(job)
		if err != nil {
			t.Fatal(err)
		}
		cacheBind := strings.Contains(strings.Join(c.Args, " "), "--bind "+job.CacheDir+" ")
		if cacheBind == tt.overlay {
			t.Errorf("overlay %v, %d caches: salve's shared cache directory bound writable: %v", tt.overlay, len(tt.caches), cacheBind)
		}
		got := ""
		for _, kv := range c.Env {
			if v, ok := strings.CutPrefix(kv, "PYTHONPYCACHEPREFIX="); ok {
				got = v
			}
		}
		if got != tt.want {
			t.Errorf("overlay %v: PYTHONPYCACHEPREFIX=%q, want %q", tt.overlay, got, tt.want)
		}
	}
}

// TestUserCachesRefuseSymlinkedCheckoutDirs: a checkout's node_modules or
// target/ comes from the repository, which may be hostile; a symlink there
// must not bring its target into the sandbox.
func TestUserCachesRefuseSymlinkedCheckoutDirs(t *testing.T) {
	base := t.TempDir()
	source, ws, secret := filepath.Join(base, "src"), filepath.Join(base, "ws"), filepath.Join(base, "secret")
	mustWrite(t, filepath.Join(secret, "id_rsa"), "KEY")
	mustWrite(t, filepath.Join(source, "target", "debug", "x"), "x")
	mustWrite(t, filepath.Join(ws, "Cargo.toml"), "")
	if err := os.Symlink(secret, filepath.Join(source, "node_modules")); err != nil {
		t.Fatal(err)
	}
	got := sandbox.UserCaches(nil, source, ws)
	if len(got) != 1 || got[0].Name != "target" || got[0].Dst != filepath.Join(ws, "target") {
		t.Errorf("caches %+v, want only the real target/", got)
	}
}

// TestBwrapRootlessOverlay runs the overlay path as an ordinary user would
// (uid 65534, started from this root test): the sandbox gets its own user
// namespace, the setup step mounts the overlay as uid 0 there, and the
// build reads the user's cache, writes into the overlay without reaching
// it, and has no capabilities.
func TestBwrapRootlessOverlay(t *testing.T) {
	bw := detected(t)
	if os.Geteuid() != 0 {
		t.Skip("starting a sandbox as another user needs root; a non-root run uses this path by itself (Bwrap.Detect)")
	}
	if !bw.Features.Overlay {
		t.Skip("overlays cannot be mounted in a sandbox here")
	}
	dir, err := os.MkdirTemp("", "salve-rootless-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	home, ws, cache := filepath.Join(dir, "home"), filepath.Join(dir, "ws"), filepath.Join(dir, "cache")
	entry := filepath.Join(home, ".cache", "go-build", "entry")
	mustWrite(t, entry, "good\n")
	for _, d := range []string{ws, cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	rootless := sandbox.Bwrap{Features: sandbox.BwrapFeatures{TmpfsSize: true, Overlay: true, UserNS: true}}
	job := sandbox.Job{Workspace: ws, Env: env, CacheDir: cache, Name: "rootless", Caches: sandbox.UserCaches(env, "", ws),
		Script: `id -u; cat "$GOCACHE/entry"; echo POISON > "$GOCACHE/entry" && echo overwrote; grep -q '^CapBnd:[[:space:]]*0*$' /proc/self/status && echo nocaps`}
	c, err := rootless.Command(job)
	if err != nil {
		t.Fatal(err)
	}
	// Everything, the scratch directory Command made included, belongs to
	// the user the sandbox runs as.
	err = filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Chmod(p, 0o755); err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = time.Minute
	c.Setup = func(cmd *exec.Cmd) {
		cmd.Stderr = cmd.Stdout
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	res, err := sandbox.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	_ = rootless.Cleanup(context.Background(), job)
	out := string(res.Stdout)
	if strings.Contains(out, "namespace") && res.ExitCode != 0 {
		t.Skipf("unprivileged user namespaces are not available here: %s", out)
	}
	if out != "0\ngood\noverwrote\nnocaps\n" {
		t.Errorf("exit %d, output %q", res.ExitCode, out)
	}
	if b, err := os.ReadFile(entry); err != nil || string(b) != "good\n" {
		t.Errorf("the user's cache entry is now %q (%v)", b, err)
	}
}

// TestBwrapKeptDirs: a job's kept directories are bound at their own
// paths, writable or read-only as asked, only when they are existing
// directories inside its cache directory; nothing else is.
func TestBwrapKeptDirs(t *testing.T) {
	base := t.TempDir()
	cache := filepath.Join(base, "cache")
	inside, ro := filepath.Join(cache, "kept", "a", "go-work"), filepath.Join(cache, "kept", "a", "ro")
	outside := filepath.Join(base, "elsewhere")
	link := filepath.Join(cache, "kept", "link")
	for _, d := range []string{inside, ro, outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(cache, "file"), "x")
	job := sandbox.Job{Workspace: filepath.Join(base, "ws"), Script: "true", Env: []string{"PATH=/usr/bin:/bin"}, Name: "kept", CacheDir: cache,
		Kept: []sandbox.KeptDir{{Path: inside, Writable: true}, {Path: ro}, {Path: outside, Writable: true}, {Path: link, Writable: true},
			{Path: filepath.Join(cache, "missing"), Writable: true}, {Path: filepath.Join(cache, "file"), Writable: true},
			{Path: cache, Writable: true}, {Path: "relative", Writable: true}, {Path: filepath.Join(cache, "kept", "..", "..", "elsewhere"), Writable: true}}}
	for _, overlay := range []bool{true, false} {
		c, err := sandbox.Bwrap{Features: sandbox.BwrapFeatures{Overlay: overlay}}.Command(job)
		if err != nil {
			t.Fatal(err)
		}
		args := " " + strings.Join(c.Args, " ") + " "
		if !strings.Contains(args, " --bind "+inside+" "+inside+" ") || !strings.Contains(args, " --ro-bind "+ro+" "+ro+" ") {
			t.Errorf("overlay %v: the kept directories are not bound as asked:%s", overlay, args)
		}
		for _, p := range []string{outside, link, filepath.Join(cache, "missing"), filepath.Join(cache, "file")} {
			if strings.Contains(args, " "+p+" ") {
				t.Errorf("overlay %v: %s is mounted:%s", overlay, p, args)
			}
		}
		if overlay && strings.Contains(args, " --bind "+cache+" ") {
			t.Errorf("a kept directory bound salve's whole cache directory:%s", args)
		}
	}
}

// TestBwrapChoiceStartsOneSandbox: choosing bwrap starts one sandbox where
// overlays work (the overlay probe, which proves the sandbox works, /etc's
// files copied in); where they do not, the plain probe and a build's
// layout without overlays, whose copies of /etc's files are given up when
// that sandbox does not start; a bwrap that starts no sandbox at all is
// unavailable. A wrapper in PATH logs every start.
func TestBwrapChoiceStartsOneSandbox(t *testing.T) {
	if !detected(t).Features.Overlay {
		t.Skip("overlays cannot be mounted in a sandbox here")
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		refuse        string // a start whose arguments hold this fails
		overlay, file bool
		starts        int
		ok            bool
	}{
		{"overlays work", "", true, true, 1, true},
		{"no overlays", "--cap-add", false, true, 3, true},
		{"no --file", "--file", false, false, 3, true},
		{"no sandbox", "--", false, false, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "starts")
			script := "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --help ] && exec " + bwrap + " \"$@\"; done\necho start >>" + log + "\n"
			if tc.refuse != "" {
				script += "for a in \"$@\"; do [ \"$a\" = " + tc.refuse + " ] && exit 1; done\n"
			}
			script += "exec " + bwrap + " \"$@\"\n"
			if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
			b, err := sandbox.SelectBackend(context.Background(), sandbox.IsolationBwrap, "")
			if tc.ok != (err == nil) {
				t.Fatalf("SelectBackend: %v, %v", b, err)
			}
			if tc.ok {
				if f := b.(sandbox.Bwrap).Features; f.Overlay != tc.overlay || f.File != tc.file {
					t.Errorf("features %+v, want overlay %v, file %v", f, tc.overlay, tc.file)
				}
			}
			got, _ := os.ReadFile(log)
			if n := strings.Count(string(got), "start"); n != tc.starts {
				t.Errorf("%d sandbox starts, want %d", n, tc.starts)
			}
		})
	}
}

// TestBwrapEtcFilesCopied: with --file, the allow-list's files of /etc are
// copies in the sandbox: the same bytes as the host's, read-only, the rest
// of /etc still hidden, and no descriptor of them left to the build.
func TestBwrapEtcFilesCopied(t *testing.T) {
	bw := detected(t)
	if !bw.Features.File {
		t.Skip("this bwrap has no --file option; /etc's files are bound")
	}
	want, err := os.ReadFile("/etc/passwd")
	if err != nil {
		t.Skipf("no /etc/passwd here: %v", err)
	}
	ws := hostDir(t)
	script := `cat /etc/passwd
echo x >> /etc/passwd 2>/dev/null && echo PASSWD-WRITABLE
test -e /etc/shadow && echo SHADOW-VISIBLE
for fd in /proc/$$/fd/*; do case "$(readlink "$fd")" in /etc/*) echo "OPEN ${fd##*/}";; esac; done
exit 0`
	res := run(t, bw, sandbox.Job{Workspace: ws, Script: script, Env: []string{"PATH=/usr/bin:/bin"}})
	out := string(res.Stdout)
	if !strings.HasPrefix(out, string(want)) {
		t.Errorf("/etc/passwd in the sandbox differs from the host's:\n%s", out)
	}
	for _, bad := range []string{"PASSWD-WRITABLE", "SHADOW-VISIBLE", "OPEN "} {
		if strings.Contains(out, bad) {
			t.Errorf("%s:\n%s", bad, out)
		}
	}
	c, err := bw.Command(sandbox.Job{Workspace: ws, Script: "true"})
	if err != nil {
		t.Fatal(err)
	}
	n := len(c.Files)
	for _, f := range c.Files {
		f.Close()
	}
	if n == 0 || !slices.Contains(c.Args, "--file") || slices.Contains(c.Args, "/etc/passwd") && !slices.Contains(c.Args, "--file") {
		t.Errorf("no file of /etc copied: %d files, args %q", n, c.Args)
	}
}

// BenchmarkBwrapStart times one sandboxed job running "true", laid out as
// a build's without caches: the allow-list's files of /etc bound one by
// one, or copied in from open descriptors (--file).
func BenchmarkBwrapStart(b *testing.B) {
	if err := (sandbox.Bwrap{}).Probe(context.Background(), ""); err != nil {
		b.Skip(err)
	}
	bw := sandbox.Bwrap{}.Detect(context.Background())
	if !bw.Features.File {
		b.Skip("this bwrap has no --file option")
	}
	ws := b.TempDir()
	for _, mode := range []struct {
		name string
		file bool
	}{{"etc=binds", false}, {"etc=files", true}} {
		b.Run(mode.name, func(b *testing.B) {
			x := bw
			x.Features.File = mode.file
			x.Features.Overlay = false
			for b.Loop() {
				res, err := sandbox.RunJob(context.Background(), x, sandbox.Job{Workspace: ws, Script: "true", Env: []string{"PATH=/usr/bin:/bin"}})
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v %d %s", err, res.ExitCode, res.Stdout)
				}
			}
		})
	}
}
