package heal

import "testing"

// TestBeside: the result comes back, to every call; a panic comes back as
// a panic of the caller's goroutine, to every call.
func TestBeside(t *testing.T) {
	wait := Beside(func() int { return 7 })
	if a, b := wait(), wait(); a != 7 || b != 7 {
		t.Errorf("Beside gave %d then %d, want 7", a, b)
	}
	wait = Beside(func() int { panic("boom") })
	for i := range 2 {
		func() {
			defer func() {
				if v := recover(); v != "boom" {
					t.Errorf("call %d recovered %v, want the panic", i, v)
				}
			}()
			wait()
			t.Errorf("call %d returned", i)
		}()
	}
}
