package heal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/sandbox"
	"github.com/salve-dev/salve/internal/testrepo"
)

// healEnv is the environment of the salve binary with its data folder
// (the persistent worktrees) at data.
func healEnv(data string) []string {
	gitAgent, _ := heal.Binaries()
	return sandbox.MergeEnv(sandbox.AllowedEnv("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM"),
		map[string]string{"SALVE_GIT_AGENT": gitAgent, "SALVE_LOG_FORMAT": "json", "XDG_DATA_HOME": data})
}

// healWith runs `salve heal --json` on repo with the data folder data.
func healWith(t *testing.T, data, repo string, args ...string) (*results.Results, string) {
	t.Helper()
	return healWithEnv(t, healEnv(data), repo, args...)
}

// healWithEnv runs `salve heal --json` on repo with the environment env.
func healWithEnv(t *testing.T, env []string, repo string, args ...string) (*results.Results, string) {
	t.Helper()
	_, salve := heal.Binaries()
	full := append([]string{"heal", "--workspace", repo, "--no-store", "--json", "--isolation", "none", "--results", filepath.Join(t.TempDir(), "results.json")}, args...)
	r, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: full, Env: env, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatalf("salve heal: %v", err)
	}
	res, _ := decodeResults(r.Stdout)
	return res, string(r.Stderr)
}

var worktreeReady = regexp.MustCompile(`"msg":"heal worktree ready".*?"path":"([^"]+)".*?"reused":(true|false)`)

// readyPath returns the worktree path and whether it was reused, from the
// heal's log.
func readyPath(stderr string) (string, bool) {
	m := worktreeReady.FindStringSubmatch(stderr)
	if m == nil {
		return "", false
	}
	return m[1], m[2] == "true"
}

// TestPersistentWorktreeNeverTrusted runs a hostile build in one heal
// (leaving files, changing a tracked file, rewriting .git, changing the
// git directory's back-link) and checks that the next heal of the same
// repository, in the same persistent worktree folder, starts from a work
// tree that is exactly the commit: its build checks that it is.
func TestPersistentWorktreeNeverTrusted(t *testing.T) {
	need(t, "sh", "cc", "make")
	gitIdentity(t)
	const leave = `mkdir -p vendor/sub; echo 'echo planted' > vendor/sub/planted.sh; echo 'echo planted' > planted.sh; mkdir -p out/deep; echo x > out/deep/obj; echo '// changed' >> calc.h; cp -p calc_test.c .orig; sed -i 's/scale/SCALE/' calc_test.c; touch -r .orig calc_test.c; rm .orig; chmod 000 out`
	for _, tc := range []struct {
		name, attack string
	}{
		{"leaves files", leave},
		{"rewrites .git", leave + `; printf 'gitdir: %s\n' "$PWD/evil/.git" > .git`},
		{"replaces .git by a folder", leave + `; rm -f .git; cp -R evil/.git .git`},
		{"changes the gitdir", leave + `; gd=$(sed 's/^gitdir: //' .git); echo /nowhere/.git > "$gd/gitdir"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			marker := filepath.Join(t.TempDir(), "escaped")
			repo := testrepo.Example(t, "c-broken")
			if err := os.WriteFile(filepath.Join(repo, "evil.sh"), []byte(attackScript(marker, false)), 0o755); err != nil {
				t.Fatal(err)
			}
			// The attack makes evil/ and rewrites .git; the test's own
			// step runs after it, then the build fails.
			run(t, repo, "git", "add", "evil.sh")
			// A submodule entry: git clean does not enter its folder.
			run(t, repo, "git", "update-index", "--add", "--cacheinfo", "160000,"+run(t, repo, "git", "rev-parse", "HEAD")+",vendor/sub")
			run(t, repo, "git", "commit", "-qm", "hostile build")
			before := userState(t, repo)
			head := run(t, repo, "git", "rev-parse", "HEAD")
			_, out1 := healWith(t, data, repo, "--cmd", "cp .git .git-saved; sh evil.sh; cp .git-saved .git; "+tc.attack+"; exit 1", "--max-iterations", "1")
			wt1, _ := readyPath(out1)
			if wt1 == "" {
				t.Fatalf("first heal made no worktree:\n%s", out1)
			}
			// The second heal's build passes only in a pristine tree.
			check := `test -z "$(ls -A vendor/sub)" && test ! -e planted.sh && test ! -e out && test ! -e evil && test ! -e .git-saved && ! grep -q changed calc.h && ! grep -q SCALE calc_test.c && test -f .git && grep -q '^gitdir: ' .git && ! grep -q evil .git`
			res, out2 := healWith(t, data, repo, "--cmd", check)
			wt2, reused := readyPath(out2)
			if wt2 != wt1 {
				t.Errorf("the second heal used %s, not the persistent %s", wt2, wt1)
			}
			if res == nil || res.Outcome != results.OutcomeGreen || !strings.Contains(res.Reason, "already") {
				t.Fatalf("the second heal's build did not find a pristine tree (reused %v): %+v\n%s", reused, res, out2)
			}
			if res.BaseCommit != head {
				t.Errorf("base %s, want the user's HEAD %s", res.BaseCommit, head)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("a planted hook ran")
			}
			if userState(t, repo) != before {
				t.Error("the user's work tree, index or branches changed")
			}
			if b := run(t, repo, "git", "branch", "--list", "salve/*"); b != "" {
				t.Errorf("heal branches though nothing was committed: %q", b)
			}
		})
	}
}

// TestConcurrentHeals runs two heals of one repository and two of another
// at the same time: each fixes its bug on its own branch, the two heals
// of one repository use different worktrees, and the checkouts are
// untouched. A third round reuses the worktrees.
func TestConcurrentHeals(t *testing.T) {
	need(t, "sh", "cc", "make", "sleep")
	gitIdentity(t)
	data := t.TempDir()
	repos := []string{testrepo.Example(t, "c-broken"), testrepo.Example(t, "c-broken")}
	before := []string{userState(t, repos[0]), userState(t, repos[1])}
	for round := 0; round < 2; round++ {
		type out struct {
			res    *results.Results
			stderr string
		}
		outs := make([]out, 4)
		var wg sync.WaitGroup
		for i := range outs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				res, stderr := healWith(t, data, repos[i%2], "--cmd", "sleep 1; make", "--keep-worktree", "--branch", fmt.Sprintf("salve/r%d-h%d", round, i))
				outs[i] = out{res, stderr}
			}(i)
		}
		wg.Wait()
		paths := map[string]bool{}
		for i, o := range outs {
			if o.res == nil || o.res.Outcome != results.OutcomeGreen || len(o.res.Commits) != 1 {
				t.Fatalf("round %d heal %d: %+v\n%s", round, i, o.res, o.stderr)
			}
			checkCommitsOnBranch(t, repos[i%2], o.res)
			p, reused := readyPath(o.stderr)
			if paths[p] {
				t.Errorf("round %d: two heals shared the worktree %s", round, p)
			}
			paths[p] = true
			if round == 1 && !reused {
				t.Errorf("round 2 heal %d did not reuse its worktree %s", i, p)
			}
		}
	}
	for i, repo := range repos {
		if userState(t, repo) != before[i] {
			t.Errorf("repository %d: the user's work tree, index or branches changed", i)
		}
	}
}

// TestGC runs `salve gc` after a heal: a worktree a heal holds is left
// alone, then salve's worktree goes, and an empty (merged) heal branch,
// while the user's own worktree (locked too), the user's branches and the
// heal branch holding a fix stay.
func TestGC(t *testing.T) {
	need(t, "sh", "cc", "make")
	gitIdentity(t)
	data := t.TempDir()
	repo := testrepo.Example(t, "c-broken")
	userWT := filepath.Join(t.TempDir(), "mine")
	run(t, repo, "git", "worktree", "add", "-q", "-b", "mine", userWT)
	run(t, repo, "git", "worktree", "lock", "--reason", "my own", userWT)
	// An empty heal branch, as older versions left: merged, so stale.
	run(t, repo, "git", "branch", "salve/heal-0ld00000")
	before := userState(t, repo)
	res, out := healWith(t, data, repo, "--cmd", "make", "--keep-worktree")
	if res == nil || len(res.Commits) != 1 {
		t.Fatalf("heal: %+v\n%s", res, out)
	}
	wt, _ := readyPath(out)
	gc := func() string {
		_, salve := heal.Binaries()
		r, err := sandbox.Run(context.Background(), sandbox.Cmd{Path: salve, Args: []string{"gc"}, Env: healEnv(data), Timeout: time.Minute})
		if err != nil || r.ExitCode != 0 {
			t.Fatalf("salve gc: %v exit %d: %s", err, r.ExitCode, r.Stderr)
		}
		// The last line totals the build cache against its budget.
		out, cache, _ := strings.Cut(string(r.Stdout), "build cache: ")
		if !strings.Contains(cache, " bytes in ") || !strings.Contains(cache, "budget ") {
			t.Errorf("gc printed no build-cache total: %q", r.Stdout)
		}
		return out
	}
	// A heal holding the worktree: gc leaves it.
	lock, err := os.OpenFile(wt+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if got := gc(); got != "in use "+wt+"\ndeleted branch "+repo+" salve/heal-0ld00000\n" {
		t.Errorf("gc with the worktree held: %q", got)
	}
	if _, err := os.Stat(wt); err != nil {
		t.Errorf("gc removed a worktree in use: %v", err)
	}
	_ = lock.Close()
	if got := gc(); got != "removed "+wt+"\n" {
		t.Errorf("gc: %q", got)
	}
	list := worktreeList(repo)
	if strings.Count(list, "worktree ") != 2 || !strings.Contains(list, userWT) || !strings.Contains(list, "locked my own") {
		t.Errorf("worktrees after gc:\n%s", list)
	}
	if _, err := os.Stat(wt); err == nil {
		t.Error("the worktree folder is still there")
	}
	if b := run(t, repo, "git", "branch", "--list", "salve/heal-0ld00000"); b != "" {
		t.Errorf("the merged heal branch is still there: %q", b)
	}
	if got := run(t, repo, "git", "rev-parse", "refs/heads/"+res.Branch); got != res.HeadCommit {
		t.Errorf("the heal branch is at %q after gc, want %s", got, res.HeadCommit)
	}
	if userState(t, repo) != before {
		t.Error("the user's work tree, index or branches changed")
	}
	// The next heal makes a new worktree.
	if res, out := healWith(t, data, repo, "--cmd", "true"); res == nil || res.Outcome != results.OutcomeGreen {
		t.Errorf("heal after gc: %+v\n%s", res, out)
	}
}

// TestWorktreeGoneAfterHeal: whatever the outcome, a heal leaves the
// user's repository with no worktree of its own registered, and nothing
// of it in salve's data folder; --keep-worktree keeps it, detached, for
// the user to look at and for the next heal to reuse.
func TestWorktreeGoneAfterHeal(t *testing.T) {
	need(t, "sh", "cc", "make")
	gitIdentity(t)
	for _, tc := range []struct {
		name string
		args []string
		keep bool
	}{
		{"green", []string{"--cmd", "make"}, false},
		{"red", []string{"--cmd", "echo nothing to parse; exit 1"}, false},
		{"kept", []string{"--cmd", "make", "--keep-worktree"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			repo := testrepo.Example(t, "c-broken")
			_, out := healWith(t, data, repo, tc.args...)
			wt, _ := readyPath(out)
			if wt == "" {
				t.Fatalf("no worktree was made:\n%s", out)
			}
			list := worktreeList(repo)
			_, statErr := os.Stat(wt)
			if tc.keep {
				if strings.Count(list, "worktree ") != 2 || !strings.Contains(list, "detached") || statErr != nil {
					t.Errorf("--keep-worktree: worktrees\n%s(stat: %v)", list, statErr)
				}
				// The user deletes the kept folder; its record stays,
				// locked. The next heal still makes its worktree there.
				if err := os.RemoveAll(wt); err != nil {
					t.Fatal(err)
				}
				res, out := healWith(t, data, repo, "--cmd", "make")
				if again, reused := readyPath(out); again != wt || reused {
					t.Errorf("after the kept folder was deleted, the heal used %q (reused %v), want a new %s:\n%s", again, reused, wt, out)
				}
				if res == nil || res.Outcome != results.OutcomeGreen {
					t.Fatalf("the heal after the kept folder was deleted: %+v\n%s", res, out)
				}
				if list := worktreeList(repo); strings.Count(list, "worktree ") != 1 {
					t.Errorf("worktrees after the second heal:\n%s", list)
				}
				return
			}
			if strings.Count(list, "worktree ") != 1 || strings.Contains(list, wt) {
				t.Errorf("worktrees after the heal:\n%s", list)
			}
			if statErr == nil {
				t.Errorf("the worktree's folder %s is still there", wt)
			}
		})
	}
}

// TestGitAgentRunsPerHeal counts the git agent's process starts of a heal
// that makes one fix, through a wrapper that logs each start: each run is a
// process start and a git start, most of a small heal's fixed cost. The
// budgets are what a heal needs, so a run added by mistake fails here: a
// first heal's setup lists the worktrees, checks the branch, reads the
// checkout's diff, adds the worktree, finds its git directory and reads
// its HEAD (6); the commit makes the branch, stages, commits, reads HEAD
// and checks the tip in the repository (5); cleanup removes (1). A kept
// worktree's reuse reads the user's HEAD and finds, resets, cleans and
// checks the worktree instead of the add (15).
func TestGitAgentRunsPerHeal(t *testing.T) {
	need(t, "sh", "cc", "make")
	gitIdentity(t)
	real, _ := heal.Binaries()
	dir := t.TempDir()
	count := filepath.Join(dir, "starts")
	wrapper := filepath.Join(dir, "git_agent")
	script := fmt.Sprintf("#!/bin/sh\necho start >>'%s'\nexec '%s' \"$@\"\n", count, real)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	repo := testrepo.Example(t, "c-broken")
	for _, tc := range []struct {
		name string
		args []string
		max  int
	}{
		{"first heal", []string{"--branch", "first"}, 12},
		{"kept worktree", []string{"--branch", "kept", "--keep-worktree"}, 12},
		{"the kept worktree reused", []string{"--branch", "reused"}, 15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.Remove(count); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			res, out := healWith(t, data, repo, append([]string{"--git-agent", wrapper, "--cmd", "make", "--fixers", "rules", "--no-repo-config"}, tc.args...)...)
			if res == nil || res.Outcome != results.OutcomeGreen {
				t.Fatalf("the heal did not end green: %+v\n%s", res, out)
			}
			b, err := os.ReadFile(count)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(b), "start"); n > tc.max {
				t.Errorf("the heal started the git agent %d times, want at most %d", n, tc.max)
			}
		})
	}
}
