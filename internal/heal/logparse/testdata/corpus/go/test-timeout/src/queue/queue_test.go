package queue

import (
	"testing"
	"time"
)

func TestPushPop(t *testing.T) {
	q := New()
	q.Push(1)
	if got := q.Pop(); got != 1 {
		t.Fatalf("Pop() = %d, want 1", got)
	}
}

func TestPopWaits(t *testing.T) {
	q := New()
	done := make(chan int)
	go func() { done <- q.Pop() }()
	time.Sleep(50 * time.Millisecond)
	q.Push(2)
	if got := <-done; got != 2 {
		t.Fatalf("Pop() = %d, want 2", got)
	}
}
