package executor

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// BackendTTL is how long [Backends] keeps a chosen backend: a sandbox
// that stopped working (an engine stopped, namespaces turned off) is
// probed again within it.
const BackendTTL = 10 * time.Minute

// Backends remembers the backend chosen for each isolation and image
// across the Executors of one process that share it (a worker's jobs):
// each Executor probes once, and without a shared Backends every heal
// would probe again (an engine that does not answer, a bwrap probe and an
// overlay probe: 20 to 50 ms). A choice is kept for [BackendTTL]. The
// zero value is not ready; use [NewBackends]. Safe for concurrent use.
type Backends struct {
	mu sync.Mutex
	m  map[string]chosen
}

type chosen struct {
	b  sandbox.Backend
	at time.Time
}

// NewBackends returns an empty Backends.
func NewBackends() *Backends { return &Backends{m: map[string]chosen{}} }

func (s *Backends) get(key string, now time.Time) (sandbox.Backend, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[key]
	if !ok || now.Sub(c.at) >= BackendTTL || now.Before(c.at) {
		return nil, false
	}
	return c.b, true
}

func (s *Backends) put(key string, b sandbox.Backend, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = chosen{b, now}
}

// backend returns the backend for the options' isolation and image, probing
// it the first time only (in this Executor, or in Options.Backends). Runs
// that ask while a probe is under way (a [Executor.Warm] and the first
// build) wait for it rather than probe again.
func (e *Executor) backend(ctx context.Context, image string) (sandbox.Backend, error) {
	key := e.opts.Isolation + "\x00" + image
	for {
		e.mu.Lock()
		f, ok := e.backends[key]
		if !ok {
			f = &backendFlight{done: make(chan struct{})}
			e.backends[key] = f
		}
		e.mu.Unlock()
		if !ok {
			return e.fly(ctx, f, key, image)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		switch {
		case f.err == nil:
			return f.b, nil
		case ctx.Err() == nil && (errors.Is(f.err, context.Canceled) || errors.Is(f.err, context.DeadlineExceeded)):
			continue // the caller that probed gave up; this one has not
		}
		return nil, f.err
	}
}

// fly makes the choice f stands for, and keeps it unless it failed.
func (e *Executor) fly(ctx context.Context, f *backendFlight, key, image string) (sandbox.Backend, error) {
	f.b, f.err = e.choose(ctx, key, image)
	if f.err != nil {
		// A failed choice is not kept: the next Run probes again.
		e.mu.Lock()
		delete(e.backends, key)
		e.mu.Unlock()
	}
	close(f.done)
	return f.b, f.err
}

// choose returns the backend Options.Backends holds for key, else the one
// [sandbox.SelectBackend] picks, which it then shares.
func (e *Executor) choose(ctx context.Context, key, image string) (sandbox.Backend, error) {
	shared := e.opts.Backends
	if shared != nil {
		if b, ok := shared.get(key, e.now()); ok {
			return b, nil
		}
	}
	b, err := sandbox.SelectBackend(ctx, e.opts.Isolation, image)
	if err != nil {
		return nil, err
	}
	if shared != nil {
		shared.put(key, b, e.now())
	}
	return b, nil
}

// backendFlight is one choice of a backend: done closes when b or err is
// set.
type backendFlight struct {
	done chan struct{}
	b    sandbox.Backend
	err  error
}

// Warm chooses, before the first Run, the backend the builds of the
// project at dir will use: it probes the sandboxes (an engine that does
// not answer, bwrap, an overlay) while the caller does other work, such
// as making the worktree the builds will run in. in is the input those
// builds will get (its workspace is not read; dir is detected instead).
// It returns when the choice is made; a Run that starts before then waits
// for it. A failure is not kept: the first Run probes again and reports
// it.
func (e *Executor) Warm(ctx context.Context, dir string, in contract.ExecutorInput) {
	plan, err := e.plan(dir, in)
	if err != nil {
		return
	}
	_, _ = e.backend(ctx, e.imageFor(plan.ProjectType))
}
