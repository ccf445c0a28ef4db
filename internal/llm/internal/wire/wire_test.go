package wire

import (
	"context"
	"testing"
	"time"
)

func TestBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		timeout  time.Duration
		deadline bool
	}{
		{"no timeout", 0, false},
		{"timeout", time.Hour, true},
	} {
		ctx, cancel := Endpoint{Timeout: tc.timeout}.Bound(context.Background())
		d, ok := ctx.Deadline()
		if ok != tc.deadline || (ok && time.Until(d) > tc.timeout) {
			t.Errorf("%s: deadline %v, %v", tc.name, d, ok)
		}
		cancel()
		if tc.deadline && ctx.Err() == nil {
			t.Errorf("%s: cancel did not end the context", tc.name)
		}
	}
}
