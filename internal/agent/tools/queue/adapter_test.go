package queue_test

import (
	"context"
	"errors"
	"testing"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/tools/queue"
)

// The engine's plug accepts the adapter.
var _ agent.Queuer = queue.Queuer{}

func TestQueuerAdapter(t *testing.T) {
	s, err := queue.New(map[string]int{"io": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var q agent.Queuer = queue.Queuer{Set: s}
	release, waited, depth, err := q.Acquire(context.Background(), "io")
	if err != nil || waited != 0 || depth != 0 {
		t.Fatalf("first Acquire = %v %v %v", waited, depth, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := q.Acquire(ctx, "io"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire on a full queue with a done context = %v", err)
	}
	release()
	if _, _, _, err := q.Acquire(context.Background(), "nope"); !errors.Is(err, queue.ErrConfig) {
		t.Fatalf("unknown queue = %v", err)
	}
}

// The engine's telemetry reads the queue's load through the adapter.
var _ agent.QueueLoader = queue.Queuer{}

func TestQueuerLoad(t *testing.T) {
	s, err := queue.New(map[string]int{"io": 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := queue.Queuer{Set: s}
	release, _, _, err := q.Acquire(context.Background(), "io")
	if err != nil {
		t.Fatal(err)
	}
	if in, waiting, capacity := q.Load("io"); in != 1 || waiting != 0 || capacity != 2 {
		t.Fatalf("Load while held = %d %d %d", in, waiting, capacity)
	}
	release()
	if in, _, _ := q.Load("io"); in != 0 {
		t.Fatalf("Load after release = %d in use", in)
	}
	if in, waiting, capacity := q.Load("nope"); in != 0 || waiting != 0 || capacity != 0 {
		t.Fatalf("Load of an unknown queue = %d %d %d", in, waiting, capacity)
	}
}
