package executor

import (
	"context"
	"testing"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/sandbox"
)

// TestSharedBackends: an Executor that shares Backends uses the backend
// another chose for the same isolation instead of probing, until the
// choice is BackendTTL old. The shared choice here is deliberately
// another backend than the isolation names (none for bwrap), so the
// build's metadata tells which was used.
func TestSharedBackends(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	now := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	shared := NewBackends()
	run := func(at time.Time) (string, error) {
		e := New(Options{Isolation: sandbox.IsolationBwrap, Backends: shared, SkipProbe: true, RunDir: t.TempDir(),
			Now: func() time.Time { return at }})
		out, err := e.Run(context.Background(), contract.ExecutorInput{WorkspacePath: t.TempDir(), ResolvedBuildCommand: "true"})
		return out.EnvironmentMetadata.Isolation, err
	}
	// A first executor probes and shares its choice; it is then replaced
	// by another backend, whatever its key.
	if _, err := run(now); err != nil {
		t.Skipf("no bwrap here: %v", err)
	}
	if len(shared.m) != 1 {
		t.Fatalf("shared choices %v, want the first executor's", shared.m)
	}
	for k := range shared.m {
		shared.put(k, sandbox.None{}, now)
	}
	if iso, err := run(now.Add(BackendTTL - time.Second)); err != nil || iso != sandbox.IsolationNone {
		t.Errorf("within the TTL the build ran under %q (err %v), want the shared choice %q", iso, err, sandbox.IsolationNone)
	}
	// Past the TTL the executor probes again: bwrap when it works here,
	// else an error; never the stale choice.
	if iso, err := run(now.Add(BackendTTL)); err == nil && iso != sandbox.IsolationBwrap {
		t.Errorf("past the TTL the build ran under %q, want a new probe's bwrap", iso)
	}
}
