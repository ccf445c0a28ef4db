package export

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/salve-dev/salve/internal/agent/telemetry"
)

// startPush exports the metrics over OTLP (docs/ai-agent.md "Telemetry
// and cost"): a periodic reader collects, every MetricInterval and once
// more at Shutdown, what the Prometheus registry gathered, as delta sums,
// gauges and delta histograms (the original's temporality), and hands it to
// the OTLP exporter of the protocol. The registry stays the one record of
// the metrics, so /metrics and the pushed points always agree.
func (r *Recorder) startPush(ctx context.Context) error {
	exp, err := r.metricExporter(ctx)
	if err != nil {
		return fmt.Errorf("telemetry: metric exporter: %w", err)
	}
	interval := r.set.MetricInterval
	if interval <= 0 {
		interval = telemetry.DefaultMetricInterval
	}
	reader := sdkmetric.NewPeriodicReader(&droppingExporter{Exporter: exp, log: r.log},
		sdkmetric.WithInterval(interval), sdkmetric.WithTimeout(r.set.Timeout),
		sdkmetric.WithProducer(newDeltaProducer(r.metrics.reg, time.Now)))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(r.resource()))
	return nil
}

// metricExporter is the OTLP metric exporter of the protocol, to the
// endpoint the spans go to: a URL sets the transport security, and an HTTP
// endpoint gets /v1/metrics in place of /v1/traces (or after its path). A
// CLI run does not retry a failed export: the batch is dropped, as the
// original does, so a missing collector does not hold up the run's end.
func (r *Recorder) metricExporter(ctx context.Context) (sdkmetric.Exporter, error) {
	host, path, insecure, err := splitEndpoint(r.set.Endpoint)
	if err != nil {
		return nil, err
	}
	retry := r.set.Mode != telemetry.ModeCLI
	proto := r.set.MetricsProtocol
	if proto == "" {
		proto = r.set.Protocol
	}
	switch proto {
	case telemetry.ProtocolHTTP:
		opts := []otlpmetrichttp.Option{otlpmetrichttp.WithTimeout(r.set.Timeout),
			otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: retry})}
		if host != "" {
			opts = append(opts, otlpmetrichttp.WithEndpoint(host), otlpmetrichttp.WithURLPath(metricsPath(path)))
			if insecure {
				opts = append(opts, otlpmetrichttp.WithInsecure())
			}
		}
		return otlpmetrichttp.New(ctx, opts...)
	case telemetry.ProtocolGRPC, "":
		opts := []otlpmetricgrpc.Option{otlpmetricgrpc.WithTimeout(r.set.Timeout),
			otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: retry})}
		if host != "" {
			opts = append(opts, otlpmetricgrpc.WithEndpoint(host))
			if insecure {
				opts = append(opts, otlpmetricgrpc.WithInsecure())
			}
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}
	return nil, fmt.Errorf("unknown OTLP protocol %q (grpc or http/protobuf)", proto)
}

// metricsPath is the metrics path beside a traces path: …/v1/traces
// becomes …/v1/metrics, and any other path gets /v1/metrics after it.
func metricsPath(tracesPath string) string {
	base := strings.TrimSuffix(strings.TrimRight(tracesPath, "/"), "/v1/traces")
	return base + "/v1/metrics"
}

// droppingExporter logs a failed export once (until one succeeds again)
// and drops the batch, rather than handing the error to the SDK's global
// handler, which would print it at every interval.
type droppingExporter struct {
	sdkmetric.Exporter
	log     *slog.Logger
	failing atomic.Bool
}

func (e *droppingExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	if err := e.Exporter.Export(ctx, rm); err != nil {
		if !e.failing.Swap(true) {
			e.log.Warn("telemetry: OTLP metric export failed (dropping batch)", "error", err)
		}
		return nil
	}
	e.failing.Store(false)
	return nil
}

// deltaProducer is an sdkmetric.Producer over a Prometheus gatherer: each
// collection turns every series into its change since the previous one
// (counters into monotonic delta sums, histograms into delta histograms,
// gauges as they are), and leaves out the series that did not change.
type deltaProducer struct {
	gather prometheus.Gatherer
	now    func() time.Time

	mu   sync.Mutex
	last time.Time
	prev map[string]cumulative
}

// cumulative is a series' totals at the previous collection.
type cumulative struct {
	value   float64
	count   uint64
	sum     float64
	buckets []uint64
}

func newDeltaProducer(g prometheus.Gatherer, now func() time.Time) *deltaProducer {
	return &deltaProducer{gather: g, now: now, last: now(), prev: map[string]cumulative{}}
}

var scope = instrumentation.Scope{Name: "ai-agent"}

// Produce implements sdkmetric.Producer.
func (p *deltaProducer) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	mfs, err := p.gather.Gather()
	if err != nil {
		return nil, fmt.Errorf("telemetry: gather metrics: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	start, now := p.last, p.now()
	p.last = now
	var out []metricdata.Metrics
	for _, mf := range mfs {
		m := metricdata.Metrics{Name: mf.GetName(), Description: mf.GetHelp()}
		switch mf.GetType() {
		case dto.MetricType_COUNTER:
			sum := metricdata.Sum[float64]{Temporality: metricdata.DeltaTemporality, IsMonotonic: true}
			for _, s := range mf.GetMetric() {
				if d, ok := p.counterDelta(mf.GetName(), s); ok {
					sum.DataPoints = append(sum.DataPoints, metricdata.DataPoint[float64]{Attributes: attrs(s), StartTime: start, Time: now, Value: d})
				}
			}
			if len(sum.DataPoints) == 0 {
				continue
			}
			m.Data = sum
		case dto.MetricType_GAUGE:
			g := metricdata.Gauge[float64]{}
			for _, s := range mf.GetMetric() {
				g.DataPoints = append(g.DataPoints, metricdata.DataPoint[float64]{Attributes: attrs(s), Time: now, Value: s.GetGauge().GetValue()})
			}
			if len(g.DataPoints) == 0 {
				continue
			}
			m.Data = g
		case dto.MetricType_HISTOGRAM:
			h := metricdata.Histogram[float64]{Temporality: metricdata.DeltaTemporality}
			for _, s := range mf.GetMetric() {
				if pt, ok := p.histogramDelta(mf.GetName(), s); ok {
					pt.StartTime, pt.Time = start, now
					h.DataPoints = append(h.DataPoints, pt)
				}
			}
			if len(h.DataPoints) == 0 {
				continue
			}
			m.Data = h
		default:
			continue
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return []metricdata.ScopeMetrics{{Scope: scope, Metrics: out}}, nil
}

// counterDelta is a counter's increase since the last collection; a value
// below the previous one (a reset) counts whole.
func (p *deltaProducer) counterDelta(name string, s *dto.Metric) (float64, bool) {
	key := seriesKey(name, s)
	v := s.GetCounter().GetValue()
	prev := p.prev[key].value
	p.prev[key] = cumulative{value: v}
	d := v - prev
	if d < 0 {
		d = v
	}
	return d, d > 0 && !math.IsInf(d, 0) && !math.IsNaN(d)
}

// histogramDelta is a histogram's observations since the last collection,
// with per-bucket counts (Prometheus keeps them cumulative per bound; the
// last OTLP bucket is the one above the highest bound).
func (p *deltaProducer) histogramDelta(name string, s *dto.Metric) (metricdata.HistogramDataPoint[float64], bool) {
	key := seriesKey(name, s)
	h := s.GetHistogram()
	cur := cumulative{count: h.GetSampleCount(), sum: h.GetSampleSum()}
	var bounds []float64
	for _, b := range h.GetBucket() {
		if math.IsInf(b.GetUpperBound(), +1) {
			continue
		}
		bounds = append(bounds, b.GetUpperBound())
		cur.buckets = append(cur.buckets, b.GetCumulativeCount())
	}
	prev, seen := p.prev[key]
	p.prev[key] = cur
	if !seen || cur.count < prev.count || len(prev.buckets) != len(cur.buckets) {
		prev = cumulative{buckets: make([]uint64, len(cur.buckets))}
	}
	count := cur.count - prev.count
	if count == 0 {
		return metricdata.HistogramDataPoint[float64]{}, false
	}
	counts := make([]uint64, len(bounds)+1)
	var below uint64
	for i := range bounds {
		in := cur.buckets[i] - prev.buckets[i]
		counts[i] = in - below
		below = in
	}
	counts[len(bounds)] = count - below
	return metricdata.HistogramDataPoint[float64]{Attributes: attrs(s), Count: count, Sum: cur.sum - prev.sum,
		Bounds: bounds, BucketCounts: counts}, true
}

// seriesKey names one series: its metric and its label pairs, which the
// gatherer sorts.
func seriesKey(name string, s *dto.Metric) string {
	var b strings.Builder
	b.WriteString(name)
	for _, l := range s.GetLabel() {
		b.WriteByte(0)
		b.WriteString(l.GetName())
		b.WriteByte('=')
		b.WriteString(l.GetValue())
	}
	return b.String()
}

// attrs are a series' labels as attributes, the empty ones left out (the
// original leaves an unset label out rather than sending it empty).
func attrs(s *dto.Metric) attribute.Set {
	kvs := make([]attribute.KeyValue, 0, len(s.GetLabel()))
	for _, l := range s.GetLabel() {
		if l.GetValue() != "" {
			kvs = append(kvs, attribute.String(l.GetName(), l.GetValue()))
		}
	}
	return attribute.NewSet(kvs...)
}
