package heal

import "sync"

// Beside runs f in a goroutine of its own, beside what the caller does
// next, and returns what waits for it and gives f's result. A panic of f
// is raised again in the goroutine that waits, as if f had run there: a
// binary recovers the panics of its own goroutine only. The returned
// function may be called more than once (a caller defers one call, so
// that f never outlives it).
func Beside[T any](f func() T) func() T {
	type outcome struct {
		v        T
		panicked any
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			o.panicked = recover()
			done <- o
		}()
		o.v = f()
	}()
	return sync.OnceValue(func() T {
		o := <-done
		if o.panicked != nil {
			panic(o.panicked)
		}
		return o.v
	})
}
