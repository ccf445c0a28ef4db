package agent

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/llm"
)

// numbersObserver keeps the events behind the byte, retry, queue and
// guard metrics.
type numbersObserver struct {
	nopObserver
	mu     sync.Mutex
	llm    []LLMEvent
	queue  []QueueEvent
	guards []GuardEvent
}

func (o *numbersObserver) StartLLM(ctx context.Context, _ LLMTarget) (context.Context, func(LLMEvent)) {
	return ctx, func(e LLMEvent) { o.mu.Lock(); o.llm = append(o.llm, e); o.mu.Unlock() }
}
func (o *numbersObserver) Queue(_ context.Context, ev QueueEvent) {
	o.mu.Lock()
	o.queue = append(o.queue, ev)
	o.mu.Unlock()
}
func (o *numbersObserver) ContextGuard(_ context.Context, ev GuardEvent) {
	o.mu.Lock()
	o.guards = append(o.guards, ev)
	o.mu.Unlock()
}

// loadQueuer is a one-slot queue that reports its load.
type loadQueuer struct {
	mu    sync.Mutex
	inUse int
}

func (q *loadQueuer) Acquire(context.Context, string) (func(), time.Duration, int, error) {
	q.mu.Lock()
	q.inUse++
	q.mu.Unlock()
	return func() { q.mu.Lock(); q.inUse--; q.mu.Unlock() }, time.Millisecond, 0, nil
}
func (q *loadQueuer) Load(string) (int, int, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.inUse, 0, 1
}

// measuringGuard is fakeGuard reporting the numbers of its drops.
type measuringGuard struct{ fakeGuard }

func (g *measuringGuard) LastActivation() (GuardMeasure, bool) {
	return GuardMeasure{Limit: 100, Projected: 140, Remaining: 25}, g.dropped
}

// TestObserverGetsTheNumbers: a retried attempt says it is the second of
// its turn, each attempt carries the bytes its provider counted on the
// meter, a queued tool reports the queue's load when it gets its slot and
// when it gives it back, and a guard activation carries the guard's
// numbers.
func TestObserverGetsTheNumbers(t *testing.T) {
	answers := script(&llm.Error{Class: llm.ClassServer, Message: "boom"},
		toolCall("c", "t__echo", `{"text":"a long tool output"}`), finalCall("done"))
	f := &fakeLLM{complete: func(n int, req llm.Request) (llm.Response, error) { return answers.complete(n, req) }}
	metered := providerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		m := llm.MeterFrom(ctx)
		m.Sent(100)
		m.Received(7)
		return f.Complete(ctx, req)
	})
	o := opts(t, f)
	o.Targets[0].Client = metered
	o.Transport = TransportNative
	tp := echoTools()
	tp.tools[0].Queue = "io"
	o.Tools = []tools.Provider{tp}
	o.Queuer = &loadQueuer{}
	o.Guard = &measuringGuard{fakeGuard{limit: 5}}
	rec := &numbersObserver{}
	o.Observer = rec
	run(t, o)
	if len(rec.llm) < 3 || rec.llm[0].Attempt != 1 || rec.llm[1].Attempt != 2 || rec.llm[2].Attempt != 1 {
		t.Fatalf("attempts %+v", rec.llm)
	}
	for _, e := range rec.llm {
		if e.RequestBytes != 100 || e.ResponseBytes != 7 {
			t.Fatalf("bytes %d/%d, want 100/7", e.RequestBytes, e.ResponseBytes)
		}
	}
	if len(rec.queue) != 2 || rec.queue[0].Released || rec.queue[0].InUse != 1 || rec.queue[0].Capacity != 1 ||
		!rec.queue[1].Released || rec.queue[1].InUse != 0 {
		t.Fatalf("queue events %+v", rec.queue)
	}
	if len(rec.guards) == 0 || rec.guards[0].Trigger != "tool_preflight" || rec.guards[0].Measure == nil || rec.guards[0].Measure.Remaining != 25 {
		t.Fatalf("guard events %+v", rec.guards)
	}
}

type providerFunc func(context.Context, llm.Request) (llm.Response, error)

func (p providerFunc) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return p(ctx, req)
}
