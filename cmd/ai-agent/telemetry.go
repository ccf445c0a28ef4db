package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
	"github.com/salve-dev/salve/internal/agent/headend"
	"github.com/salve-dev/salve/internal/agent/telemetry"
	"github.com/salve-dev/salve/internal/agent/tools/mcp"
	"github.com/salve-dev/salve/internal/buildinfo"
)

// telemetryFlags are the telemetry and cost flags, with the original's
// spellings (docs/ai-agent.md "Telemetry and cost").
var telemetryFlags = []flagDef{
	{names: []string{"telemetry-enabled"}, kind: flagBool, usage: "turn on metrics (and traces with --telemetry-traces-enabled)", def: "off"},
	{names: []string{"telemetry-otlp-endpoint"}, usage: "OTLP trace collector: host:port or a grpc://, http:// or https:// URL", def: "URL"},
	{names: []string{"telemetry-otlp-timeout-ms"}, usage: "OTLP export timeout in milliseconds", def: "2000"},
	{names: []string{"telemetry-prometheus-enabled"}, kind: flagBool, usage: "serve Prometheus GET /metrics (needs --telemetry-enabled)", def: "off"},
	{names: []string{"telemetry-prometheus-host"}, usage: "host the metrics listener binds", def: telemetry.DefaultPrometheusHost},
	{names: []string{"telemetry-prometheus-port"}, usage: "port of the metrics listener", def: strconv.Itoa(telemetry.DefaultPrometheusPort)},
	{names: []string{"telemetry-traces-enabled"}, kind: flagBool, usage: "export OTLP traces (needs --telemetry-enabled)", def: "off"},
	{names: []string{"telemetry-trace-sampler"}, usage: "always_on, always_off, ratio or parent", def: telemetry.SamplerParent},
	{names: []string{"telemetry-trace-ratio"}, usage: "root sampling ratio of the ratio sampler, 0-1", def: "0.1"},
	{names: []string{"telemetry-label"}, kind: flagList, usage: "KEY=VALUE label on every metric; repeatable"},
	{names: []string{"telemetry-log-format", "telemetry-log-extra", "telemetry-logging-otlp-endpoint", "telemetry-logging-otlp-timeout-ms"}, kind: flagIgnoredValue},
	{names: []string{"max-cost-usd"}, usage: "end a session whose LLM cost reaches this many USD", def: "none"},
	{names: []string{"headend-max-cost-usd"}, usage: "end sessions once a headend's total LLM cost reaches this many USD", def: "none"},
}

// telemetryState is the process's telemetry: started once, from the first
// agent's config and the flags, and shut down (spans flushed) before the
// process exits. It also holds the headends' cost budgets.
type telemetryState struct {
	a      *cliArgs
	stderr io.Writer
	log    *slog.Logger
	getenv func(string) string

	// helperPath is the helper program; "" looks it up.
	helperPath string

	once   sync.Once
	helper *telemetry.Helper
	err    error
	// timeout bounds each export; the final flush gets a second more.
	timeout time.Duration

	mu      sync.Mutex
	budgets map[string]*agent.Budget
}

func newTelemetryState(d deps, a *cliArgs, stderr io.Writer, log *slog.Logger) *telemetryState {
	return &telemetryState{a: a, stderr: stderr, log: log, getenv: os.Getenv, budgets: map[string]*agent.Budget{},
		helperPath: d.telemetryHelper, timeout: telemetry.DefaultTimeout}
}

// shutdown flushes and stops the telemetry, bounded by the export timeout
// plus a second.
func (ts *telemetryState) shutdown() {
	if ts == nil || ts.helper == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), ts.timeout+2*time.Second)
	defer cancel()
	if err := ts.helper.Close(ctx); err != nil {
		ts.log.Warn("telemetry shutdown", "error", err)
	}
}

// telemetryOptions sets a session's observer, pricing table and cost cap.
func (st *startup) telemetryOptions(o *agent.Options) error {
	pricing, err := st.cfg.Pricing()
	if err != nil {
		return err
	}
	if len(pricing) > 0 {
		o.Pricer = pricing
		if !st.subAgent {
			if miss := pricing.Missing(st.list("models", st.fm.Models)); len(miss) > 0 {
				st.log.Warn(fmt.Sprintf("Missing pricing entries for %d model(s): %s", len(miss), strings.Join(miss, ", ")), "remote", "agent:pricing")
			}
		}
	}
	budgets, err := st.cfg.Budgets()
	if err != nil {
		return err
	}
	if !st.subAgent {
		o.MaxCostUSD = budgets.MaxCostUSD
		if v, ok := st.a.values["max-cost-usd"]; ok {
			if o.MaxCostUSD, err = usd("--max-cost-usd", v); err != nil {
				return err
			}
		}
	}
	ts := st.deps.tel
	if ts == nil || st.dryRun {
		return nil
	}
	ts.once.Do(func() { ts.helper, ts.err = ts.start(st.cfg) })
	if ts.err != nil {
		return ts.err
	}
	if ts.helper != nil {
		o.Observer = ts.helper.Relay
	}
	return nil
}

// mcpObserver returns the OnState of a headend agent's supervised MCP
// servers: each change of state goes to the metrics. It is nil without
// telemetry.
func (ts *telemetryState) mcpObserver(agent string) func(mcp.State) {
	if ts == nil || ts.helper == nil {
		return nil
	}
	relay := ts.helper.Relay
	return func(s mcp.State) {
		ev := telemetry.MCPEvent{Agent: agent, Server: s.Server, Up: s.Up, Error: s.Err}
		switch s.Event {
		case mcp.EventRestarted:
			ev.Restart = telemetry.RestartSuccess
		case mcp.EventRestartFailed:
			ev.Restart = telemetry.RestartError
		}
		relay.MCPServer(ev)
	}
}

// forHeadend marks a headend session: its headend label and the headend's
// shared cost budget.
func (st *startup) forHeadend(o *agent.Options, kind string) error {
	o.Headend = kind
	b, err := st.cfg.Budgets()
	if err != nil {
		return err
	}
	limit := b.HeadendMaxCostUSD
	if v, ok := st.a.values["headend-max-cost-usd"]; ok {
		if limit, err = usd("--headend-max-cost-usd", v); err != nil {
			return err
		}
	}
	ts := st.deps.tel
	if limit <= 0 || ts == nil {
		return nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.budgets[kind] == nil {
		ts.budgets[kind] = agent.NewBudget("headend "+kind+" maxCostUsd", limit)
	}
	o.Budgets = append(o.Budgets, ts.budgets[kind])
	return nil
}

func usd(flag, v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%w: %s must be a non-negative number of USD", config.ErrConfig, flag)
	}
	return f, nil
}

// start resolves the settings (the config's telemetry section, then the
// flags given) and starts the helper; nil when telemetry is off.
func (ts *telemetryState) start(cfg *config.Config) (*telemetry.Helper, error) {
	if telemetry.Disabled(ts.getenv) {
		return nil, nil
	}
	tc, err := cfg.Telemetry()
	if err != nil {
		return nil, err
	}
	a := ts.a
	flagBool := func(name string, cfgVal *bool) bool {
		if v, ok := a.bools[name]; ok {
			return v
		}
		return cfgVal != nil && *cfgVal
	}
	if !flagBool("telemetry-enabled", tc.Enabled) {
		return nil, nil
	}
	set := telemetry.Settings{Mode: telemetry.ModeCLI, Version: buildinfo.Version(version), Labels: map[string]string{},
		Sampler: telemetry.SamplerParent, Ratio: telemetry.DefaultRatio}
	if len(a.headends) > 0 {
		set.Mode = telemetry.ModeServer
	}
	ts.labels(set.Labels, tc.Labels)
	set.Prometheus = flagBool("telemetry-prometheus-enabled", tc.Prometheus.Enabled)
	set.Traces = flagBool("telemetry-traces-enabled", tc.Traces.Enabled)
	host, port := telemetry.DefaultPrometheusHost, telemetry.DefaultPrometheusPort
	if tc.Prometheus.Host != nil {
		host = *tc.Prometheus.Host
	}
	if tc.Prometheus.Port != nil {
		port = *tc.Prometheus.Port
	}
	if v, ok := a.values["telemetry-prometheus-host"]; ok {
		host = v
	}
	if v, ok := a.values["telemetry-prometheus-port"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n <= 65535 {
			port = n
		} else {
			ts.log.Warn(fmt.Sprintf("Ignoring invalid --telemetry-prometheus-port value '%s'", v))
		}
	}
	set.PrometheusAddr = net.JoinHostPort(host, strconv.Itoa(port))
	set.Token = a.values["headend-token"]
	if set.Token == "" {
		set.Token = ts.getenv(headend.DefaultTokenEnv)
	}
	set.Insecure = a.bools["insecure-no-token"]
	ts.traceSettings(&set, tc)
	if set.Timeout > 0 {
		ts.timeout = set.Timeout
	}
	path := ts.helperPath
	if path == "" {
		var err error
		if path, err = telemetry.FindHelper(); err != nil {
			return nil, fmt.Errorf("%w: telemetry: %w", errInit, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := telemetry.StartHelper(ctx, path, set, ts.stderr)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errInit, err)
	}
	if h.Ready.Warning != "" {
		fmt.Fprintf(ts.stderr, "ai-agent: %s\n", h.Ready.Warning)
	}
	if h.Ready.Addr != "" {
		fmt.Fprintf(ts.stderr, "ai-agent: telemetry metrics listening on %s\n", h.Ready.Addr)
	}
	return h, nil
}

// labels merges the config's labels with --telemetry-label KEY=VALUE
// (the command line wins).
func (ts *telemetryState) labels(dst, cfg map[string]string) {
	for k, v := range cfg {
		dst[k] = v
	}
	for _, kv := range ts.a.lists["telemetry-label"] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			ts.log.Warn(fmt.Sprintf("Invalid telemetry label '%s', expected key=value", kv))
			continue
		}
		dst[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
}

// traceSettings fills the exporter, protocol and sampler settings.
func (ts *telemetryState) traceSettings(set *telemetry.Settings, tc config.Telemetry) {
	a := ts.a
	if tc.OTLP.Endpoint != nil {
		set.Endpoint = *tc.OTLP.Endpoint
	}
	if v, ok := a.values["telemetry-otlp-endpoint"]; ok {
		set.Endpoint = v
	}
	if tc.OTLP.TimeoutMs != nil && *tc.OTLP.TimeoutMs > 0 {
		set.Timeout = time.Duration(*tc.OTLP.TimeoutMs) * time.Millisecond
	}
	if v, ok := a.values["telemetry-otlp-timeout-ms"]; ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			set.Timeout = time.Duration(n) * time.Millisecond
		} else {
			ts.log.Warn(fmt.Sprintf("Ignoring invalid --telemetry-otlp-timeout-ms value '%s'", v))
		}
	}
	sampler, flag := "", false
	if tc.Traces.Sampler != nil {
		sampler = *tc.Traces.Sampler
	}
	if v, ok := a.values["telemetry-trace-sampler"]; ok {
		sampler, flag = v, true
	}
	if sampler != "" {
		if s, ok := telemetry.NormalizeSampler(sampler); ok {
			set.Sampler = s
		} else if flag {
			ts.log.Warn(fmt.Sprintf("Ignoring invalid --telemetry-trace-sampler value '%s'", sampler))
		} else {
			ts.log.Warn(fmt.Sprintf("Ignoring invalid telemetry.traces.sampler value '%s'", sampler))
		}
	}
	if tc.Traces.Ratio != nil && *tc.Traces.Ratio >= 0 && *tc.Traces.Ratio <= 1 {
		set.Ratio = *tc.Traces.Ratio
	}
	if v, ok := a.values["telemetry-trace-ratio"]; ok {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
			set.Ratio = f
		} else {
			ts.log.Warn(fmt.Sprintf("Ignoring invalid --telemetry-trace-ratio value '%s'", v))
		}
	}
	set.Protocol = telemetry.ProtocolGRPC
	proto := ts.getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = ts.getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.TrimSpace(proto) {
	case "", telemetry.ProtocolGRPC:
	case telemetry.ProtocolHTTP:
		set.Protocol = telemetry.ProtocolHTTP
	default:
		ts.log.Warn("unsupported OTLP protocol; using grpc", "protocol", proto)
	}
}
