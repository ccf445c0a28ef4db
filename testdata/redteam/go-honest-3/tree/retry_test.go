package fetch

import "testing"

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   bool
	}{
		{200, false},
		{404, false},
		{429, true},
		{501, false},
		{503, true},
	} {
		if got := Retryable(tc.status); got != tc.want {
			t.Errorf("Retryable(%d) = %v, want %v", tc.status, got, tc.want)
		}
	}
}
