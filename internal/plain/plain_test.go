package plain

import (
	"errors"
	"fmt"
	"testing"
)

func TestMessage(t *testing.T) {
	base := errors.New("executor: no project marker found")
	wrapped := fmt.Errorf("heal: build could not run: %w", Wrap(fmt.Errorf("detect /x: %w", base), "salve cannot tell how to build this project"))
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{base, "executor: no project marker found"},
		{wrapped, "salve cannot tell how to build this project"},
		{Wrap(base, ""), "executor: no project marker found"},
	} {
		if got := Message(tc.err); got != tc.want {
			t.Errorf("Message(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if !errors.Is(wrapped, base) {
		t.Error("Wrap hides the error it wraps")
	}
	if Wrap(nil, "x") != nil {
		t.Error("Wrap(nil) is not nil")
	}
}
