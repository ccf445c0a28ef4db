// Package export is the inside of the ai-agent-telemetry helper
// (docs/ai-agent.md "Telemetry and cost"): a Recorder that turns the
// engine's events into Prometheus metrics, on a private registry served
// on its own listener behind httpguard and pushed over OTLP gRPC or HTTP,
// and OpenTelemetry spans exported over OTLP gRPC or HTTP, with the
// original Netdata ai-agent's metric names, labels, span names and
// attributes; and Serve, which replays the events a telemetry.Relay sends.
// Only the helper links this package.
package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/salve-dev/salve/internal/agent/telemetry"
	"github.com/salve-dev/salve/internal/httpguard"
)

// Recorder records the engine's events as metrics and spans; it
// implements agent.Observer. Create it with Start and end it with
// Shutdown.
type Recorder struct {
	set     telemetry.Settings
	log     *slog.Logger
	metrics *metrics
	tp      *sdktrace.TracerProvider
	tracer  trace.Tracer
	mp      *sdkmetric.MeterProvider
	logs    *logExporter
	srv     *http.Server
	ln      net.Listener
	// Warning is the text the caller must print when the metrics
	// listener runs beyond loopback with no token (Insecure).
	Warning string
}

// Start builds the Recorder: the metrics, the Prometheus listener, the
// OTLP metric push and the trace exporter, each when asked for. A
// listener that cannot bind is an error.
func Start(ctx context.Context, set telemetry.Settings, log *slog.Logger) (*Recorder, error) {
	if set.Mode == "" {
		set.Mode = telemetry.ModeCLI
	}
	if set.Timeout <= 0 {
		set.Timeout = telemetry.DefaultTimeout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Recorder{set: set, log: log, metrics: newMetrics(constLabels(set))}
	if set.Traces {
		if err := r.startTraces(ctx); err != nil {
			return nil, err
		}
	}
	if set.PushMetrics {
		if err := r.startPush(ctx); err != nil {
			_ = r.Shutdown(ctx)
			return nil, err
		}
	}
	if set.Logs {
		if err := r.startLogs(); err != nil {
			_ = r.Shutdown(ctx)
			return nil, err
		}
	}
	if set.Prometheus {
		if err := r.serve(); err != nil {
			_ = r.Shutdown(ctx)
			return nil, err
		}
	}
	return r, nil
}

func constLabels(set telemetry.Settings) map[string]string {
	out := map[string]string{}
	for k, v := range set.Labels {
		if k != "" && v != "" {
			out[k] = v
		}
	}
	out["mode"] = set.Mode
	return out
}

// serve starts the Prometheus listener.
func (r *Recorder) serve() error {
	addr := r.set.PrometheusAddr
	if addr == "" {
		addr = net.JoinHostPort(telemetry.DefaultPrometheusHost, strconv.Itoa(telemetry.DefaultPrometheusPort))
	}
	warning, err := httpguard.Listen{Server: "ai-agent metrics", Flag: "--telemetry-prometheus-host", Addr: addr, Token: r.set.Token,
		TokenHint: "--headend-token or $AI_AGENT_HEADEND_TOKEN", Risk: "read the agent's metrics", Insecure: r.set.Insecure}.Check()
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	r.Warning = warning
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("telemetry: prometheus listener: %w", err)
	}
	g := httpguard.Guard{Token: httpguard.Token{Value: r.set.Token}}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", r.Handler())
	r.ln = ln
	r.srv = &http.Server{Handler: g.Handler(mux), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	go func() {
		if err := r.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.log.Warn("telemetry: prometheus listener stopped", "error", err)
		}
	}()
	return nil
}

// Log exports one log record over OTLP when the log export is on; it
// never blocks (a full queue drops the record and counts it).
func (r *Recorder) Log(rec telemetry.LogRecord) {
	if r.logs != nil {
		r.logs.emit(rec)
	}
}

// Handler serves the metrics in the Prometheus text format.
func (r *Recorder) Handler() http.Handler { return r.metrics.handler() }

// Addr is the Prometheus listener's bound address, "" without one.
func (r *Recorder) Addr() string {
	if r.ln == nil {
		return ""
	}
	return r.ln.Addr().String()
}

// Shutdown sends the log records still queued, pushes the metrics one last time, flushes the spans not yet
// exported and stops the exporters and the listener, within ctx's
// deadline.
func (r *Recorder) Shutdown(ctx context.Context) error {
	var errs []error
	if r.srv != nil {
		if err := r.srv.Shutdown(ctx); err != nil {
			_ = r.srv.Close()
		}
	}
	if r.logs != nil {
		if err := r.logs.shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if r.mp != nil {
		if err := r.mp.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("telemetry: push metrics: %w", err))
		}
	}
	if r.tp != nil {
		if err := r.tp.ForceFlush(ctx); err != nil {
			errs = append(errs, fmt.Errorf("telemetry: flush traces: %w", err))
		}
		if err := r.tp.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("telemetry: stop traces: %w", err))
		}
	}
	return errors.Join(errs...)
}
