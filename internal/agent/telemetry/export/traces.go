package export

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/salve-dev/salve/internal/agent/telemetry"
)

// timeoutSlack is added to the export timeout to bound the final flush.
const timeoutSlack = time.Second

// startTraces builds the exporter, the sampler and the tracer provider.
func (r *Recorder) startTraces(ctx context.Context) error {
	exp, err := r.exporter(ctx)
	if err != nil {
		return fmt.Errorf("telemetry: trace exporter: %w", err)
	}
	bsp := []sdktrace.BatchSpanProcessorOption{sdktrace.WithExportTimeout(r.set.Timeout)}
	if r.set.Mode == telemetry.ModeCLI {
		// A one-shot run exports soon after each span ends, as the
		// original does; Shutdown flushes the rest.
		bsp = append(bsp, sdktrace.WithBatchTimeout(200*time.Millisecond))
	}
	r.tp = sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, bsp...),
		sdktrace.WithSampler(sampler(r.set.Sampler, r.set.Ratio)),
		sdktrace.WithResource(r.resource()),
	)
	r.tracer = r.tp.Tracer("ai-agent")
	return nil
}

func (r *Recorder) resource() *resource.Resource {
	attrs := []attribute.KeyValue{attribute.String("service.name", "ai-agent"), attribute.String("service.version", r.set.Version)}
	for k, v := range constLabels(r.set) {
		attrs = append(attrs, attribute.String("telemetry.label."+k, v))
	}
	return resource.NewSchemaless(attrs...)
}

// exporter is the OTLP exporter of the protocol. An endpoint given as a
// URL (grpc://, http:// or https://) sets the transport security; an
// HTTP endpoint with no path gets /v1/traces.
func (r *Recorder) exporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	host, path, insecure, err := splitEndpoint(r.set.Endpoint)
	if err != nil {
		return nil, err
	}
	switch r.set.Protocol {
	case telemetry.ProtocolHTTP:
		opts := []otlptracehttp.Option{otlptracehttp.WithTimeout(r.set.Timeout)}
		if host != "" {
			opts = append(opts, otlptracehttp.WithEndpoint(host), otlptracehttp.WithURLPath(path))
			if insecure {
				opts = append(opts, otlptracehttp.WithInsecure())
			}
		}
		return otlptracehttp.New(ctx, opts...)
	case telemetry.ProtocolGRPC, "":
		opts := []otlptracegrpc.Option{otlptracegrpc.WithTimeout(r.set.Timeout)}
		if host != "" {
			opts = append(opts, otlptracegrpc.WithEndpoint(host))
			if insecure {
				opts = append(opts, otlptracegrpc.WithInsecure())
			}
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	return nil, fmt.Errorf("unknown OTLP protocol %q (grpc or http/protobuf)", r.set.Protocol)
}

// splitEndpoint reads an endpoint: host:port (plain text), or a URL whose
// scheme is grpc, http (plain text) or https.
func splitEndpoint(ep string) (host, path string, insecure bool, err error) {
	ep = strings.TrimSpace(ep)
	if ep == "" {
		return "", "", false, nil
	}
	if !strings.Contains(ep, "://") {
		return ep, "/v1/traces", true, nil
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" {
		return "", "", false, fmt.Errorf("OTLP endpoint %q is not host:port or a URL", ep)
	}
	switch u.Scheme {
	case "grpc", "http":
		insecure = true
	case "https":
	default:
		return "", "", false, fmt.Errorf("OTLP endpoint %q: scheme %q (grpc, http or https)", ep, u.Scheme)
	}
	path = u.Path
	if path == "" || path == "/" {
		path = "/v1/traces"
	}
	return u.Host, path, insecure, nil
}

// sampler maps a sampler name to the SDK's: ratio samples root spans at
// ratio (clamped to [0,1]); parent, the default, follows the parent and
// samples roots.
func sampler(name string, ratio float64) sdktrace.Sampler {
	switch name {
	case telemetry.SamplerAlwaysOn:
		return sdktrace.AlwaysSample()
	case telemetry.SamplerAlwaysOff:
		return sdktrace.NeverSample()
	case telemetry.SamplerRatio:
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(min(max(ratio, 0), 1)))
	}
	return sdktrace.ParentBased(sdktrace.AlwaysSample())
}
