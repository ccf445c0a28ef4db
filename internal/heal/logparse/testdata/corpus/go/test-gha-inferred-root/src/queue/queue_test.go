package queue

import "testing"

func TestPop(t *testing.T) {
	q := &Queue{}
	q.Push(1)
	if q.Pop() != 1 {
		t.Fatal("want 1")
	}
}
