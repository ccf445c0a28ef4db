package isolation_test

import (
	"errors"
	"testing"

	"github.com/salve-dev/salve/internal/isolation"
	"github.com/salve-dev/salve/internal/sandbox"
)

// TestResolve covers every pair of a server's isolation (the floor) and a
// request's: the isolation granted, or why it is refused.
func TestResolve(t *testing.T) {
	const below, unknown = "below", "unknown"
	// want[floor][requested]
	want := map[string]map[string]string{
		"auto":   {"": "auto", "auto": "auto", "none": below, "bwrap": "bwrap", "docker": "docker", "podman": "podman", "chroot": unknown},
		"none":   {"": "none", "auto": "auto", "none": "none", "bwrap": "bwrap", "docker": "docker", "podman": "podman", "chroot": unknown},
		"bwrap":  {"": "bwrap", "auto": "bwrap", "none": below, "bwrap": "bwrap", "docker": below, "podman": below, "chroot": unknown},
		"docker": {"": "docker", "auto": "docker", "none": below, "bwrap": below, "docker": "docker", "podman": below, "chroot": unknown},
		"podman": {"": "podman", "auto": "podman", "none": below, "bwrap": below, "docker": below, "podman": "podman", "chroot": unknown},
		"":       {"": "auto", "auto": "auto", "none": below, "bwrap": "bwrap", "docker": "docker", "podman": "podman", "chroot": unknown},
		"chroot": {"": unknown, "none": unknown, "bwrap": unknown},
	}
	for floor, row := range want {
		for req, w := range row {
			got, err := isolation.Resolve(floor, req)
			switch w {
			case below:
				if !errors.Is(err, isolation.ErrBelowFloor) || got != "" {
					t.Errorf("Resolve(%q, %q) = %q, %v; want refused below the floor", floor, req, got, err)
				}
			case unknown:
				if !errors.Is(err, isolation.ErrUnknown) || got != "" {
					t.Errorf("Resolve(%q, %q) = %q, %v; want unknown", floor, req, got, err)
				}
			default:
				if err != nil || got != w {
					t.Errorf("Resolve(%q, %q) = %q, %v; want %q", floor, req, got, err, w)
				}
			}
		}
	}
	for _, floor := range isolation.Names() {
		if len(want[floor]) != len(isolation.Levels)+2 {
			t.Errorf("floor %s: the table covers %d requests, want every level, empty and an unknown one", floor, len(want[floor]))
		}
	}
}

// TestLevelsAreTheSandboxNames: every level is a name package sandbox
// knows, and every one but auto is a backend.
func TestLevelsAreTheSandboxNames(t *testing.T) {
	names := map[string]bool{sandbox.IsolationAuto: true, sandbox.IsolationNone: true, sandbox.IsolationBwrap: true,
		sandbox.IsolationDocker: true, sandbox.IsolationPodman: true}
	if len(isolation.Levels) != len(names) {
		t.Errorf("%d levels, sandbox has %d names", len(isolation.Levels), len(names))
	}
	for _, l := range isolation.Levels {
		if !names[l.Name] || l.Doc == "" {
			t.Errorf("level %+v", l)
		}
		if got, ok := isolation.Lookup(l.Name); !ok || got != l {
			t.Errorf("Lookup(%q) = %+v, %v", l.Name, got, ok)
		}
		if l.Name == isolation.Auto {
			continue
		}
		if _, err := sandbox.NewBackend(l.Name); err != nil {
			t.Errorf("level %s is no sandbox backend: %v", l.Name, err)
		}
		if l.Sandbox != (l.Name != isolation.None) {
			t.Errorf("level %s: Sandbox %v", l.Name, l.Sandbox)
		}
	}
}
