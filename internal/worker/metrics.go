package worker

import (
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/heal/results"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/salve-dev/salve/internal/heal/executor"
	"github.com/salve-dev/salve/internal/service"
)

// Metrics are a worker's Prometheus metrics of the heals it finished:
// their durations by final status, their bugs by class and outcome, and
// the LLM tokens, requests and cost of the results' accounting, the size
// of salve's build cache and of the kept clones after each job's trim, and
// how each job's repository was made ready. A nil
// *Metrics records nothing.
type Metrics struct {
	duration *prometheus.HistogramVec
	bugs     *prometheus.CounterVec
	tokens   *prometheus.CounterVec
	requests prometheus.Counter
	cost     prometheus.Counter
	// cacheBytes and cacheRepos are salve's build cache after the last
	// trim: the layers' total and how many repositories have one.
	cacheBytes prometheus.Gauge
	cacheRepos prometheus.Gauge
	// clonesBytes and clonesRepos are the kept clones after the last
	// trim; checkouts counts how each job's repository was made ready.
	clonesBytes prometheus.Gauge
	clonesRepos prometheus.Gauge
	checkouts   *prometheus.CounterVec
}

// NewMetrics registers a worker's metrics on reg (salve serve's registry
// for its in-process workers, a registry of its own for salve worker).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "salve_heal_duration_seconds",
			Help:    "Wall time of each finished heal job's last delivery, by the job's final status.",
			Buckets: prometheus.ExponentialBuckets(5, 2, 12), // 5 s to about 2.8 h
		}, []string{"status"}),
		bugs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "salve_heal_bugs_total",
			Help: "Bugs of finished heals by error_type and status (fixed, rejected, flaky, unfixed).",
		}, []string{"error_type", "status"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "salve_llm_tokens_total",
			Help: "LLM tokens spent by finished heals, by direction (input, output).",
		}, []string{"direction"}),
		requests: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "salve_llm_requests_total",
			Help: "LLM requests made by finished heals.",
		}),
		cost: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "salve_llm_cost_usd_total",
			Help: "LLM cost of finished heals, in US dollars, as the providers' accounting reported it.",
		}),
		cacheBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "salve_build_cache_bytes",
			Help: "Bytes in salve's build-cache layers after the last trim (checked after every job, against $SALVE_BUILD_CACHE_MAX).",
		}),
		cacheRepos: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "salve_build_cache_repositories",
			Help: "Repositories with a build-cache layer after the last trim.",
		}),
		clonesBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "salve_worker_clones_bytes",
			Help: "Bytes in the worker's kept clones after the last trim (checked after every job, against $SALVE_BUILD_CACHE_MAX).",
		}),
		clonesRepos: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "salve_worker_clones_repositories",
			Help: "Repositories with a kept clone after the last trim.",
		}),
		checkouts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "salve_worker_checkouts_total",
			Help: "Jobs' repositories made ready, by how: fetch (into the repository's kept clone), clone (the kept clone made, or made again), private (a clone for the job alone).",
		}, []string{"how"}),
	}
	for _, c := range []prometheus.Collector{m.duration, m.bugs, m.tokens, m.requests, m.cost, m.cacheBytes, m.cacheRepos, m.clonesBytes, m.clonesRepos, m.checkouts} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// observe records one finished job: its final status, how long its last
// delivery took, and its results when it has some.
func (m *Metrics) observe(status service.Status, took time.Duration, res *results.Results) {
	if m == nil || status == "" {
		return
	}
	m.duration.WithLabelValues(string(status)).Observe(took.Seconds())
	if res == nil {
		return
	}
	for typ, t := range res.ByType {
		typ = errorTypeLabel(typ)
		for _, row := range []struct {
			status string
			n      int
		}{{"fixed", t.Fixed}, {"rejected", t.Rejected}, {"flaky", t.Flaky}, {"unfixed", t.Left - t.Rejected}} {
			if row.n > 0 {
				m.bugs.WithLabelValues(typ, row.status).Add(float64(row.n))
			}
		}
	}
	m.tokens.WithLabelValues("input").Add(float64(max(res.LLM.InputTokens, 0)))
	m.tokens.WithLabelValues("output").Add(float64(max(res.LLM.OutputTokens, 0)))
	m.requests.Add(float64(max(res.LLM.Requests, 0)))
	if res.LLM.CostUSD > 0 {
		m.cost.Add(res.LLM.CostUSD)
	}
}

// cache records the build cache after a trim.
func (m *Metrics) cache(rep executor.TrimReport) {
	if m == nil {
		return
	}
	m.cacheBytes.Set(float64(rep.Kept))
	m.cacheRepos.Set(float64(rep.Repos))
}

// clones records the kept clones after a trim.
func (m *Metrics) clones(rep executor.TrimReport) {
	if m == nil {
		return
	}
	m.clonesBytes.Set(float64(rep.Kept))
	m.clonesRepos.Set(float64(rep.Repos))
}

// checkout counts one job's repository made ready (HowFetch, HowClone or
// HowPrivate).
func (m *Metrics) checkout(how string) {
	if m == nil {
		return
	}
	m.checkouts.WithLabelValues(how).Inc()
}

// errorTypeLabel bounds a label value: error types are the parser's short
// snake_case names; anything else (a damaged record) counts as "other".
func errorTypeLabel(s string) string {
	if s == "" || len(s) > 64 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return "other"
	}
	return s
}
