package quota

import "testing"

func TestReserve(t *testing.T) {
	q := &Quota{User: "ana", Limit: 100}
	if err := q.Reserve(60); err != nil {
		t.Fatal(err)
	}
	if err := q.Reserve(50); err == nil {
		t.Fatal("reserved past the limit")
	}
	if got := q.Free(); got != 40 {
		t.Errorf("Free() = %d, want 40", got)
	}
}
