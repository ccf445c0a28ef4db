package tokenbucket

import (
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestBurstThenRefill(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0)}
	b, err := New(Options{Rate: 2, Burst: 3}, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if !b.Allow() {
			t.Fatalf("token %d refused", i)
		}
	}
	if b.Allow() {
		t.Fatal("a fourth token in the same instant")
	}
	clk.advance(500 * time.Millisecond)
	if !b.Allow() {
		t.Fatal("no token after half a second at 2/s")
	}
}
