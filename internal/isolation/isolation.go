// Package isolation is the rule for which build sandbox a request to a
// salve server may ask for. The server's own isolation (salve mcp
// --isolation, salve worker --isolation) is a floor that a client cannot
// lower:
//
//   - a request that names no isolation gets the server's;
//   - a server started with "none" grants any request (every level is at or
//     above none);
//   - otherwise a request for "none" is refused;
//   - "auto" in a request means the server's choice, so it gets the
//     server's isolation;
//   - a request for a sandbox (bwrap, docker, podman) is granted when it is
//     the server's, or when the server's is "auto" (a named sandbox is at
//     least what auto would pick: auto falls back to none); another sandbox
//     than the server's is refused, since two sandboxes do not compare.
//
// The package imports only the standard library; the names are those of
// package sandbox, which a test checks.
package isolation

import (
	"errors"
	"fmt"
	"strings"
)

// The isolation names.
const (
	Auto   = "auto"
	None   = "none"
	Bwrap  = "bwrap"
	Docker = "docker"
	Podman = "podman"
)

// Level is one row of [Levels].
type Level struct {
	Name string
	// Sandbox is true for a real sandbox, false for none and auto (auto
	// falls back to none when no sandbox works).
	Sandbox bool
	// Doc says in a line what the level gives a build.
	Doc string
}

// Levels are the isolations a server or a request may name.
var Levels = []Level{
	{Auto, false, "the strongest sandbox that works here (docker or podman with the image present, then bwrap), else none"},
	{None, false, "no sandbox: the build runs as salve's user, with its files and network"},
	{Bwrap, true, "bubblewrap: no network, a read-only system, only the workspace and caches writable"},
	{Docker, true, "a Docker container with only the workspace and read-only caches from the host"},
	{Podman, true, "a Podman container, as docker"},
}

// ErrUnknown is wrapped by [Resolve] for a name that is not in [Levels].
var ErrUnknown = errors.New("unknown isolation")

// ErrBelowFloor is wrapped by [Resolve] when a request asks for less than
// the server's isolation, or for another sandbox than the server's.
var ErrBelowFloor = errors.New("isolation refused by the server's floor")

// Lookup returns the level called name.
func Lookup(name string) (Level, bool) {
	for _, l := range Levels {
		if l.Name == name {
			return l, true
		}
	}
	return Level{}, false
}

// Names returns the names of [Levels], in order.
func Names() []string {
	out := make([]string, len(Levels))
	for i, l := range Levels {
		out[i] = l.Name
	}
	return out
}

// Resolve returns the isolation a request for requested gets from a
// server whose isolation is floor (empty means auto), by the rule of the
// package documentation. The error wraps [ErrUnknown] or [ErrBelowFloor].
func Resolve(floor, requested string) (string, error) {
	if floor == "" {
		floor = Auto
	}
	if _, ok := Lookup(floor); !ok {
		return "", fmt.Errorf("the server's isolation %q: %w (want %s)", floor, ErrUnknown, strings.Join(Names(), ", "))
	}
	if requested == "" {
		return floor, nil
	}
	req, ok := Lookup(requested)
	switch {
	case !ok:
		return "", fmt.Errorf("isolation %q: %w (want %s)", requested, ErrUnknown, strings.Join(Names(), ", "))
	case requested == floor || floor == None:
		return requested, nil
	case requested == Auto:
		return floor, nil
	case req.Sandbox && floor == Auto:
		return requested, nil
	case requested == None:
		return "", fmt.Errorf("isolation none: %w: this server runs builds under %s, and a request may not lower it", ErrBelowFloor, floor)
	}
	return "", fmt.Errorf("isolation %s: %w: this server runs builds under %s, and a request may name only that (or auto)", requested, ErrBelowFloor, floor)
}
