package pool

import "testing"

func TestPool(t *testing.T) {
	t.Run("single", func(t *testing.T) {
		p := New(1)
		p.Acquire()
		p.Release()
	})
	t.Run("reacquire", func(t *testing.T) {
		p := New(1)
		p.Acquire()
		p.Acquire()
		p.Release()
	})
}
