package inventory

import "testing"

func TestStore(t *testing.T) {
	s := New()
	s.Add("bolt", 10)
	s.Add("nut", 3)
	if err := s.Take("bolt", 4); err != nil {
		t.Fatal(err)
	}
	if err := s.Take("nut", 9); err == nil {
		t.Fatal("took more than there is")
	}
	low := s.Low()
	if len(low) != 1 || low[0] != "nut" {
		t.Fatalf("Low = %v", low)
	}
}
