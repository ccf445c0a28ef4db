// Package sandbox is a stand-in for salve's sandbox package.
package sandbox

import "context"

// Cmd mirrors the real type's shape.
type Cmd struct {
	Path string
	Args []string
}

// Run mirrors the real function.
func Run(ctx context.Context, c Cmd) error { return nil }
