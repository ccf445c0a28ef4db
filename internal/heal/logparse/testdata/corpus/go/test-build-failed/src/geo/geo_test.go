package geo

import "testing"

func TestPoint(t *testing.T) {
	p := Point{X: 1, Y: 2}
	if p.Z != 0 {
		t.Fatal("z")
	}
}
