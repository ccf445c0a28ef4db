// Package otlptest is test support: local OTLP collectors that speak the
// documented wire formats (protobuf over HTTP at /v1/traces, /v1/metrics
// and /v1/logs, and the gRPC TraceService, MetricsService and LogsService)
// and keep the spans, metric points and log records they receive.
package otlptest

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Collector keeps the spans and the metrics it was sent.
type Collector struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []*metricpb.Metric
	logs    []*logspb.LogRecord
	// resource holds the string attributes of the spans', metrics' and
	// logs' resources; logResource those of the logs alone.
	resource    map[string]string
	logResource map[string]string
	// Addr is the collector's address (host:port).
	Addr string
	// URL is the HTTP collector's base URL; empty for gRPC.
	URL   string
	close func()
}

// NewHTTP starts an OTLP/HTTP collector: POST /v1/traces with an
// ExportTraceServiceRequest and POST /v1/metrics with an
// ExportMetricsServiceRequest and POST /v1/logs with an
// ExportLogsServiceRequest, in protobuf, gzip allowed.
func NewHTTP() *Collector {
	c := &Collector{}
	srv := httptest.NewServer(http.HandlerFunc(c.serveHTTP))
	c.URL, c.Addr, c.close = srv.URL, srv.Listener.Addr().String(), srv.Close
	return c
}

func (c *Collector) serveHTTP(w http.ResponseWriter, r *http.Request) {
	var req, resp proto.Message
	switch {
	case r.Method != http.MethodPost:
	case r.URL.Path == "/v1/traces":
		req, resp = &coltrace.ExportTraceServiceRequest{}, &coltrace.ExportTraceServiceResponse{}
	case r.URL.Path == "/v1/metrics":
		req, resp = &colmetrics.ExportMetricsServiceRequest{}, &colmetrics.ExportMetricsServiceResponse{}
	case r.URL.Path == "/v1/logs":
		req, resp = &collogs.ExportLogsServiceRequest{}, &collogs.ExportLogsServiceResponse{}
	}
	if req == nil {
		http.NotFound(w, r)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, r.Body, 16<<20)
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := proto.Unmarshal(b, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch req := req.(type) {
	case *coltrace.ExportTraceServiceRequest:
		c.keep(req)
	case *colmetrics.ExportMetricsServiceRequest:
		c.keepMetrics(req)
	case *collogs.ExportLogsServiceRequest:
		c.keepLogs(req)
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// NewGRPC starts an OTLP/gRPC collector (plain text) with the trace,
// metrics and logs services.
func NewGRPC() (*Collector, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &Collector{Addr: ln.Addr().String()}
	s := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(s, grpcService{c: c})
	colmetrics.RegisterMetricsServiceServer(s, grpcMetrics{c: c})
	collogs.RegisterLogsServiceServer(s, grpcLogs{c: c})
	go func() { _ = s.Serve(ln) }()
	c.close = s.Stop
	return c, nil
}

// Transport is one running collector and how a client reaches it: the
// endpoint and the OTLP protocol, as OTEL_EXPORTER_OTLP_PROTOCOL spells it.
type Transport struct {
	Name, Endpoint, Protocol string
	C                        *Collector
}

// Transports starts a gRPC and an HTTP collector, for a test that runs
// over each; stop closes both.
func Transports() (ts []Transport, stop func(), err error) {
	g, err := NewGRPC()
	if err != nil {
		return nil, nil, err
	}
	h := NewHTTP()
	return []Transport{{"grpc", "grpc://" + g.Addr, "grpc", g}, {"http", h.URL, "http/protobuf", h}},
		func() { g.Close(); h.Close() }, nil
}

type grpcService struct {
	coltrace.UnimplementedTraceServiceServer
	c *Collector
}

func (g grpcService) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	g.c.keep(req)
	return &coltrace.ExportTraceServiceResponse{}, nil
}

type grpcMetrics struct {
	colmetrics.UnimplementedMetricsServiceServer
	c *Collector
}

func (g grpcMetrics) Export(_ context.Context, req *colmetrics.ExportMetricsServiceRequest) (*colmetrics.ExportMetricsServiceResponse, error) {
	g.c.keepMetrics(req)
	return &colmetrics.ExportMetricsServiceResponse{}, nil
}

type grpcLogs struct {
	collogs.UnimplementedLogsServiceServer
	c *Collector
}

func (g grpcLogs) Export(_ context.Context, req *collogs.ExportLogsServiceRequest) (*collogs.ExportLogsServiceResponse, error) {
	g.c.keepLogs(req)
	return &collogs.ExportLogsServiceResponse{}, nil
}

func (c *Collector) keepLogs(req *collogs.ExportLogsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rl := range req.GetResourceLogs() {
		c.keepResource(rl.GetResource())
		for _, kv := range rl.GetResource().GetAttributes() {
			if c.logResource == nil {
				c.logResource = map[string]string{}
			}
			c.logResource[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		for _, sl := range rl.GetScopeLogs() {
			c.logs = append(c.logs, sl.GetLogRecords()...)
		}
	}
}

// Logs returns the log records received so far.
func (c *Collector) Logs() []*logspb.LogRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*logspb.LogRecord{}, c.logs...)
}

// LogResource returns the string attribute key of the resources the log
// records came with.
func (c *Collector) LogResource(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logResource[key]
}

// LogAttrs returns a log record's attributes (string values).
func LogAttrs(r *logspb.LogRecord) map[string]string { return attrs(r.GetAttributes()) }

func (c *Collector) keep(req *coltrace.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		c.keepResource(rs.GetResource())
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
	}
}

func (c *Collector) keepMetrics(req *colmetrics.ExportMetricsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		c.keepResource(rm.GetResource())
		for _, sm := range rm.GetScopeMetrics() {
			c.metrics = append(c.metrics, sm.GetMetrics()...)
		}
	}
}

func (c *Collector) keepResource(r *resourcepb.Resource) {
	for _, kv := range r.GetAttributes() {
		if c.resource == nil {
			c.resource = map[string]string{}
		}
		c.resource[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
}

// Close stops the collector.
func (c *Collector) Close() { c.close() }

// Spans returns the spans received so far.
func (c *Collector) Spans() []*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*tracepb.Span{}, c.spans...)
}

// Resource returns the string attribute key of the resources the spans
// and metrics came with ("service.name", "service.version").
func (c *Collector) Resource(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.resource[key]
}

// Named returns the received spans with that name.
func (c *Collector) Named(name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range c.Spans() {
		if s.GetName() == name {
			out = append(out, s)
		}
	}
	return out
}

// Attr returns a span attribute's value (string, int64, float64 or
// bool), nil when absent.
func Attr(s *tracepb.Span, key string) any {
	return value(s.GetAttributes(), key)
}

func value(kvs []*commonpb.KeyValue, key string) any {
	for _, kv := range kvs {
		if kv.GetKey() != key {
			continue
		}
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			return v.GetStringValue()
		case v.GetIntValue() != 0:
			return v.GetIntValue()
		case v.GetDoubleValue() != 0:
			return v.GetDoubleValue()
		}
		return v.GetBoolValue()
	}
	return nil
}

// Point is one received data point of a metric: its attributes (string
// values), its value (a sum's or a gauge's; a histogram's count), and for
// sums and histograms whether the temporality is delta.
type Point struct {
	Attrs map[string]string
	Value float64
	Delta bool
	// Histogram is true for a histogram point; Sum and Buckets are then
	// its sum and bucket counts.
	Histogram bool
	Sum       float64
	Buckets   []uint64
}

// Points returns every received data point of the named metric, in the
// order they arrived.
func (c *Collector) Points(name string) []Point {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Point
	for _, m := range c.metrics {
		if m.GetName() != name {
			continue
		}
		switch {
		case m.GetSum() != nil:
			delta := m.GetSum().GetAggregationTemporality() == metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
			for _, p := range m.GetSum().GetDataPoints() {
				out = append(out, Point{Attrs: attrs(p.GetAttributes()), Value: number(p), Delta: delta})
			}
		case m.GetGauge() != nil:
			for _, p := range m.GetGauge().GetDataPoints() {
				out = append(out, Point{Attrs: attrs(p.GetAttributes()), Value: number(p)})
			}
		case m.GetHistogram() != nil:
			delta := m.GetHistogram().GetAggregationTemporality() == metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
			for _, p := range m.GetHistogram().GetDataPoints() {
				out = append(out, Point{Attrs: attrs(p.GetAttributes()), Value: float64(p.GetCount()), Delta: delta,
					Histogram: true, Sum: p.GetSum(), Buckets: p.GetBucketCounts()})
			}
		}
	}
	return out
}

// Matching returns the points of the named metric whose attributes hold
// every pair of match.
func (c *Collector) Matching(name string, match map[string]string) []Point {
	var out []Point
	for _, p := range c.Points(name) {
		ok := true
		for k, v := range match {
			if p.Attrs[k] != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, p)
		}
	}
	return out
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return out
}

func number(p *metricpb.NumberDataPoint) float64 {
	if _, ok := p.GetValue().(*metricpb.NumberDataPoint_AsInt); ok {
		return float64(p.GetAsInt())
	}
	return p.GetAsDouble()
}
