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
