package main

import "testing"

func TestGreeting(t *testing.T) {
	if got := Greeting("world"); got != "HELLO, WORLD!" {
		t.Errorf("Greeting(world) = %q", got)
	}
}

func TestSum(t *testing.T) {
	if got := Sum(1, 2, 3); got != 6 {
		t.Errorf("Sum(1, 2, 3) = %d, want 6", got)
	}
}
