// Package telemetry is ai-agent's side of its metrics and traces
// (docs/ai-agent.md "Telemetry and cost"): the settings, the kill switch,
// and a Relay that implements the engine's agent.Observer by sending each
// event, as one JSON line, to the telemetry helper process
// (ai-agent-telemetry, package internal/agent/telemetry/export), which
// holds the Prometheus registry and the OpenTelemetry SDK. The helper is
// started only when telemetry is on, so a run without it never links
// or initialises either library: Go runs every linked package's init at
// start-up, and theirs cost about 2 ms and 6 MB (docs/bench-telemetry.md). This
// package uses the standard library only.
package telemetry

import (
	"strings"
	"time"
)

// DisableEnv is the environment variable that turns all telemetry off.
const DisableEnv = "AI_TELEMETRY_DISABLE"

// Modes of the "mode" label.
const (
	ModeCLI    = "cli"
	ModeServer = "server"
)

// Trace protocols, as OTEL_EXPORTER_OTLP_PROTOCOL spells them.
const (
	ProtocolGRPC = "grpc"
	ProtocolHTTP = "http/protobuf"
)

// Samplers.
const (
	SamplerAlwaysOn  = "always_on"
	SamplerAlwaysOff = "always_off"
	SamplerRatio     = "ratio"
	SamplerParent    = "parent"
)

// Defaults of Settings.
const (
	DefaultPrometheusHost = "127.0.0.1"
	DefaultPrometheusPort = 9464
	DefaultRatio          = 0.1
	DefaultTimeout        = 2 * time.Second
	// DefaultMetricInterval is how often metrics are pushed over OTLP,
	// the original's interval; a run's last metrics go at its end.
	DefaultMetricInterval = 5 * time.Second
)

// Settings configures the helper. Metrics are always on when it runs;
// Prometheus, PushMetrics and Traces add the listener and the exporters.
type Settings struct {
	// Mode is ModeCLI or ModeServer; it is the "mode" label of every
	// series and a resource attribute.
	Mode string `json:"mode"`
	// Labels are added to every series and, as telemetry.label.<key>,
	// to the trace resource.
	Labels  map[string]string `json:"labels,omitempty"`
	Version string            `json:"version,omitempty"`

	// Prometheus serves GET /metrics on PrometheusAddr (host:port),
	// behind httpguard with Token (none when empty). A listener beyond
	// loopback needs a token, or Insecure.
	Prometheus     bool   `json:"prometheus,omitempty"`
	PrometheusAddr string `json:"prometheusAddr,omitempty"`
	Token          string `json:"token,omitempty"`
	Insecure       bool   `json:"insecure,omitempty"`

	// Traces exports spans over OTLP: Protocol grpc (the default) or
	// http/protobuf, to Endpoint (empty: the SDK's environment and
	// defaults), each export bounded by Timeout.
	Traces   bool          `json:"traces,omitempty"`
	Protocol string        `json:"protocol,omitempty"`
	Endpoint string        `json:"endpoint,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	// Sampler is always_on, always_off, ratio (with Ratio) or parent
	// (the default).
	Sampler string  `json:"sampler,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"`

	// PushMetrics exports the metrics over OTLP, as the original always
	// does when its telemetry is on: every MetricInterval (0 means
	// DefaultMetricInterval) and when the helper ends, with delta
	// temporality, to Endpoint over MetricsProtocol (empty: Protocol),
	// each export bounded by Timeout.
	PushMetrics     bool          `json:"pushMetrics,omitempty"`
	MetricsProtocol string        `json:"metricsProtocol,omitempty"`
	MetricInterval  time.Duration `json:"metricInterval,omitempty"`

	// Logs exports the run's log records over OTLP (telemetry.logging.extra
	// holding "otlp"), to LogsEndpoint (empty: Endpoint) over LogsProtocol
	// (empty: Protocol), each export bounded by LogsTimeout (0: Timeout).
	Logs         bool          `json:"logs,omitempty"`
	LogsEndpoint string        `json:"logsEndpoint,omitempty"`
	LogsProtocol string        `json:"logsProtocol,omitempty"`
	LogsTimeout  time.Duration `json:"logsTimeout,omitempty"`
}

// Disabled reports whether the kill switch is set: AI_TELEMETRY_DISABLE is
// 1, true, yes or on.
func Disabled(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv(DisableEnv))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// NormalizeSampler lower-cases a sampler name and accepts "-" for "_"; ok
// is false for an unknown name.
func NormalizeSampler(s string) (string, bool) {
	s = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
	switch s {
	case SamplerAlwaysOn, SamplerAlwaysOff, SamplerRatio, SamplerParent:
		return s, true
	}
	return "", false
}
