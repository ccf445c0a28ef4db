package main

import (
	"context"
	"fmt"
	"io"

	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/worker"
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
// docs/executor.md §Caches) to its age limit and to budget, then the queue
// worker's kept clones (in salve's data folder) by the same rule. For
// each it lists on w the repository directories it removed and those it
// kept because a build or a job holds them, then the total.
func trimBuildCache(ctx context.Context, w io.Writer, budget int64, getenv func(string) string) error {
	rep, err := executor.TrimCaches(ctx, executor.DefaultCacheDir(), budget, 0)
	printTrim(w, "cache", "build cache", rep, budget)
	if err != nil {
		return err
	}
	dir, err := worker.ClonesDir(getenv)
	if err != nil {
		return nil // no data folder: no worker kept a clone here
	}
	rep, err = worker.TrimClones(ctx, dir, budget)
	printTrim(w, "clone", "kept clones", rep, budget)
	return err
}

// printTrim lists what a trim of one kind did (removed and in-use
// directories, named by kind) and the total left (headed by what).
func printTrim(w io.Writer, kind, what string, rep executor.TrimReport, budget int64) {
	for _, p := range rep.Removed {
		fmt.Fprintf(w, "removed %s %s\n", kind, p)
	}
	for _, p := range rep.InUse {
		fmt.Fprintf(w, "in use %s %s\n", kind, p)
	}
	fmt.Fprintf(w, "%s: %d bytes in %d repositor(ies), budget %d bytes\n", what, rep.Kept, rep.Repos, budget)
}
