package tokenbucket

import "testing"

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Options{{Rate: 0, Burst: 1}, {Rate: 1, Burst: 0}, {Rate: -1, Burst: 5}} {
		if _, err := New(cfg, nil); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}
