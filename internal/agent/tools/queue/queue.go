// Package queue bounds how many tool executions run at once
// (docs/contracts/ai-agent.md §1 "MCP Tool Queues";
// docs/contracts/ai-agent-cli.md §9.7). A [Set] holds the configured named
// queues, each with a `concurrent` bound, plus the "default" queue that is
// added when the configuration lacks one. Callers wait in FIFO order for a
// slot, give up when their context is done, and get back a [Slot] that
// reports the wait time and the queue depth they met, for accounting and
// logs.
//
// Calls made inside `agent__batch` bypass the queues
// (docs/contracts/ai-agent-cli.md §11): the engine uses [Bypass] for them
// instead of [Set.Acquire].
package queue

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/salve-dev/salve/contract"
)

// DefaultName is the queue a tool is bound to when its config names none.
const DefaultName = "default"

// MaxDefaultConcurrency caps the default queue's bound.
const MaxDefaultConcurrency = 64

// DefaultConcurrency is the bound of the "default" queue when the config
// does not define it: min(64, max(1, 2 × CPU count)).
func DefaultConcurrency() int {
	return min(MaxDefaultConcurrency, max(1, 2*runtime.NumCPU()))
}

// ErrConfig is wrapped by every configuration error of this package (an
// invalid bound, a binding to a missing queue). The CLI maps it to exit 4.
var ErrConfig = errors.New("queue configuration error")

// BindingError reports a tool source bound to a queue that is not defined.
type BindingError struct {
	// Owner names the binding, such as "mcpServers.fs" or "restTools.weather".
	Owner string
	// Queue is the undefined queue name.
	Queue string
}

// Error implements error.
func (e *BindingError) Error() string {
	return fmt.Sprintf("%s: queue %q is not defined in queues", e.Owner, e.Queue)
}

// Unwrap makes errors.Is(err, ErrConfig) true.
func (e *BindingError) Unwrap() error { return ErrConfig }

// Binding is one tool source's queue binding, checked by [Set.Validate].
type Binding struct {
	// Owner names the binding for the error message ("mcpServers.fs").
	Owner string
	// Queue is the bound queue; empty means [DefaultName].
	Queue string
}

// Set is the collection of named queues of one process. Its methods are safe
// for concurrent use; sessions may share one Set so that a bound holds across
// them.
type Set struct {
	queues map[string]*Queue
	logger *slog.Logger
}

// New builds the queues of cfg (name → concurrent) and adds [DefaultName]
// with [DefaultConcurrency] when it is missing. A bound below 1 or an empty
// name is an error wrapping [ErrConfig]. A nil logger discards logs.
func New(cfg map[string]int, logger *slog.Logger) (*Set, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Set{queues: make(map[string]*Queue, len(cfg)+1), logger: logger}
	for name, n := range cfg {
		if name == "" {
			return nil, fmt.Errorf("queues: empty queue name: %w", ErrConfig)
		}
		if n < 1 {
			return nil, fmt.Errorf("queues.%s.concurrent: %d is not a positive integer: %w", name, n, ErrConfig)
		}
		s.queues[name] = newQueue(name, n)
	}
	if _, ok := s.queues[DefaultName]; !ok {
		s.queues[DefaultName] = newQueue(DefaultName, DefaultConcurrency())
	}
	return s, nil
}

// Validate checks that every binding names a defined queue (an empty name
// means [DefaultName]). It returns the first failure, by owner order, as a
// *[BindingError].
func (s *Set) Validate(bindings []Binding) error {
	sorted := append([]Binding(nil), bindings...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Owner < sorted[j].Owner })
	for _, b := range sorted {
		if _, ok := s.queues[nameOrDefault(b.Queue)]; !ok {
			return &BindingError{Owner: b.Owner, Queue: b.Queue}
		}
	}
	return nil
}

// Names lists the queue names, sorted.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.queues))
	for n := range s.queues {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Get returns the named queue (an empty name means [DefaultName]).
func (s *Set) Get(name string) (*Queue, bool) {
	q, ok := s.queues[nameOrDefault(name)]
	return q, ok
}

// Acquire waits for a slot of the named queue (an empty name means
// [DefaultName]) and returns it; the caller must [Slot.Release] it. It
// returns an error wrapping [ErrConfig] for an unknown queue, and ctx's error
// when ctx ends first. A wait is logged at debug level with the queue, the
// depth met and the time waited.
func (s *Set) Acquire(ctx context.Context, name string) (*Slot, error) {
	q, ok := s.Get(name)
	if !ok {
		return nil, fmt.Errorf("acquire queue %q: not defined: %w", name, ErrConfig)
	}
	slot, err := q.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if slot.Depth > 0 || slot.Wait > 0 {
		s.logger.LogAttrs(ctx, slog.LevelDebug, "tool queued", slot.LogAttrs()...)
	}
	return slot, nil
}

// Bypass returns a slot that belongs to no queue, for the calls of
// `agent__batch`. Its Release does nothing and it leaves accounting alone.
func Bypass() *Slot { return &Slot{} }

// Stats is a snapshot of one queue.
type Stats struct {
	Name string
	// Limit is the queue's `concurrent` bound.
	Limit int
	// Active is the number of slots held now; Waiting the callers in line.
	Active, Waiting int
	// MaxActive is the highest Active seen since the queue was made.
	MaxActive int
	// Acquired counts the slots handed out; Cancelled the waits abandoned.
	Acquired, Cancelled int64
	// TotalWait sums the time callers spent waiting.
	TotalWait time.Duration
}

// Queue is one bounded, FIFO-fair queue. Its zero value is not usable; get
// queues from a [Set].
type Queue struct {
	name  string
	limit int

	mu      sync.Mutex
	active  int
	waiters list.List // of *waiter, in arrival order
	stats   Stats
}

type waiter struct {
	ready chan struct{} // closed when the slot is handed over
}

func newQueue(name string, limit int) *Queue {
	return &Queue{name: name, limit: limit, stats: Stats{Name: name, Limit: limit}}
}

// Name is the queue's name.
func (q *Queue) Name() string { return q.name }

// Limit is the queue's `concurrent` bound.
func (q *Queue) Limit() int { return q.limit }

// Acquire waits, behind every earlier caller, until fewer than Limit slots
// are held, then holds one. When ctx ends first it returns ctx's error
// (wrapped) and holds nothing.
func (q *Queue) Acquire(ctx context.Context) (*Slot, error) {
	start := time.Now()
	q.mu.Lock()
	depth := q.waiters.Len()
	if q.active < q.limit && depth == 0 {
		q.grantLocked(0)
		q.mu.Unlock()
		return &Slot{Queue: q.name, q: q}, nil
	}
	w := &waiter{ready: make(chan struct{})}
	elem := q.waiters.PushBack(w)
	q.mu.Unlock()

	select {
	case <-w.ready:
		wait := time.Since(start)
		q.mu.Lock()
		q.stats.TotalWait += wait
		q.mu.Unlock()
		return &Slot{Queue: q.name, Wait: wait, Depth: depth, q: q}, nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	select {
	case <-w.ready:
		// The slot was handed over while ctx ended: pass it on.
		q.active--
		q.wakeLocked()
	default:
		q.waiters.Remove(elem)
	}
	q.stats.Cancelled++
	q.mu.Unlock()
	return nil, fmt.Errorf("queue %q: wait for a slot: %w", q.name, context.Cause(ctx))
}

// grantLocked counts one more held slot.
func (q *Queue) grantLocked(wait time.Duration) {
	q.active++
	q.stats.Acquired++
	q.stats.TotalWait += wait
	q.stats.MaxActive = max(q.stats.MaxActive, q.active)
}

// wakeLocked hands free slots to the first waiters in line.
func (q *Queue) wakeLocked() {
	for q.active < q.limit && q.waiters.Len() > 0 {
		w := q.waiters.Remove(q.waiters.Front()).(*waiter)
		q.grantLocked(0)
		close(w.ready)
	}
}

func (q *Queue) release() {
	q.mu.Lock()
	q.active--
	q.wakeLocked()
	q.mu.Unlock()
}

// Stats returns a snapshot of the queue's counters.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.stats
	s.Active, s.Waiting = q.active, q.waiters.Len()
	return s
}

// Slot is a held place in a queue, or the no-queue slot of [Bypass].
type Slot struct {
	// Queue is the queue's name; empty for [Bypass].
	Queue string
	// Wait is how long the caller waited for the slot.
	Wait time.Duration
	// Depth is the number of callers already waiting when this one arrived.
	Depth int

	q    *Queue
	once sync.Once
}

// Release gives the slot back. It is safe to call more than once and on a
// nil or bypass slot.
func (s *Slot) Release() {
	if s == nil || s.q == nil {
		return
	}
	s.once.Do(s.q.release)
}

// LogAttrs are the slot's log fields: queue, queue_wait_ms, queue_depth.
func (s *Slot) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("queue", s.Queue),
		slog.Int64("queue_wait_ms", s.Wait.Milliseconds()),
		slog.Int("queue_depth", s.Depth),
	}
}

// Account records the slot on a tool accounting entry
// (docs/contracts/ai-agent-cli.md §8.4: queue, queueWaitMs, and queueDepth).
// A bypass slot leaves the entry unchanged.
func (s *Slot) Account(e *contract.AccountingEntry) {
	if s == nil || s.Queue == "" {
		return
	}
	wait := s.Wait.Milliseconds()
	depth := s.Depth
	e.Queue, e.QueueWaitMs, e.QueueDepth = s.Queue, &wait, &depth
}

func nameOrDefault(name string) string {
	if name == "" {
		return DefaultName
	}
	return name
}

// Queuer adapts a [Set] to the session engine's plug (agent.Queuer):
// Acquire returns the release function, the time waited and the depth met.
// The engine does not call it for internal tools or for calls inside
// agent__batch. Share one Queuer among all the sessions of a process so that
// the bounds hold across them.
type Queuer struct {
	Set *Set
}

// Load reports the named queue's slots held, callers waiting and bound,
// now (agent.QueueLoader); zeros for an unknown queue.
func (q Queuer) Load(name string) (inUse, waiting, capacity int) {
	qu, ok := q.Set.Get(name)
	if !ok {
		return 0, 0, 0
	}
	st := qu.Stats()
	return st.Active, st.Waiting, st.Limit
}

// Acquire waits for a slot of the named queue; see [Set.Acquire].
func (q Queuer) Acquire(ctx context.Context, name string) (release func(), waited time.Duration, depth int, err error) {
	slot, err := q.Set.Acquire(ctx, name)
	if err != nil {
		return nil, 0, 0, err
	}
	return slot.Release, slot.Wait, slot.Depth, nil
}
