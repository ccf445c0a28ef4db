package config

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/salve-dev/salve/internal/agent/telemetry"
)

// Telemetry is the config's telemetry section, with the original's keys
// (docs/ai-agent.md "Telemetry and cost"). Pointers tell an absent key from
// a zero one, so the command line can fill what the file leaves out.
type Telemetry struct {
	Enabled *bool `json:"enabled,omitempty"`
	OTLP    struct {
		Endpoint  *string `json:"endpoint,omitempty"`
		TimeoutMs *int    `json:"timeoutMs,omitempty"`
	} `json:"otlp"`
	Prometheus struct {
		Enabled *bool   `json:"enabled,omitempty"`
		Host    *string `json:"host,omitempty"`
		Port    *int    `json:"port,omitempty"`
	} `json:"prometheus"`
	Labels map[string]string `json:"labels,omitempty"`
	Traces struct {
		Enabled *bool    `json:"enabled,omitempty"`
		Sampler *string  `json:"sampler,omitempty"`
		Ratio   *float64 `json:"ratio,omitempty"`
	} `json:"traces"`
	Logging struct {
		// Formats is the local sink's format: the first valid entry of
		// logfmt, json, journald or none.
		Formats []string `json:"formats,omitempty"`
		// Extra lists sinks added to the local one: otlp.
		Extra []string `json:"extra,omitempty"`
		OTLP  struct {
			Endpoint  *string `json:"endpoint,omitempty"`
			TimeoutMs *int    `json:"timeoutMs,omitempty"`
		} `json:"otlp"`
	} `json:"logging"`
}

// Telemetry reads the telemetry section; an absent section is the zero
// value.
func (c *Config) Telemetry() (Telemetry, error) {
	var t Telemetry
	if err := c.Check("telemetry"); err != nil {
		return t, err
	}
	if err := c.Decode(&t, "telemetry"); err != nil {
		return t, err
	}
	return t, nil
}

// TelemetrySettings merges the telemetry flags of cli over the config's
// telemetry section, as the original does (docs/ai-agent.md "Telemetry
// and cost"): a flag given beats the file's value; an invalid port,
// timeout, sampler or ratio is warned about and ignored. getenv reads
// the OTLP protocol variables. enabled is false when neither turns
// telemetry on; the caller adds the mode, version, token and the kill
// switch.
func (c *Config) TelemetrySettings(cli CLI, getenv func(string) string) (set telemetry.Settings, enabled bool, warnings []string, err error) {
	tc, err := c.Telemetry()
	if err != nil {
		return set, false, nil, err
	}
	flag := func(name string, cfgVal *bool) bool {
		if v, ok := cli.Bools[name]; ok {
			return v
		}
		return cfgVal != nil && *cfgVal
	}
	if !flag("telemetry-enabled", tc.Enabled) {
		return set, false, nil, nil
	}
	warn := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	set = telemetry.Settings{Labels: map[string]string{}, Sampler: telemetry.SamplerParent, Ratio: telemetry.DefaultRatio}
	for k, v := range tc.Labels {
		set.Labels[k] = v
	}
	for _, kv := range cli.Lists["telemetry-label"] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			warn("Invalid telemetry label '%s', expected key=value", kv)
			continue
		}
		set.Labels[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	set.Prometheus = flag("telemetry-prometheus-enabled", tc.Prometheus.Enabled)
	set.Traces = flag("telemetry-traces-enabled", tc.Traces.Enabled)
	host, port := telemetry.DefaultPrometheusHost, telemetry.DefaultPrometheusPort
	if tc.Prometheus.Host != nil {
		host = *tc.Prometheus.Host
	}
	if tc.Prometheus.Port != nil {
		port = *tc.Prometheus.Port
	}
	if v, ok := cli.Flags["telemetry-prometheus-host"]; ok {
		host = v
	}
	if v, ok := cli.Flags["telemetry-prometheus-port"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= 65535 {
			port = n
		} else {
			warn("Ignoring invalid --telemetry-prometheus-port value '%s'", v)
		}
	}
	set.PrometheusAddr = net.JoinHostPort(host, strconv.Itoa(port))
	if tc.OTLP.Endpoint != nil {
		set.Endpoint = *tc.OTLP.Endpoint
	}
	if v, ok := cli.Flags["telemetry-otlp-endpoint"]; ok {
		set.Endpoint = v
	}
	if tc.OTLP.TimeoutMs != nil && *tc.OTLP.TimeoutMs > 0 {
		set.Timeout = time.Duration(*tc.OTLP.TimeoutMs) * time.Millisecond
	}
	if v, ok := cli.Flags["telemetry-otlp-timeout-ms"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			set.Timeout = time.Duration(n) * time.Millisecond
		} else {
			warn("Ignoring invalid --telemetry-otlp-timeout-ms value '%s'", v)
		}
	}
	warnings = append(warnings, sampling(&set, tc, cli.Flags)...)
	set.Protocol = otlpProtocol(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", warn)
	// The metrics are pushed over OTLP whenever telemetry is on, as the
	// original does (its main export path).
	set.PushMetrics = true
	set.MetricsProtocol = otlpProtocol(getenv, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", warn)
	warnings = append(warnings, logExport(&set, tc, cli, getenv)...)
	return set, true, warnings, nil
}

// logExport fills the OTLP log export: on when --telemetry-log-extra (or
// else telemetry.logging.extra) holds otlp, to the logging endpoint and
// timeout when given (flag beats file), else the telemetry OTLP ones.
func logExport(set *telemetry.Settings, tc Telemetry, cli CLI, getenv func(string) string) (warnings []string) {
	extra, what := tc.Logging.Extra, "telemetry.logging.extra"
	if v, ok := cli.Lists["telemetry-log-extra"]; ok {
		extra, what = v, "--telemetry-log-extra"
	}
	otlp, warnings := telemetry.LogExtras(extra, what)
	if !otlp {
		return warnings
	}
	set.Logs = true
	if tc.Logging.OTLP.Endpoint != nil {
		set.LogsEndpoint = *tc.Logging.OTLP.Endpoint
	}
	if v, ok := cli.Flags["telemetry-logging-otlp-endpoint"]; ok {
		set.LogsEndpoint = v
	}
	if tc.Logging.OTLP.TimeoutMs != nil && *tc.Logging.OTLP.TimeoutMs > 0 {
		set.LogsTimeout = time.Duration(*tc.Logging.OTLP.TimeoutMs) * time.Millisecond
	}
	if v, ok := cli.Flags["telemetry-logging-otlp-timeout-ms"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			set.LogsTimeout = time.Duration(n) * time.Millisecond
		} else {
			warnings = append(warnings, fmt.Sprintf("Ignoring invalid --telemetry-logging-otlp-timeout-ms value '%s'", v))
		}
	}
	set.LogsProtocol = otlpProtocol(getenv, "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", func(f string, a ...any) {
		warnings = append(warnings, fmt.Sprintf(f, a...))
	})
	return warnings
}

// TelemetryLogFormat is the local log sink's format from the config's
// telemetry.logging.formats ("" when it names none), with the warnings
// for its invalid entries. The --telemetry-log-format flag, when given,
// wins over it; the caller checks that.
func (c *Config) TelemetryLogFormat() (string, []string, error) {
	tc, err := c.Telemetry()
	if err != nil {
		return "", nil, err
	}
	f, warnings := telemetry.PickLogFormat(tc.Logging.Formats, "telemetry.logging.formats")
	return f, warnings, nil
}

// otlpProtocol is the OTLP protocol of one signal: its own variable, else
// OTEL_EXPORTER_OTLP_PROTOCOL; grpc unless one says http/protobuf.
func otlpProtocol(getenv func(string) string, signalVar string, warn func(string, ...any)) string {
	proto := getenv(signalVar)
	if proto == "" {
		proto = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.TrimSpace(proto) {
	case "", telemetry.ProtocolGRPC:
	case telemetry.ProtocolHTTP:
		return telemetry.ProtocolHTTP
	default:
		warn("unsupported OTLP protocol %q (%s); using grpc", proto, signalVar)
	}
	return telemetry.ProtocolGRPC
}

// sampling fills the trace sampler and its ratio: the flag beats the
// file; an invalid value of either is warned about and ignored.
func sampling(set *telemetry.Settings, tc Telemetry, flags map[string]string) (warnings []string) {
	sampler, what := "", "telemetry.traces.sampler"
	if tc.Traces.Sampler != nil {
		sampler = *tc.Traces.Sampler
	}
	if v, ok := flags["telemetry-trace-sampler"]; ok {
		sampler, what = v, "--telemetry-trace-sampler"
	}
	if sampler != "" {
		if s, ok := telemetry.NormalizeSampler(sampler); ok {
			set.Sampler = s
		} else {
			warnings = append(warnings, fmt.Sprintf("Ignoring invalid %s value '%s'", what, sampler))
		}
	}
	if tc.Traces.Ratio != nil && *tc.Traces.Ratio >= 0 && *tc.Traces.Ratio <= 1 {
		set.Ratio = *tc.Traces.Ratio
	}
	if v, ok := flags["telemetry-trace-ratio"]; ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
			set.Ratio = f
		} else {
			warnings = append(warnings, fmt.Sprintf("Ignoring invalid --telemetry-trace-ratio value '%s'", v))
		}
	}
	return warnings
}
