package service

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The outcomes of salve_webhooks_total.
const (
	outcomeQueued    = "queued"
	outcomeDuplicate = "duplicate"
	outcomeIgnored   = "ignored"
	outcomeRefused   = "refused"
)

// Metrics are the Prometheus metrics of salve serve, on a registry of
// their own (nothing is registered globally, so a command that does not
// serve registers nothing): webhooks by outcome, the attempt cap, jobs by
// state and the queue's depth. A nil *Metrics records nothing. Workers add
// their heal metrics to the same registry (Registry).
type Metrics struct {
	reg      *prometheus.Registry
	webhooks *prometheus.CounterVec
	capped   *prometheus.CounterVec
	maxDeliv prometheus.Counter

	mu     sync.Mutex
	states map[string]Status // job id -> status, fed by Server.Watch
}

// NewMetrics makes the server's metrics over q (nil: no queue metrics),
// with the Go runtime's and the process's collectors.
func NewMetrics(q *Queue) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "salve_webhooks_total",
			Help: "Webhook deliveries by source and outcome (queued, duplicate, ignored, refused), with the reason of an ignored or refused one.",
		}, []string{"source", "outcome", "reason"}),
		capped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "salve_attempt_cap_reached_total",
			Help: "Webhook failures not queued because their repository and ref reached the attempt cap.",
		}, []string{"source"}),
		maxDeliv: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "salve_jobs_max_delivered_total",
			Help: "Jobs ended in error after their last delivery (every worker died or stalled).",
		}),
		states: map[string]Status{},
	}
	m.reg.MustRegister(m.webhooks, m.capped, m.maxDeliv, newJobsCollector(m),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if q != nil {
		m.reg.MustRegister(newQueueCollector(q))
	}
	return m
}

// Registry is where the metrics live: the in-process workers register
// theirs here too.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{MaxRequestsInFlight: 4, Timeout: 10 * time.Second})
}

func (m *Metrics) webhook(source, outcome, reason string) {
	if m != nil {
		m.webhooks.WithLabelValues(source, outcome, reason).Inc()
	}
}

func (m *Metrics) capReached(source string) {
	if m != nil {
		m.capped.WithLabelValues(source).Inc()
	}
}

func (m *Metrics) maxDelivered() {
	if m != nil {
		m.maxDeliv.Inc()
	}
}

// job records the status of job id; an empty status forgets it.
func (m *Metrics) job(id string, st Status) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if st == "" {
		delete(m.states, id)
	} else {
		m.states[id] = st
	}
}

// allStatuses are the label values of salve_jobs, each always exported.
var allStatuses = []Status{StatusQueued, StatusRunning, StatusGreen, StatusRed, StatusFlaky, StatusError}

// jobsCollector exports the job states Server.Watch keeps.
type jobsCollector struct {
	m    *Metrics
	desc *prometheus.Desc
}

func newJobsCollector(m *Metrics) jobsCollector {
	return jobsCollector{m, prometheus.NewDesc("salve_jobs", "Jobs in the jobs bucket by state.", []string{"state"}, nil)}
}

func (c jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c jobsCollector) Collect(ch chan<- prometheus.Metric) {
	c.m.mu.Lock()
	n := map[Status]int{}
	for _, st := range c.m.states {
		n[st]++
	}
	c.m.mu.Unlock()
	for _, st := range allStatuses {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n[st]), string(st))
	}
}

// queueCollector reads the consumer's state at each scrape.
type queueCollector struct {
	q                              *Queue
	pending, ackPending, redeliver *prometheus.Desc
}

func newQueueCollector(q *Queue) queueCollector {
	return queueCollector{q: q,
		pending:    prometheus.NewDesc("salve_queue_pending", "Jobs in the work queue not yet delivered to a worker.", nil, nil),
		ackPending: prometheus.NewDesc("salve_queue_ack_pending", "Jobs delivered to a worker and not yet acknowledged.", nil, nil),
		redeliver:  prometheus.NewDesc("salve_queue_redelivered", "Jobs delivered more than once and not yet acknowledged.", nil, nil),
	}
}

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.ackPending
	ch <- c.redeliver
}

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := c.q.Cons.Info(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.pending, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(info.NumPending))
	ch <- prometheus.MustNewConstMetric(c.ackPending, prometheus.GaugeValue, float64(info.NumAckPending))
	ch <- prometheus.MustNewConstMetric(c.redeliver, prometheus.GaugeValue, float64(info.NumRedelivered))
}
