package main

import (
	"context"
	"fmt"
	"io"

	"github.com/salve-dev/salve/internal/heal/executor"
)

// cacheBudget is the build cache's budget: max (--cache-max) when set,
// else $SALVE_BUILD_CACHE_MAX read through getenv, else the default.
func cacheBudget(max string, getenv func(string) string) (int64, error) {
	if max == "" {
		return executor.CacheBudget(getenv)
	}
	n, err := executor.ParseSize(max)
	if err != nil {
		return 0, fmt.Errorf("--cache-max: %w", err)
	}
	return n, nil
}

// trimBuildCache trims salve's build cache (the per-repository layers of
// docs/executor.md §Caches) to its age limit and to budget. It lists on w
// each repository directory it removed and each it kept because a build
// holds it, then the layers' total.
func trimBuildCache(ctx context.Context, w io.Writer, budget int64) error {
	rep, err := executor.TrimCaches(ctx, executor.DefaultCacheDir(), budget, 0)
	for _, p := range rep.Removed {
		fmt.Fprintf(w, "removed cache %s\n", p)
	}
	for _, p := range rep.InUse {
		fmt.Fprintf(w, "in use cache %s\n", p)
	}
	fmt.Fprintf(w, "build cache: %d bytes in %d repositor(ies), budget %d bytes\n", rep.Kept, rep.Repos, budget)
	return err
}
