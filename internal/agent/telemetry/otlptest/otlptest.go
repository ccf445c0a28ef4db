// Package otlptest is test support: local OTLP trace collectors that speak
// the documented wire formats (protobuf over HTTP at /v1/traces, and the
// gRPC TraceService) and keep what they receive.
package otlptest

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Collector keeps the spans it was sent.
type Collector struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	// resource holds the string attributes of the spans' resources.
	resource map[string]string
	// Addr is the collector's address (host:port).
	Addr string
	// URL is the HTTP collector's base URL; empty for gRPC.
	URL   string
	close func()
}

// NewHTTP starts an OTLP/HTTP collector: POST /v1/traces with an
// ExportTraceServiceRequest in protobuf, gzip allowed.
func NewHTTP() *Collector {
	c := &Collector{}
	srv := httptest.NewServer(http.HandlerFunc(c.serveHTTP))
	c.URL, c.Addr, c.close = srv.URL, srv.Listener.Addr().String(), srv.Close
	return c
}

func (c *Collector) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
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
	var req coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(b, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.keep(&req)
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// NewGRPC starts an OTLP/gRPC collector (plain text).
func NewGRPC() (*Collector, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &Collector{Addr: ln.Addr().String()}
	s := grpc.NewServer()
	coltrace.RegisterTraceServiceServer(s, grpcService{c: c})
	go func() { _ = s.Serve(ln) }()
	c.close = s.Stop
	return c, nil
}

type grpcService struct {
	coltrace.UnimplementedTraceServiceServer
	c *Collector
}

func (g grpcService) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	g.c.keep(req)
	return &coltrace.ExportTraceServiceResponse{}, nil
}

func (c *Collector) keep(req *coltrace.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, kv := range rs.GetResource().GetAttributes() {
			if c.resource == nil {
				c.resource = map[string]string{}
			}
			c.resource[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
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
// came with ("service.name", "service.version").
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
	for _, kv := range s.GetAttributes() {
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
