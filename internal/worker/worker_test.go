package worker

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/nats-io/nats.go"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/service"
)

// ackWait is the queue's ack wait in these tests. It is also the lease of
// a heartbeat and of a repository lock, so it is long enough that a busy
// machine delaying a refresh never lets a job be redelivered or a lock
// lapse: no test here waits for it to pass.
const ackWait = 30 * time.Second

// failAfter caps every wait on an event: it is reached only when the
// event never comes.
const failAfter = 2 * time.Minute

func newQueue(t *testing.T, ackWait time.Duration, maxDeliver int) *service.Queue {
	t.Helper()
	ns, err := service.StartEmbedded(service.EmbeddedOptions{Listen: "127.0.0.1:0", DataDir: t.TempDir(), Name: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	q, err := service.SetupQueue(context.Background(), nc, service.QueueConfig{AckWait: ackWait, MaxDeliver: maxDeliver})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// bareRepo makes a bare repository with one commit on main.
func bareRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "w"), filepath.Join(dir, "r.git")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", work},
		{"-C", work, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "init"},
		{"clone", "-q", "--bare", work, bare},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return bare
}

func runWorker(t *testing.T, w *Worker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = w.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// waitFinal polls the job until it reaches a final status; failAfter is
// only the failure cap.
func waitFinal(t *testing.T, q *service.Queue, id string) *service.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		j, _, err := q.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status.Final() {
			return j
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s did not finish: %s", id, j.Status)
		case <-tick.C:
		}
	}
}

func TestTransientFailureEndsInErrorAtMaxDeliver(t *testing.T) {
	q := newQueue(t, ackWait, 2)
	var calls atomic.Int32
	runWorker(t, &Worker{Queue: q, Name: "w", Heal: func(context.Context, Spec) (*results.Results, error) {
		calls.Add(1)
		return nil, errors.New("the build machine is out of disk")
	}})
	j, err := q.Submit(context.Background(), service.Request{Repo: bareRepo(t), Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	got := waitFinal(t, q, j.ID)
	if got.Status != service.StatusError || !strings.Contains(got.Error, "out of disk") || len(got.Attempts) != 2 || calls.Load() != 2 {
		t.Fatalf("status %s %q, %d attempts, %d heals; want error after 2", got.Status, got.Error, len(got.Attempts), calls.Load())
	}
}

func TestBadInputEndsInErrorAtOnce(t *testing.T) {
	q := newQueue(t, ackWait, 5)
	runWorker(t, &Worker{Queue: q, Name: "w", Heal: func(context.Context, Spec) (*results.Results, error) {
		return nil, heal.ErrBadInput
	}})
	j, _ := q.Submit(context.Background(), service.Request{Repo: bareRepo(t), Ref: "main"})
	if got := waitFinal(t, q, j.ID); got.Status != service.StatusError || len(got.Attempts) != 1 {
		t.Fatalf("status %s, %d attempts; want error after 1", got.Status, len(got.Attempts))
	}
}

func TestPanicInHealIsAnErrorNotACrash(t *testing.T) {
	q := newQueue(t, ackWait, 5)
	runWorker(t, &Worker{Queue: q, Name: "w", Heal: func(context.Context, Spec) (*results.Results, error) { panic("boom") }})
	j, _ := q.Submit(context.Background(), service.Request{Repo: bareRepo(t), Ref: "main"})
	if got := waitFinal(t, q, j.ID); got.Status != service.StatusError || !strings.Contains(got.Error, "boom") {
		t.Fatalf("status %s %q", got.Status, got.Error)
	}
}

// TestSameRepoAndRefNeverRunAtOnce: two workers, several jobs on one
// repository and ref, and jobs on another ref: the same repository+ref
// never heals twice at once.
func TestSameRepoAndRefNeverRunAtOnce(t *testing.T) {
	q := newQueue(t, ackWait, 5)
	bare := bareRepo(t)
	calls := map[string]int{"main": 3, "dev": 2}
	other := map[string]string{"main": "dev", "dev": "main"}
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	running := map[string]int{}
	ended := map[string]int{}
	most := map[string]int{}
	gaveUp := false
	giveUp := time.AfterFunc(failAfter, func() { mu.Lock(); gaveUp = true; cond.Broadcast(); mu.Unlock() })
	defer giveUp.Stop()
	healer := func(_ context.Context, s Spec) (*results.Results, error) {
		out, _ := exec.Command("git", "-C", s.Dir, "rev-parse", "--abbrev-ref", "HEAD").Output()
		ref := strings.TrimSpace(string(out))
		mu.Lock()
		defer mu.Unlock()
		running[ref]++
		most[ref] = max(most[ref], running[ref])
		cond.Broadcast()
		// Hold the heal while a heal of the same ref could try to start
		// beside it: until one of the other ref runs too, or every heal of
		// the other ref is over.
		for running[other[ref]] == 0 && ended[other[ref]] < calls[other[ref]] && !gaveUp {
			cond.Wait()
		}
		running[ref]--
		ended[ref]++
		cond.Broadcast()
		return &results.Results{Outcome: results.OutcomeGreen}, nil
	}
	if out, err := exec.Command("git", "-C", bare, "branch", "dev", "main").CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	runWorker(t, &Worker{Queue: q, Name: "a", Concurrency: 2, Heal: healer})
	runWorker(t, &Worker{Queue: q, Name: "b", Concurrency: 2, Heal: healer})
	var ids []string
	for _, ref := range []string{"main", "main", "main", "dev", "dev"} {
		j, err := q.Submit(context.Background(), service.Request{Repo: bare, Ref: ref})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	for _, id := range ids {
		if j := waitFinal(t, q, id); j.Status != service.StatusGreen {
			t.Fatalf("job %s: %s %s", id, j.Status, j.Error)
		}
	}
	if most["main"] != 1 || most["dev"] != 1 {
		t.Fatalf("most concurrent heals per ref: %v, want 1 each", most)
	}
}
