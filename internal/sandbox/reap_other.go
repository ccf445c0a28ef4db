//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
)

// BecomeSubreaper fails on this system: child subreapers are a Linux
// feature. The error wraps [ErrNoPIDNamespace]; callers fall back to the
// process group kill of [Run].
func BecomeSubreaper() error {
	return fmt.Errorf("sandbox: child subreaper on %s: %w", runtime.GOOS, ErrNoPIDNamespace)
}

// ReapOrphans finds nothing on this system (there is no subreaper to
// collect orphans) and returns nil.
func ReapOrphans(marker string, rounds int) []int { return nil }

// InPIDNamespace fails on this system with an error wrapping
// [ErrNoPIDNamespace], for which [NamespaceDenied] is true: PID namespaces
// are a Linux feature. Callers run c as it is; [Run] kills its process
// group (only the process itself on Windows) when it ends.
func InPIDNamespace(c Cmd, prog string) (*PIDNamespaceRun, error) {
	return nil, fmt.Errorf("sandbox: PID namespace on %s: %w", runtime.GOOS, ErrNoPIDNamespace)
}

// NamespaceDenied reports whether err says that no PID namespace can be
// had here, which on this system is always the case.
func NamespaceDenied(err error) bool {
	return errors.Is(err, ErrNoPIDNamespace) || errors.Is(err, ErrNotFound)
}
