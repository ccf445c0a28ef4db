package worker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/service"
)

// upstream makes a bare repository whose main holds one commit per name
// in commits (each adds a file of that name), and returns it with a work
// tree that pushes to it.
func upstream(t *testing.T, commits ...string) (bare, work string) {
	t.Helper()
	dir := t.TempDir()
	work, bare = filepath.Join(dir, "w"), filepath.Join(dir, "r.git")
	gitOut(t, dir, "init", "-q", "-b", "main", work)
	for _, c := range commits {
		commitFile(t, work, c)
	}
	gitOut(t, dir, "clone", "-q", "--bare", work, bare)
	gitOut(t, work, "remote", "add", "origin", bare)
	return bare, work
}

// commitFile commits a file named name in work.
func commitFile(t *testing.T, work, name string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(work, name), []byte(name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, work, "add", "--", name)
	gitOut(t, work, "commit", "-q", "-m", name)
	return gitOut(t, work, "rev-parse", "HEAD")
}

// seen is what a stub heal saw of its job's clone.
type seen struct {
	spec                Spec
	head, branch, ref   string
	originMain, pushURL string
	refs                string
}

// recordingWorker runs a worker whose heals record what they see and end
// green, with its kept clones under clones and its metrics in reg.
func recordingWorker(t *testing.T, q *service.Queue, clones string, reg *prometheus.Registry) chan seen {
	t.Helper()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan seen, 10)
	runWorker(t, &Worker{Queue: q, Name: "w", TempDir: t.TempDir(), ClonesDir: clones, Metrics: m,
		Heal: func(_ context.Context, s Spec) (*results.Results, error) {
			push, _ := gitTry(s.Dir, "config", "--get", "remote.origin.pushurl")
			main, _ := gitTry(s.Dir, "rev-parse", "--verify", "--quiet", "refs/remotes/origin/main")
			got <- seen{spec: s, head: gitOut(t, s.Dir, "rev-parse", "HEAD"), branch: gitOut(t, s.Dir, "rev-parse", "--abbrev-ref", "HEAD"),
				ref: gitOut(t, s.Dir, "config", "--get", "remote.origin.url"), originMain: main, pushURL: push,
				refs: gitOut(t, s.Dir, "for-each-ref", "--format=%(refname)")}
			return &results.Results{Outcome: results.OutcomeGreen}, nil
		}})
	return got
}

// gitTry runs git in dir and returns its trimmed output and error.
func gitTry(dir string, args ...string) (string, error) {
	out, err := gitCmd(dir, args...).Output()
	return strings.TrimSpace(string(out)), err
}

// submitAndWait queues req and waits for its job to end green.
func submitAndWait(t *testing.T, q *service.Queue, req service.Request) {
	t.Helper()
	j, err := q.Submit(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if done := waitFinal(t, q, j.ID); done.Status != service.StatusGreen {
		t.Fatalf("job %s: %s %q", j.ID, done.Status, done.Error)
	}
}

// keptBare is the kept clone of repo under clones.
func keptBare(t *testing.T, clones, repo string) string {
	t.Helper()
	id, ok := gitremote.Identity(repo)
	if !ok {
		t.Fatalf("no identity for %s", repo)
	}
	return filepath.Join(executor.RepoCacheDir(clones, id), keptGit)
}

// TestSecondJobFetches: the first job of a repository makes its kept
// clone, the second fetches into it (a commit pushed in between reaches
// the heal) and makes no other; each heal gets a clone of its own, on the
// job's branch, whose origin is the repository, in the same job folder.
func TestSecondJobFetches(t *testing.T) {
	bare, work := upstream(t, "a")
	q := newQueue(t, ackWait, 2)
	clones, reg := t.TempDir(), prometheus.NewRegistry()
	got := recordingWorker(t, q, clones, reg)

	submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
	first := <-got
	tip := commitFile(t, work, "b")
	gitOut(t, work, "push", "-q", "origin", "main")
	submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
	second := <-got

	if second.head != tip || second.branch != "main" || second.ref != bare || second.pushURL != "" {
		t.Errorf("second heal at %s on %s, origin %s, push %q; want %s on main, origin %s", second.head, second.branch, second.ref, second.pushURL, tip, bare)
	}
	// One job at a time: both heal in the kept clone's first job folder,
	// at the same path, where the job's clone stays for the next job (see
	// TestKeptCloneHoldsNothingOfTheLastJob); the heal keeps its worktree
	// of it by its own rule (no WorktreeDir).
	if first.spec.Dir != second.spec.Dir || filepath.Dir(filepath.Dir(first.spec.Dir)) != filepath.Join(filepath.Dir(keptBare(t, clones, bare)), jobsDir) {
		t.Errorf("the heals got the clones %s and %s, want one job folder of the kept clone", first.spec.Dir, second.spec.Dir)
	}
	if first.spec.WorktreeDir != "" || second.spec.WorktreeDir != "" {
		t.Errorf("the heals were given the worktrees %q and %q, want the heal's own of the kept job clone", first.spec.WorktreeDir, second.spec.WorktreeDir)
	}
	if head, err := gitTry(first.spec.Dir, "rev-parse", "HEAD"); err != nil || head != tip {
		t.Errorf("the job's clone after the job: %s %v, want it kept at %s", head, err, tip)
	}
	for how, want := range map[string]float64{HowClone: 1, HowFetch: 1, HowPrivate: -1} {
		if v := metricValue(t, reg, `salve_worker_checkouts_total{how="`+how+`"}`); v != want {
			t.Errorf("checkouts %s = %v, want %v", how, v, want)
		}
	}
	repos, _ := filepath.Glob(filepath.Join(clones, "repos", "*"))
	if len(repos) != 1 {
		t.Errorf("kept clones %v, want one", repos)
	}
	if v := metricValue(t, reg, "salve_worker_clones_bytes"); v <= 0 {
		t.Errorf("salve_worker_clones_bytes = %v, want the kept clone's size", v)
	}
	if out := gitOut(t, "", "--git-dir="+keptBare(t, clones, bare), "fsck", "--no-progress"); out != "" {
		t.Errorf("git fsck of the kept clone: %s", out)
	}
}

// TestForkRefsStayApart: a fork's job fetches the fork's branch into the
// kept clone of its upstream, in a namespace of its own. Its heal sees
// the upstream's main as origin's (the rules' source), pushes to the fork,
// and is told the upstream's default branch. The fork's main, which holds
// a commit of its own, reaches no branch of the kept clone, and a later
// job of the upstream sees only the upstream's branches.
func TestForkRefsStayApart(t *testing.T) {
	base, _ := upstream(t, "a")
	baseMain := gitOut(t, base, "rev-parse", "main")
	fork, fwork := upstream(t, "a")
	forkMain := commitFile(t, fwork, ".salve.yml")
	gitOut(t, fwork, "push", "-q", "origin", "main")
	gitOut(t, fwork, "checkout", "-q", "-b", "feature")
	feature := commitFile(t, fwork, "change")
	gitOut(t, fwork, "push", "-q", "origin", "feature")

	q := newQueue(t, ackWait, 2)
	clones := t.TempDir()
	got := recordingWorker(t, q, clones, prometheus.NewRegistry())
	submitAndWait(t, q, service.Request{Repo: fork, Upstream: base, Ref: "feature"})
	f := <-got
	if f.head != feature || f.branch != "feature" || f.originMain != baseMain || f.ref != base || f.pushURL != fork || f.spec.Target != "main" || !f.spec.Untrusted {
		t.Errorf("the fork's heal saw %+v; want HEAD %s on feature, origin/main %s, origin %s pushing to %s, target main, untrusted", f, feature, baseMain, base, fork)
	}
	kept := keptBare(t, clones, base)
	for _, line := range strings.Split(gitOut(t, "", "--git-dir="+kept, "for-each-ref", "--format=%(refname) %(objectname)"), "\n") {
		name, sha, _ := strings.Cut(line, " ")
		switch {
		case strings.HasPrefix(name, untrustedRefs):
			if !strings.HasSuffix(name, "/heads/feature") || sha != feature {
				t.Errorf("fork ref %s at %s", name, sha)
			}
		case name != "refs/heads/main" || sha != baseMain:
			t.Errorf("the kept clone has %s at %s; want only the upstream's main at %s besides the fork's namespace", name, sha, baseMain)
		}
	}
	if out := gitOut(t, "", "--git-dir="+kept, "for-each-ref", "--contains", forkMain, "refs/heads/"); out != "" {
		t.Errorf("the fork's own commit is on a branch of the kept clone: %s", out)
	}

	submitAndWait(t, q, service.Request{Repo: base, Ref: "main"})
	b := <-got
	if b.head != baseMain || b.originMain != baseMain || b.pushURL != "" {
		t.Errorf("the upstream's next heal saw %+v", b)
	}
	if strings.Contains(b.refs, "feature") || strings.Contains(b.refs, "salve/untrusted") {
		t.Errorf("the upstream's job's clone has the fork's refs:\n%s", b.refs)
	}
}

// TestBrokenKeptCloneIsClonedAgain: a kept clone git cannot read is made
// again by the next job, when no other job uses it; when one does, the
// job clones for itself alone and leaves it be. Every heal still gets its
// commit.
func TestBrokenKeptCloneIsClonedAgain(t *testing.T) {
	bare, _ := upstream(t, "a")
	tip := gitOut(t, bare, "rev-parse", "main")
	q := newQueue(t, ackWait, 2)
	clones, reg := t.TempDir(), prometheus.NewRegistry()
	got := recordingWorker(t, q, clones, reg)
	submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
	<-got
	kept := keptBare(t, clones, bare)
	breakIt := func() {
		if err := os.WriteFile(filepath.Join(kept, "HEAD"), []byte("garbage\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// In use by another job: its lock held shared, as a job holds it.
	breakIt()
	lock, err := os.OpenFile(filepath.Join(filepath.Dir(kept), executor.LockFile), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
	if s := <-got; s.head != tip {
		t.Errorf("the heal beside a busy broken clone is at %s, want %s", s.head, tip)
	}
	if b, _ := os.ReadFile(filepath.Join(kept, "HEAD")); string(b) != "garbage\n" {
		t.Errorf("the kept clone was touched while in use: HEAD %q", b)
	}
	_ = lock.Close()
	submitAndWait(t, q, service.Request{Repo: bare, Ref: "main"})
	if s := <-got; s.head != tip {
		t.Errorf("the heal after the clone was made again is at %s, want %s", s.head, tip)
	}
	if out := gitOut(t, "", "--git-dir="+kept, "rev-parse", "main"); out != tip {
		t.Errorf("the kept clone's main is %s, want %s", out, tip)
	}
	for how, want := range map[string]float64{HowClone: 2, HowPrivate: 1, HowFetch: -1} {
		if v := metricValue(t, reg, `salve_worker_checkouts_total{how="`+how+`"}`); v != want {
			t.Errorf("checkouts %s = %v, want %v", how, v, want)
		}
	}
}

// TestConcurrentCheckouts makes the clones of many jobs of one repository
// at once, on different branches: each gets its branch's commit in a job
// folder of its own, and the kept clone is sound afterwards.
func TestConcurrentCheckouts(t *testing.T) {
	bare, work := upstream(t, "a")
	want := map[string]string{}
	for i := range 6 {
		b := fmt.Sprintf("b%d", i)
		gitOut(t, work, "checkout", "-q", "-b", b, "main")
		want[b] = commitFile(t, work, b)
		gitOut(t, work, "push", "-q", "origin", b)
	}
	w := &Worker{clones: t.TempDir()}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, len(want))
	var mu sync.Mutex
	held := map[string]bool{}
	for b, sha := range want {
		wg.Go(func() {
			tmp := t.TempDir()
			co, err := w.checkout(ctx, tmp, source{Base: bare, Ref: b, Local: b, Target: "main"}, slog.New(slog.DiscardHandler))
			if err != nil {
				errs <- fmt.Errorf("%s: %w", b, err)
				return
			}
			mu.Lock()
			if held[co.Dir] {
				errs <- fmt.Errorf("%s: the job folder %s is another running job's too", b, co.Dir)
			}
			held[co.Dir] = true
			mu.Unlock()
			defer func() {
				mu.Lock()
				held[co.Dir] = false
				mu.Unlock()
				co.release()
			}()
			if head, err := gitTry(co.Dir, "rev-parse", "HEAD"); err != nil || head != sha || co.How == HowPrivate {
				errs <- fmt.Errorf("%s: HEAD %s (%v) by %s, want %s from the kept clone", b, head, err, co.How, sha)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	kept := keptBare(t, w.clones, bare)
	if out := gitOut(t, "", "--git-dir="+kept, "fsck", "--no-progress"); out != "" {
		t.Errorf("git fsck of the kept clone: %s", out)
	}
	if n := len(strings.Split(gitOut(t, "", "--git-dir="+kept, "for-each-ref", "refs/heads/"), "\n")); n != len(want)+1 {
		t.Errorf("the kept clone has %d branches, want %d", n, len(want)+1)
	}
}

// TestFillFetchesOnlyWhatMoved: a kept clone already holding the job's
// branches at the commits the remote named is not fetched into (the
// remote is not even reached: here it is gone); a branch that moved is.
func TestFillFetchesOnlyWhatMoved(t *testing.T) {
	bare, work := upstream(t, "a")
	tip := gitOut(t, bare, "rev-parse", "main")
	kept := filepath.Join(t.TempDir(), keptGit)
	ctx := context.Background()
	src := source{Base: bare, Ref: "main", Target: "main", Local: "main"}
	if tp, err := fill(ctx, kept, src); err != nil || tp.sha != tip {
		t.Fatalf("first fill: %+v %v, want %s", tp, err, tip)
	}
	gone := src
	gone.Base = filepath.Join(t.TempDir(), "gone.git")
	gone.Tips = map[string]string{"refs/heads/main": tip}
	tp, err := fill(ctx, kept, gone)
	if err != nil || tp.sha != tip || tp.head != "main" || len(tp.branches) != 1 || tp.branches[0] != (ref{name: "refs/heads/main", sha: tip}) {
		t.Fatalf("fill with nothing moved: %+v %v, want %s without a fetch", tp, err, tip)
	}
	moved := commitFile(t, work, "b")
	gitOut(t, work, "push", "-q", "origin", "main")
	gone.Tips["refs/heads/main"] = moved
	if _, err := fill(ctx, kept, gone); err == nil {
		t.Fatal("fill of a branch that moved did not fetch it")
	}
	src.Tips = map[string]string{"refs/heads/main": moved}
	if tp, err := fill(ctx, kept, src); err != nil || tp.sha != moved {
		t.Fatalf("fill of a branch that moved: %+v %v, want %s", tp, err, moved)
	}
}
