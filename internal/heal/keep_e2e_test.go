package heal_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// keepEnv is the environment of the salve binary with its data folder at
// data, keeping the heal worktree of a repository that tracks files files
// or more (the c-broken example tracks 5).
func keepEnv(data string, files int) []string {
	return append(healEnv(data), heal.EnvKeepFiles+"="+strconv.Itoa(files))
}

// checkKeptClean fails unless the worktree wt of repo is registered,
// locked, detached at base, and holds exactly base: no change to a
// tracked file, no untracked or ignored file.
func checkKeptClean(t *testing.T, repo, wt, base string) {
	t.Helper()
	list := worktreeList(repo)
	if !strings.Contains(list, "worktree "+wt+"\n") || !strings.Contains(list, "locked salve heal-worktree") {
		t.Fatalf("the worktree %s is not kept:\n%s", wt, list)
	}
	if head := run(t, wt, "git", "rev-parse", "HEAD"); head != base {
		t.Errorf("the kept worktree is at %s, want the base %s", head, base)
	}
	if err := exec.Command("git", "-C", wt, "symbolic-ref", "-q", "HEAD").Run(); err == nil {
		t.Error("the kept worktree is on a branch, want it detached")
	}
	if st := run(t, wt, "git", "status", "--porcelain", "--ignored", "--untracked-files=all"); st != "" {
		t.Errorf("the kept worktree is not clean:\n%s", st)
	}
}

// TestKeepWorktreeBySize: a heal of a repository that tracks
// SALVE_KEEP_WORKTREE_FILES files or more keeps its worktree, reset to
// the base and cleaned whatever its builds left, and the next heal
// reuses it; under that number, or with --keep-worktree=false, the
// worktree is removed as before. The user's checkout is never touched.
func TestKeepWorktreeBySize(t *testing.T) {
	need(t, "sh", "cc", "make")
	gitIdentity(t)
	const litter = `mkdir -p out/deep; echo x > out/deep/obj; touch stray.o; echo '// changed' >> calc.h; `
	for _, tc := range []struct {
		name    string
		files   int
		args    []string
		outcome string
		keep    bool
	}{
		{"over the threshold, fixed", 5, []string{"--cmd", "make"}, results.OutcomeGreen, true},
		{"over the threshold, red and littered", 5, []string{"--cmd", litter + "exit 1"}, results.OutcomeRed, true},
		{"under the threshold", 6, []string{"--cmd", "make"}, results.OutcomeGreen, false},
		{"over the threshold, --keep-worktree=false", 5, []string{"--cmd", "make", "--keep-worktree=false"}, results.OutcomeGreen, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			env := keepEnv(data, tc.files)
			repo := testrepo.Example(t, "c-broken")
			before := userState(t, repo)
			head := run(t, repo, "git", "rev-parse", "HEAD")
			res, out := healWithEnv(t, env, repo, tc.args...)
			if res == nil || res.Outcome != tc.outcome {
				t.Fatalf("the heal ended %+v, want %s:\n%s", res, tc.outcome, out)
			}
			wt, _ := readyPath(out)
			if wt == "" {
				t.Fatalf("no worktree was made:\n%s", out)
			}
			if userState(t, repo) != before {
				t.Error("the user's work tree, index or branches changed")
			}
			if !tc.keep {
				if list := worktreeList(repo); strings.Count(list, "worktree ") != 1 {
					t.Errorf("worktrees after the heal:\n%s", list)
				}
				if _, err := os.Stat(wt); err == nil {
					t.Errorf("the worktree's folder %s is still there", wt)
				}
				return
			}
			checkKeptClean(t, repo, wt, head)
			// The next heal verifies, resets and reuses it; it must find
			// the commit and nothing else (make then rebuilds from it).
			res, out = healWithEnv(t, env, repo, "--cmd", "make")
			again, reused := readyPath(out)
			if again != wt || !reused {
				t.Errorf("the second heal used %s (reused %v), want the kept %s", again, reused, wt)
			}
			if res == nil || res.Outcome != results.OutcomeGreen || res.BaseCommit != head {
				t.Fatalf("the second heal: %+v\n%s", res, out)
			}
			checkKeptClean(t, repo, wt, head)
			if userState(t, repo) != before {
				t.Error("the user's work tree, index or branches changed")
			}
		})
	}
}

// TestKeptWorktreeInterrupted sends SIGTERM to a heal of a repository
// over the threshold while its build runs, after the build littered the
// worktree: the heal ends, the user's checkout is untouched, and the
// worktree is either clean or removed.
func TestKeptWorktreeInterrupted(t *testing.T) {
	need(t, "sh", "sleep")
	gitIdentity(t)
	repo := testrepo.Example(t, "c-broken")
	before := userState(t, repo)
	head := run(t, repo, "git", "rev-parse", "HEAD")
	fifo := filepath.Join(t.TempDir(), "building")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	_, salve := heal.Binaries()
	build := `mkdir -p out; echo x > out/obj; touch stray.o; echo '// changed' >> calc.h; echo building > '` + fifo + `'; sleep 60; exit 1`
	cmd := exec.Command(salve, "heal", "--workspace", repo, "--isolation", "none", "--no-store", "--cmd", build)
	cmd.Env = keepEnv(t.TempDir(), 5)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Opening the FIFO waits for the build to write to it.
	started := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			started <- err.Error()
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		started <- line
	}()
	select {
	case line := <-started:
		if line != "building\n" {
			t.Fatalf("read %q from the build", line)
		}
	case err := <-done:
		t.Fatalf("the heal ended before its build started: %v\n%s", err, stderr.String())
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the build never started:\n%s", stderr.String())
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("salve did not end after SIGTERM:\n%s", stderr.String())
	}
	wt, _ := readyPath(stderr.String())
	if wt == "" {
		t.Fatalf("no worktree in the log:\n%s", stderr.String())
	}
	if userState(t, repo) != before {
		t.Error("the user's work tree, index or branches changed")
	}
	if _, err := os.Stat(wt); err == nil {
		checkKeptClean(t, repo, wt, head)
	} else if list := worktreeList(repo); strings.Count(list, "worktree ") != 1 {
		t.Errorf("the worktree's folder is gone but not its record:\n%s", list)
	}
}

// TestKeptWorktreeExpires: a kept worktree no heal used for a week is
// removed by the next heal of any repository that ends an hour or more
// after the last look, and salve gc --unused-for removes only the
// worktrees unused for that long.
func TestKeptWorktreeExpires(t *testing.T) {
	need(t, "sh")
	gitIdentity(t)
	data := t.TempDir()
	env := keepEnv(data, 5)
	repoA, repoB := testrepo.Example(t, "c-broken"), testrepo.Example(t, "c-broken")
	kept := func(repo string) string {
		t.Helper()
		res, out := healWithEnv(t, env, repo, "--cmd", "true")
		wt, _ := readyPath(out)
		if res == nil || res.Outcome != results.OutcomeGreen || wt == "" {
			t.Fatalf("heal of %s: %+v\n%s", repo, res, out)
		}
		if _, err := os.Stat(wt); err != nil {
			t.Fatalf("the worktree of %s was not kept: %v\n%s", repo, err, out)
		}
		return wt
	}
	age := func(wt string, d time.Duration) {
		t.Helper()
		old := time.Now().Add(-d)
		if err := os.Chtimes(wt+".lock", old, old); err != nil {
			t.Fatal(err)
		}
	}
	gc := func(args ...string) string {
		t.Helper()
		_, salve := heal.Binaries()
		r, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: append([]string{"gc"}, args...), Env: env, Timeout: time.Minute})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("salve gc: %v exit %d: %s", err, r.ExitCode, r.Stderr)
		}
		out, _, _ := strings.Cut(string(r.Stdout), "build cache: ")
		return out
	}
	wtA, wtB := kept(repoA), kept(repoB)
	// Six days unused: still kept after a heal of the other repository.
	age(wtA, 6*24*time.Hour)
	if again := kept(repoB); again != wtB {
		t.Fatalf("the second heal of B used %s, not %s", again, wtB)
	}
	if _, err := os.Stat(wtA); err != nil {
		t.Fatalf("A's worktree, six days unused, was removed: %v", err)
	}
	// Eight days: a heal within the hour of the last look leaves it (the
	// heals look at most hourly); the first heal of B after that hour
	// removes A's worktree and its record.
	age(wtA, 8*24*time.Hour)
	kept(repoB)
	if _, err := os.Stat(wtA); err != nil {
		t.Fatalf("A's worktree was removed by a heal within the hour of the last look: %v", err)
	}
	stamp := filepath.Join(filepath.Dir(filepath.Dir(wtA)), "expired.stamp")
	if _, err := os.Stat(stamp); err != nil {
		t.Fatalf("no stamp of the last look: %v", err)
	}
	hourAgo := time.Now().Add(-heal.ExpireEvery - time.Minute)
	if err := os.Chtimes(stamp, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	kept(repoB)
	if _, err := os.Stat(wtA); err == nil {
		t.Errorf("A's worktree, eight days unused, is still there")
	}
	if list := worktreeList(repoA); strings.Count(list, "worktree ") != 1 {
		t.Errorf("A's worktrees after the expiry:\n%s", list)
	}
	if _, err := os.Stat(wtB); err != nil {
		t.Errorf("B's worktree, just used, was removed: %v", err)
	}
	// gc --unused-for leaves B's recent worktree, then removes it once old.
	if got := gc("--unused-for", "168h"); got != "recent "+wtB+"\n" {
		t.Errorf("gc --unused-for 168h with B recent: %q", got)
	}
	if _, err := os.Stat(wtB); err != nil {
		t.Fatalf("gc --unused-for removed a recent worktree: %v", err)
	}
	age(wtB, 8*24*time.Hour)
	if got := gc("--unused-for", "168h"); got != "removed "+wtB+"\n" {
		t.Errorf("gc --unused-for 168h with B old: %q", got)
	}
	if list := worktreeList(repoB); strings.Count(list, "worktree ") != 1 {
		t.Errorf("B's worktrees after gc:\n%s", list)
	}
}
