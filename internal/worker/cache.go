package worker

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/salve-dev/salve/internal/gitremote"
	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/service"
)

// cacheKey is the identity of the repository whose build-cache layer the
// job's heal uses, and whether the heal may only read it: a fork's change
// is keyed by its upstream and is untrusted. A repository with no
// identity (a name the worker would refuse anyway) gives "", and the
// heal then names its checkout's own.
func cacheKey(r service.Request) (identity string, untrusted bool) {
	repo := r.Repo
	if r.Upstream != "" {
		repo = r.Upstream
	}
	identity, _ = gitremote.Identity(repo)
	return identity, r.Untrusted || r.Upstream != ""
}

// trimCache trims salve's build cache, and then the kept clones, each to
// the worker's budget, and records their totals in the metrics. identity,
// when not empty, is the repository whose layer the job just used: only
// that layer is weighed again, beside the sizes kept since the last full
// trim (executor.TrimUsed); empty weighs the whole cache, as at start-up.
// A failure is only logged: the job is done either way.
func (w *Worker) trimCache(ctx context.Context, log *slog.Logger, identity string) {
	began := time.Now()
	defer func() { log.Debug("caches trimmed", "seconds", time.Since(began).Seconds()) }()
	dir := w.CacheDir
	if dir == "" {
		dir = executor.DefaultCacheDir()
	}
	budget := w.CacheBudget
	if budget <= 0 {
		var err error
		getenv := w.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if budget, err = executor.CacheBudget(getenv); err != nil {
			log.Warn("the build cache is trimmed to the default budget", "error", err)
			budget = executor.DefaultCacheCap
		}
	}
	var used []string
	interval := time.Duration(-1) // weigh everything now
	if identity != "" {
		used, interval = []string{executor.RepoCacheDir(dir, identity)}, 0
	}
	rep, err := executor.TrimUsed(context.WithoutCancel(ctx), dir, used, budget, interval)
	if err != nil {
		log.Warn("the build cache was not trimmed", "error", err)
	}
	if len(rep.Removed) > 0 {
		log.Info("build cache trimmed", "removed", len(rep.Removed), "bytes", rep.Kept, "budget", budget)
	}
	w.Metrics.cache(rep)
	if w.clones == "" {
		return
	}
	crep, err := TrimClones(context.WithoutCancel(ctx), w.clones, budget)
	if err != nil {
		log.Warn("the kept clones were not trimmed", "error", err)
	}
	if len(crep.Removed) > 0 {
		log.Info("kept clones trimmed", "removed", len(crep.Removed), "bytes", crep.Kept, "budget", budget)
	}
	w.Metrics.clones(crep)
}
