package main

import (
	"context"
	"fmt"
	"io"

	"github.com/salve-dev/salve/internal/heal/executor"
)

// trimBuildCache trims salve's build cache (the per-repository layers of
// docs/executor.md §Caches) to its age and size limits and lists on w each
// repository directory it removed.
func trimBuildCache(ctx context.Context, w io.Writer) error {
	rep, err := executor.TrimCaches(ctx, executor.DefaultCacheDir(), 0, 0)
	for _, p := range rep.Removed {
		fmt.Fprintf(w, "removed cache %s\n", p)
	}
	return err
}
