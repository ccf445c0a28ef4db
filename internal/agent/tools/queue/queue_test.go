package queue

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name        string
		cfg         map[string]int
		wantErr     bool
		wantDefault int
	}{
		{name: "empty config gets the default queue", cfg: nil, wantDefault: DefaultConcurrency()},
		{name: "configured default is kept", cfg: map[string]int{"default": 3}, wantDefault: 3},
		{name: "other queues plus default", cfg: map[string]int{"io": 4}, wantDefault: DefaultConcurrency()},
		{name: "zero bound", cfg: map[string]int{"io": 0}, wantErr: true},
		{name: "negative bound", cfg: map[string]int{"io": -2}, wantErr: true},
		{name: "empty name", cfg: map[string]int{"": 2}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.cfg, nil)
			if tt.wantErr {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("New(%v) error = %v, want ErrConfig", tt.cfg, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%v): %v", tt.cfg, err)
			}
			q, ok := s.Get("")
			if !ok || q.Name() != DefaultName || q.Limit() != tt.wantDefault {
				t.Fatalf("default queue = %v %v, want limit %d", q, ok, tt.wantDefault)
			}
		})
	}
}

func TestDefaultConcurrency(t *testing.T) {
	want := min(64, max(1, 2*runtime.NumCPU()))
	if got := DefaultConcurrency(); got != want || got < 1 || got > 64 {
		t.Fatalf("DefaultConcurrency() = %d, want %d", got, want)
	}
}

func TestValidate(t *testing.T) {
	s, err := New(map[string]int{"io": 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		bindings  []Binding
		wantOwner string
	}{
		{name: "no bindings"},
		{name: "empty binding means default", bindings: []Binding{{Owner: "mcpServers.a"}}},
		{name: "defined queues", bindings: []Binding{{Owner: "mcpServers.a", Queue: "io"}, {Owner: "restTools.w", Queue: "default"}}},
		{name: "missing queue", bindings: []Binding{{Owner: "mcpServers.a", Queue: "io"}, {Owner: "restTools.w", Queue: "net"}}, wantOwner: "restTools.w"},
		{name: "first missing by owner", bindings: []Binding{{Owner: "mcpServers.z", Queue: "nope"}, {Owner: "mcpServers.b", Queue: "gone"}}, wantOwner: "mcpServers.b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate(tt.bindings)
			if tt.wantOwner == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var be *BindingError
			if !errors.As(err, &be) || be.Owner != tt.wantOwner || !errors.Is(err, ErrConfig) {
				t.Fatalf("Validate error = %v, want BindingError for %s wrapping ErrConfig", err, tt.wantOwner)
			}
		})
	}
}

func TestAcquireUnknownQueue(t *testing.T) {
	s, _ := New(nil, nil)
	if _, err := s.Acquire(context.Background(), "nope"); !errors.Is(err, ErrConfig) {
		t.Fatalf("Acquire(nope) error = %v, want ErrConfig", err)
	}
}

// TestFIFO holds the only slot, lines up waiters one by one, and checks they
// are served in arrival order with the depth each one met.
func TestFIFO(t *testing.T) {
	s, _ := New(map[string]int{"one": 1}, nil)
	ctx := context.Background()
	first, err := s.Acquire(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := s.Get("one")
	const n = 5
	order := make(chan int, n)
	depths := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot, err := s.Acquire(ctx, "one")
			if err != nil {
				t.Error(err)
				return
			}
			depths[i] = slot.Depth
			order <- i
			slot.Release()
		}()
		waitFor(t, func() bool { return q.Stats().Waiting == i+1 })
	}
	first.Release()
	wg.Wait()
	close(order)
	want := 0
	for got := range order {
		if got != want {
			t.Fatalf("served %d, want %d (FIFO)", got, want)
		}
		if depths[got] != got {
			t.Fatalf("waiter %d met depth %d, want %d", got, depths[got], got)
		}
		want++
	}
	if st := q.Stats(); st.Active != 0 || st.Waiting != 0 || st.Acquired != n+1 || st.MaxActive != 1 {
		t.Fatalf("stats after = %+v", st)
	}
}

func TestCancelWhileWaiting(t *testing.T) {
	s, _ := New(map[string]int{"one": 1}, nil)
	held, err := s.Acquire(context.Background(), "one")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := s.Acquire(ctx, "one")
		errc <- err
	}()
	q, _ := s.Get("one")
	waitFor(t, func() bool { return q.Stats().Waiting == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Acquire error = %v, want context.Canceled", err)
	}
	held.Release()
	held.Release() // a second release must not free a second slot
	next, err := s.Acquire(context.Background(), "one")
	if err != nil {
		t.Fatal(err)
	}
	if st := q.Stats(); st.Active != 1 || st.Waiting != 0 || st.Cancelled != 1 {
		t.Fatalf("stats = %+v, want 1 active, 0 waiting, 1 cancelled", st)
	}
	next.Release()
}

// TestBoundHolds runs many callers through a small queue and checks the
// number inside never exceeds the bound, counted independently of the queue.
func TestBoundHolds(t *testing.T) {
	const limit, callers = 4, 200
	s, _ := New(map[string]int{"q": limit}, nil)
	var inside, maxInside atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot, err := s.Acquire(context.Background(), "q")
			if err != nil {
				t.Error(err)
				return
			}
			defer slot.Release()
			n := inside.Add(1)
			for {
				m := maxInside.Load()
				if n <= m || maxInside.CompareAndSwap(m, n) {
					break
				}
			}
			runtime.Gosched()
			inside.Add(-1)
		}()
	}
	wg.Wait()
	q, _ := s.Get("q")
	st := q.Stats()
	if maxInside.Load() > limit || st.MaxActive > limit || st.Acquired != callers {
		t.Fatalf("max inside %d, stats %+v; want ≤%d and %d acquired", maxInside.Load(), st, limit, callers)
	}
}

func TestSlotAccount(t *testing.T) {
	tests := []struct {
		name      string
		slot      *Slot
		wantQueue string
		wantWait  int64
		wantDepth int
	}{
		{name: "queued", slot: &Slot{Queue: "io", Wait: 1500 * time.Millisecond, Depth: 3}, wantQueue: "io", wantWait: 1500, wantDepth: 3},
		{name: "bypass", slot: Bypass()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e contract.AccountingEntry
			tt.slot.Account(&e)
			tt.slot.Release()
			if e.Queue != tt.wantQueue {
				t.Fatalf("Queue = %q, want %q", e.Queue, tt.wantQueue)
			}
			if tt.wantQueue == "" {
				if e.QueueWaitMs != nil || e.QueueDepth != nil {
					t.Fatalf("bypass set queue fields: %+v", e)
				}
				return
			}
			if *e.QueueWaitMs != tt.wantWait || *e.QueueDepth != tt.wantDepth {
				t.Fatalf("wait %d depth %d, want %d %d", *e.QueueWaitMs, *e.QueueDepth, tt.wantWait, tt.wantDepth)
			}
			attrs := tt.slot.LogAttrs()
			if len(attrs) != 3 || attrs[1].Value.Int64() != tt.wantWait {
				t.Fatalf("LogAttrs = %v", attrs)
			}
		})
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	// The deadline is only the failure cap.
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 2m")
		}
		time.Sleep(time.Millisecond)
	}
}

func BenchmarkAcquireRelease(b *testing.B) {
	s, _ := New(map[string]int{"q": 4}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			slot, err := s.Acquire(ctx, "q")
			if err != nil {
				b.Error(err)
				return
			}
			slot.Release()
		}
	})
}

func BenchmarkAcquireReleaseUncontended(b *testing.B) {
	s, _ := New(map[string]int{"q": 4}, nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		slot, _ := s.Acquire(ctx, "q")
		slot.Release()
	}
}
