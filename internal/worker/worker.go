// Package worker heals the jobs of salve's JetStream work queue: it pulls a
// job, fetches the repository into the clone it keeps of it (see
// clones.go), heals a clone of the job's own made from that one as
// salve heal does (through a Healer the command wires), pushes the job's
// heal branch and records the outcome on the job. It acknowledges a job only
// when it is done, and signals progress while it heals, so JetStream
// redelivers the job of a worker that died after the ack wait.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/salve-dev/salve/internal/heal/forge"
	"github.com/salve-dev/salve/internal/heal/publish"
	"github.com/salve-dev/salve/internal/service"
)

// Spec is one heal for the Healer: heal Dir on Branch, pushing it to
// origin. Dir is the job's own clone, with nothing checked out: it
// borrows the objects of the worker's kept clone of the repository, has
// the repository's branches as origin's (the upstream's, for a fork's
// change), and its origin pushes to the job's repository (the fork).
type Spec struct {
	Dir string
	// WorktreeDir, when set, is where the heal makes its worktree, new,
	// and removes it at the end (beside a Dir the worker removes after the
	// job). Empty means one of salve's persistent heal worktrees of Dir
	// (heal.Options.WorktreeRoot), which the heal keeps, clean, by its own
	// rule (heal.KeepAuto) for the next job of Dir's job folder.
	WorktreeDir string
	Branch      string
	RunID       string
	Cmd         string
	Fixers      string
	// Models are the job's llm targets (provider/model, in fallback
	// order); empty means the worker's own configuration.
	Models []string
	// Sha is the commit Dir is at when the job named one (the commit
	// whose CI failed); the heal branch starts from it.
	Sha string
	// PushEnv, when set, adds to the git agent's environment before each
	// action: the worker's GitHub App pushing as the job's installation
	// (Forges.PushEnv).
	PushEnv func(ctx context.Context, action string) ([]string, error)
	// RepoIdentity names the job's repository for its build-cache layer
	// (gitremote.Identity of the job's repository, or of its upstream for
	// a fork's change), so every job of a repository shares one layer.
	RepoIdentity string
	// Untrusted says the change is a fork's (or the job says so): its heal
	// reads the repository's layer and writes a throw-away one.
	Untrusted bool
	// Ref is the branch the job heals (the failing build's), and Target
	// the branch whose tip holds the rules the repository's .salve.yml
	// sets for it: the remote's default branch.
	Ref, Target string
	Logger      *slog.Logger
}

// Healer runs one heal exactly as salve heal does.
type Healer func(ctx context.Context, s Spec) (*results.Results, error)

// Worker pulls and heals jobs.
type Worker struct {
	Queue *service.Queue
	Heal  Healer
	// Name identifies the worker in the jobs' attempts.
	Name string
	// Concurrency is how many jobs the worker heals at once (default 1).
	Concurrency int
	// TempDir is where a job's clone and heal worktree go when the worker
	// keeps no clone of its repository (they go in the kept clone's job
	// folders otherwise); empty means the system temp dir.
	TempDir string
	// ClonesDir is where the worker keeps a bare clone of each repository
	// it heals, fetched into by every job of that repository; empty means
	// ClonesDir of the environment (salve's data folder). The clones are
	// trimmed to CacheBudget after every job, as the build cache is.
	ClonesDir string
	// Forges opens the pull or merge requests of jobs that ask for one;
	// nil means this worker cannot (the job then carries a warning).
	Forges *Forges
	// Getenv reads the worker's own credentials; nil means os.Getenv.
	Getenv func(string) string
	// AllowPrivateRemotes lets jobs clone from loopback, private and
	// link-local addresses, which are refused by default (so is
	// EnvAllowPrivateRemotes in the environment).
	AllowPrivateRemotes bool
	// Metrics, when set, records every finished heal (NewMetrics).
	Metrics *Metrics
	// CacheDir is salve's build cache the heals use; empty means
	// executor.DefaultCacheDir. After every job it is trimmed to
	// CacheBudget (zero: $SALVE_BUILD_CACHE_MAX or the default), and its
	// total recorded in Metrics.
	CacheDir    string
	CacheBudget int64
	Logger      *slog.Logger
	// clones is ClonesDir resolved by Run; empty: every job clones for
	// itself alone.
	clones string
}

// Run pulls jobs until ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	if w.Concurrency <= 0 {
		w.Concurrency = 1
	}
	if w.Logger == nil {
		w.Logger = slog.New(slog.DiscardHandler)
	}
	if w.Getenv == nil {
		w.Getenv = os.Getenv
	}
	if w.Name == "" {
		h, _ := os.Hostname()
		w.Name = fmt.Sprintf("%s/%d", h, os.Getpid())
	}
	w.clones = w.ClonesDir
	if w.clones == "" {
		var err error
		if w.clones, err = ClonesDir(w.Getenv); err != nil {
			w.Logger.Warn("no folder to keep clones in; every job clones its repository", "error", err)
		}
	}
	w.trimCache(ctx, w.Logger, "") // the metrics start with the cache's size
	var wg sync.WaitGroup
	for i := 0; i < w.Concurrency; i++ {
		wg.Go(func() { w.loop(ctx) })
	}
	wg.Wait()
	return nil
}

func (w *Worker) loop(ctx context.Context) {
	for ctx.Err() == nil {
		batch, err := w.Queue.Cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			w.Logger.Warn("fetch", "error", err)
			sleep(ctx, time.Second)
			continue
		}
		for m := range batch.Messages() {
			w.handle(ctx, m)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && ctx.Err() == nil {
			w.Logger.Debug("fetch", "error", err)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// failure is an error with what to do about it: a permanent one ends the
// job in error now; a transient one lets JetStream redeliver the job until
// its last delivery.
type failure struct {
	err       error
	permanent bool
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// errAlreadyDone says another delivery of the job finished it.
var errAlreadyDone = errors.New("the job is already done")

func permanent(err error) error { return &failure{err: err, permanent: true} }

// handle runs one delivery of a job. It never panics out: a panic in the
// heal ends the job in error.
func (w *Worker) handle(ctx context.Context, m jetstream.Msg) {
	meta, err := m.Metadata()
	if err != nil {
		w.Logger.Error("message without metadata", "error", err)
		_ = m.Term()
		return
	}
	var msg service.Message
	if err := json.Unmarshal(m.Data(), &msg); err != nil || msg.ID == "" {
		w.Logger.Error("malformed job message; dropped", "seq", meta.Sequence.Stream, "error", err)
		_ = m.TermWithReason("malformed job message")
		return
	}
	log := w.Logger.With("job", msg.ID, "delivery", meta.NumDelivered)
	job, _, err := w.Queue.Get(ctx, msg.ID)
	if err != nil {
		log.Error("job record missing; dropped", "error", err)
		_ = m.TermWithReason("no job record")
		return
	}
	if job.Status.Final() {
		// Finished by an earlier delivery whose ack was lost.
		_ = m.Ack()
		return
	}
	stop := w.heartbeat(ctx, m, msg, log)
	began := time.Now()
	res, resumed, commit, herr := w.attempt(ctx, m, meta.NumDelivered, msg, log)
	took := time.Since(began)
	identity, _ := cacheKey(msg.Request)
	w.trimCache(ctx, log, identity)
	var pr *forge.PullRequest
	var warnings []string
	if herr == nil && res != nil && (msg.Request.PR && res.Outcome == results.OutcomeGreen && commit != "" || msg.Request.CheckRun) {
		pr, warnings = w.publish(ctx, msg, res, log)
	}
	stop()
	if errors.Is(herr, errAlreadyDone) {
		_ = m.Ack()
		return
	}
	if ctx.Err() != nil {
		// Shutting down: leave the job to be redelivered, sooner than the
		// ack wait.
		_ = m.Nak()
		return
	}
	last := meta.NumDelivered >= uint64(w.Queue.MaxDeliver) && w.Queue.MaxDeliver > 0
	var f *failure
	final := herr == nil || (errors.As(herr, &f) && f.permanent) || last
	var status service.Status
	_, uerr := w.Queue.Update(context.WithoutCancel(ctx), msg.ID, func(j *service.Job) error {
		for i := range j.Attempts {
			a := &j.Attempts[i]
			if a.Delivery == meta.NumDelivered && a.Worker == w.Name && a.EndedAt == "" {
				a.EndedAt = time.Now().UTC().Format(time.RFC3339Nano)
				a.Resumed = resumed
				if herr != nil {
					a.Error = herr.Error()
				} else if res != nil {
					a.Outcome = string(res.Outcome)
				}
			}
		}
		if !final {
			j.Status = service.StatusQueued
			return nil
		}
		switch {
		case herr != nil:
			j.Status, j.Error = service.StatusError, herr.Error()
		case res.Outcome == results.OutcomeGreen:
			j.Status = service.StatusGreen
		case res.Outcome == results.OutcomeFlaky:
			j.Status = service.StatusFlaky
		default:
			j.Status = service.StatusRed
		}
		j.Results, j.BranchCommit = res, commit
		j.Warnings = append(j.Warnings, warnings...)
		if pr != nil {
			j.PullRequest = pr.URL
		}
		if herr == nil && commit == "" {
			j.Branch = "" // nothing was pushed: the build needed no fix, or none held
		}
		status = j.Status
		return nil
	})
	if uerr != nil {
		log.Error("could not record the outcome; the job will be redelivered", "error", uerr)
		_ = m.Nak()
		return
	}
	if !final {
		log.Warn("heal attempt failed; JetStream will redeliver", "error", herr)
		_ = m.NakWithDelay(backoff(meta.NumDelivered))
		return
	}
	w.Metrics.observe(status, took, res)
	if err := m.DoubleAck(context.WithoutCancel(ctx)); err != nil {
		log.Warn("ack", "error", err)
	}
	log.Info("job done", "error", herr, "resumed", resumed)
}

func backoff(n uint64) time.Duration {
	return min(time.Duration(n)*2*time.Second, 30*time.Second)
}

// publish does for a job what salve heal --pr --check-run does (package
// internal/heal/publish, with the same defaults): it opens the job's pull
// or merge request from its heal branch into its ref (or the remote's
// default branch), or updates the one already open (a redelivered job
// never opens a second), and reports the heal on the failing commit. What
// could not be done comes back as warnings.
func (w *Worker) publish(ctx context.Context, msg service.Message, res *results.Results, log *slog.Logger) (*forge.PullRequest, []string) {
	if w.Forges == nil {
		return nil, []string{fmt.Sprintf("nothing was published: %v: this worker has no forge token (GITHUB_TOKEN, GH_TOKEN or GITLAB_TOKEN in its environment)", ErrNoForge)}
	}
	f, err := w.Forges.For(msg.Request.Repo, msg.Request.Source, msg.Request.Installation)
	if err != nil {
		return nil, []string{"nothing was published: " + err.Error()}
	}
	o := publish.Options{Forge: f, Request: msg.Request.PR, CheckRun: msg.Request.CheckRun, CheckSHA: msg.Request.Sha,
		CheckRef: msg.Request.Ref, Logger: log}
	var warnings []string
	if o.Request {
		if o.Base = msg.Request.Ref; o.Base == "" {
			if o.Base, err = defaultBranch(ctx, msg.Request.Repo); err != nil {
				o.Request = false
				warnings = append(warnings, "the pull or merge request was not opened: "+err.Error())
			}
		}
	}
	out, err := publish.Publish(ctx, res, o)
	warnings = append(warnings, out.Warnings...)
	if err != nil {
		warnings = append(warnings, "the pull or merge request was not opened: "+err.Error())
	}
	return out.PR, warnings
}

// heartbeat tells JetStream the job is in progress every third of the ack
// wait, until the returned function is called.
func (w *Worker) heartbeat(ctx context.Context, m jetstream.Msg, msg service.Message, log *slog.Logger) func() {
	every := max(w.Queue.AckWait/3, 100*time.Millisecond)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := m.InProgress(); err != nil {
					log.Warn("in-progress ack", "error", err)
				}
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// attempt takes the repository's lock, marks the job running and heals it.
func (w *Worker) attempt(ctx context.Context, m jetstream.Msg, delivery uint64, msg service.Message, log *slog.Logger) (res *results.Results, resumed bool, commit string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = permanent(fmt.Errorf("worker: internal error while healing: %v", r))
		}
	}()
	release, err := w.lock(ctx, msg, delivery, log)
	if err != nil {
		return nil, false, "", err
	}
	defer release()
	_, err = w.Queue.Update(ctx, msg.ID, func(j *service.Job) error {
		if j.Status.Final() {
			// An earlier delivery, still alive while this one waited for
			// the lock, finished the job.
			return errAlreadyDone
		}
		j.Status = service.StatusRunning
		j.Attempts = append(j.Attempts, service.Attempt{Delivery: delivery, Worker: w.Name, StartedAt: time.Now().UTC().Format(time.RFC3339Nano)})
		return nil
	})
	if errors.Is(err, errAlreadyDone) {
		return nil, false, "", err
	}
	if err != nil {
		return nil, false, "", fmt.Errorf("worker: mark running: %w", err)
	}
	return w.heal(ctx, msg, log)
}

// lock takes the repository+ref lock of msg, waiting (while the heartbeat
// keeps the job ours) for another job on the same repository and ref. The
// lock is a key in a bucket whose entries expire after the ack wait; the
// holder refreshes it, so a dead holder's lock lapses on its own.
func (w *Worker) lock(ctx context.Context, msg service.Message, delivery uint64, log *slog.Logger) (func(), error) {
	key := service.LockKey(msg.Request.Repo, msg.Request.Ref)
	val := []byte(fmt.Sprintf("%s/%d/%s", msg.ID, delivery, w.Name))
	waited := false
	for {
		rev, err := w.Queue.Locks.Create(ctx, key, val)
		if err == nil {
			return w.holdLock(ctx, key, val, rev, log), nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("worker: lock %s: %w", key, err)
		}
		if !waited {
			log.Info("another job holds this repository and ref; waiting")
			waited = true
		}
		sleep(ctx, 500*time.Millisecond)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
}

func (w *Worker) holdLock(ctx context.Context, key string, val []byte, rev uint64, log *slog.Logger) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wg.Go(func() {
		t := time.NewTicker(max(w.Queue.AckWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				mu.Lock()
				r, err := w.Queue.Locks.Update(ctx, key, val, rev)
				if err == nil {
					rev = r
				} else {
					log.Warn("could not refresh the repository lock", "error", err)
				}
				mu.Unlock()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		_ = w.Queue.Locks.Delete(context.WithoutCancel(ctx), key, jetstream.LastRevision(rev))
	}
}
