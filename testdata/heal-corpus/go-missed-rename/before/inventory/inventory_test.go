package inventory

import (
	"reflect"
	"testing"
)

func TestAdd(t *testing.T) {
	s := Stock{}
	for _, step := range []struct {
		code string
		qty  int
	}{{"toy-42", 3}, {"TOY-00042", 2}, {"book-7", 1}} {
		if err := s.Add(step.code, step.qty); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add("book-7", -2); err == nil {
		t.Error("took more books than in stock")
	}
	want := []string{"BOOK-00007 1", "TOY-00042 5"}
	if got := s.Lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("Lines = %q, want %q", got, want)
	}
}
