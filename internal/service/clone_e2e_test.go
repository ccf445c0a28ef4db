package service_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/service"
)

// TestWorkerKeepsItsClone runs salve serve with one in-process worker on
// local repositories:
//   - two jobs of one repository both heal green, the first making the
//     worker's kept clone of it and the second fetching into it (the
//     worker's checkout counters say so), with one kept clone in salve's
//     data folder;
//   - a fork's failure, sent as a webhook, heals green on the fork though
//     the fork's own main carries a .salve.yml turning salve off: the
//     rules come from the upstream's main. The fork's branches stay out of
//     the kept clone's branches, and the upstream's next job heals green.
func TestWorkerKeepsItsClone(t *testing.T) {
	salve, agent := binaries(t)
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data) // the worker's kept clones, and only this test's
	t.Setenv(service.EnvGitHubSecret, "e2e-secret")
	api, _ := serve(t, salve, agent, t.TempDir(), "--workers", "1", "--isolation", "none", "--heal-forks")
	bare := bareBroken(t, "kept")
	job := fmt.Sprintf(`{"repo": %q, "ref": "main"}`, bare)
	ids := []string{submit(t, api, job), submit(t, api, job)}
	for _, id := range ids {
		if j := waitFinal(t, api, []string{id})[id]; j.Status != service.StatusGreen {
			t.Fatalf("job %s: %s %q", id, j.Status, j.Error)
		}
	}
	for how, want := range map[string]float64{"clone": 1, "fetch": 1} {
		if n := metric(t, api, `salve_worker_checkouts_total{how="`+how+`"}`); n != want {
			t.Errorf("checkouts by %s: %v, want %v", how, n, want)
		}
	}
	clones := filepath.Join(data, "salve", "clones", "repos")
	if kept, _ := os.ReadDir(clones); len(kept) != 1 {
		t.Errorf("kept clones %v, want one for the two jobs", kept)
	}
	if n := metric(t, api, "salve_worker_clones_bytes"); n <= 0 {
		t.Errorf("salve_worker_clones_bytes = %v, want the kept clone's size", n)
	}

	// The fork: its main turns salve off; its feature branch is the
	// upstream's broken main and a commit of its own (so the fork's main,
	// which does not hold it, would count as a base).
	fork := filepath.Join(t.TempDir(), "fork.git")
	gitRun(t, "", "clone", "-q", "--bare", "--single-branch", "--branch", "main", bare, fork)
	work := filepath.Join(t.TempDir(), "fork")
	gitRun(t, "", "clone", "-q", fork, work)
	for _, c := range []struct{ branch, file, body string }{
		{"main", ".salve.yml", "heal: false\n"},
		{"feature", "NOTES", "a change of the fork's\n"},
	} {
		gitRun(t, work, "checkout", "-q", "-B", c.branch, "origin/main")
		if err := os.WriteFile(filepath.Join(work, c.file), []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		gitRun(t, work, "add", c.file)
		gitRun(t, work, "commit", "-q", "-m", c.file)
	}
	gitRun(t, work, "push", "-q", "origin", "main", "feature")
	forkMain := gitRun(t, work, "rev-parse", "main")
	id := forkWebhook(t, api, bare, fork, "feature")
	if j := waitFinal(t, api, []string{id})[id]; j.Status != service.StatusGreen || j.Request.Upstream != "file://"+bare {
		t.Fatalf("fork job: %s %q %+v", j.Status, j.Error, j.Request)
	}
	if br := healBranches(t, fork); len(br) != 1 || br[0] != service.BranchFor(id) {
		t.Errorf("the fork's heal branches: %v", br)
	}
	idn, _ := gitremote.Identity("file://" + bare)
	kept := filepath.Join(executor.RepoCacheDir(filepath.Join(data, "salve", "clones"), idn), "git")
	// The fork's main was never fetched; were it there, no branch may
	// hold it.
	if exec.Command("git", "--git-dir="+kept, "cat-file", "-e", forkMain).Run() == nil {
		if out := gitRun(t, "", "--git-dir="+kept, "branch", "--contains", forkMain); out != "" {
			t.Errorf("the fork's own main reached the kept clone's branches: %s", out)
		}
	}
	for _, line := range strings.Split(gitRun(t, "", "--git-dir="+kept, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/"), "\n") {
		name, sha, _ := strings.Cut(line, " ")
		if own := gitRun(t, bare, "rev-parse", name); own != sha {
			t.Errorf("the kept clone's %s is %s, the repository's is %s", name, sha, own)
		}
	}
	next := submit(t, api, job)
	if j := waitFinal(t, api, []string{next})[next]; j.Status != service.StatusGreen {
		t.Fatalf("the upstream's job after the fork's: %s %q", j.Status, j.Error)
	}
}

// forkWebhook sends a signed workflow_run failure of branch in fork,
// proposed to upstream, and returns the job it queued.
func forkWebhook(t *testing.T, api, upstream, fork, branch string) string {
	t.Helper()
	return githubWebhook(t, api, "fork-1", fmt.Sprintf(`{"action":"completed","workflow_run":{"id":7,"status":"completed","conclusion":"failure","head_branch":%q,
		"head_repository":{"full_name":"mallory/kept","clone_url":"file://%s"}},"repository":{"full_name":"acme/kept","clone_url":"file://%s"}}`,
		branch, fork, upstream))
}

// TestWorkerReusesItsWorktree runs salve serve with one in-process worker
// whose heals keep their worktree (SALVE_KEEP_WORKTREE_FILES=1: every
// repository counts as large). The first job's build leaves files in the
// worktree; the repository then gains a commit. The second job heals in
// the worktree the first one left (the same folder, reused, not made
// again), and its builds, which require it, find the new commit's file and
// none of the files the first job's build left.
func TestWorkerReusesItsWorktree(t *testing.T) {
	salve, agent := binaries(t)
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data) // the heal worktrees, and only this test's
	t.Setenv(heal.EnvKeepFiles, "1")
	p := start(t, salve, agent, "serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--nats-listen", "127.0.0.1:0",
		"--workers", "1", "--isolation", "none", "--log-level", "info")
	var m []string
	waitUntil(t, testContext(t), "salve serve to say where it listens", nil, func() bool {
		m = serveLine.FindStringSubmatch(p.stderr.String())
		return m != nil
	})
	api := m[1]
	bare := bareBroken(t, "reuse")
	job := func(cmd string) {
		t.Helper()
		id := submit(t, api, fmt.Sprintf(`{"repo": %q, "ref": "main", "cmd": %q}`, bare, cmd))
		if j := waitFinal(t, api, []string{id})[id]; j.Status != service.StatusGreen {
			t.Fatalf("job %s (%s): %s %q", id, cmd, j.Status, j.Error)
		}
	}
	worktree := func() os.FileInfo {
		t.Helper()
		wts, _ := filepath.Glob(filepath.Join(data, "salve", "worktrees", "*", "heal-*"))
		var dirs []string
		for _, w := range wts {
			if !strings.HasSuffix(w, ".lock") {
				dirs = append(dirs, w)
			}
		}
		if len(dirs) != 1 {
			t.Fatalf("kept heal worktrees %v, want one", dirs)
		}
		st, err := os.Stat(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(dirs[0], "planted")); err == nil {
			t.Errorf("the kept worktree holds what the build left: it was not cleaned")
		}
		return st
	}
	job("mkdir -p out && echo x > out/planted && echo x > planted && sh check.sh")
	before := worktree()

	work := filepath.Join(t.TempDir(), "w")
	gitRun(t, "", "clone", "-q", bare, work)
	if err := os.WriteFile(filepath.Join(work, "second.txt"), []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", "second.txt")
	gitRun(t, work, "commit", "-q", "-m", "second")
	gitRun(t, work, "push", "-q", "origin", "main")

	job("test -e second.txt && test ! -e planted && test ! -e out && sh check.sh")
	if after := worktree(); !os.SameFile(before, after) {
		t.Errorf("the second job's worktree is a new folder, want the first job's reused")
	}
	if n := strings.Count(p.stderr.String(), `msg="reusing the heal worktree"`); n != 1 {
		t.Errorf("the heals reused their worktree %d times, want once (the second job)", n)
	}
}
