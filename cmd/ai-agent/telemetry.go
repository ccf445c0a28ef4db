package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
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
	{names: []string{"telemetry-otlp-endpoint"}, usage: "OTLP collector of the metrics and traces: host:port or a grpc://, http:// or https:// URL", def: "URL"},
	{names: []string{"telemetry-otlp-timeout-ms"}, usage: "OTLP export timeout in milliseconds", def: "2000"},
	{names: []string{"telemetry-prometheus-enabled"}, kind: flagBool, usage: "serve Prometheus GET /metrics (needs --telemetry-enabled)", def: "off"},
	{names: []string{"telemetry-prometheus-host"}, usage: "host the metrics listener binds", def: telemetry.DefaultPrometheusHost},
	{names: []string{"telemetry-prometheus-port"}, usage: "port of the metrics listener", def: strconv.Itoa(telemetry.DefaultPrometheusPort)},
	{names: []string{"telemetry-traces-enabled"}, kind: flagBool, usage: "export OTLP traces (needs --telemetry-enabled)", def: "off"},
	{names: []string{"telemetry-trace-sampler"}, usage: "always_on, always_off, ratio or parent", def: telemetry.SamplerParent},
	{names: []string{"telemetry-trace-ratio"}, usage: "root sampling ratio of the ratio sampler, 0-1", def: "0.1"},
	{names: []string{"telemetry-label"}, kind: flagList, usage: "KEY=VALUE label on every metric; repeatable"},
	{names: []string{"telemetry-log-format"}, kind: flagList, usage: "stderr log format: logfmt, json, journald (written as logfmt) or none; the first valid one wins", def: telemetry.LogFormatLogfmt},
	{names: []string{"telemetry-log-extra"}, kind: flagList, usage: "extra log sinks: otlp exports the log records (needs --telemetry-enabled)", def: "none"},
	{names: []string{"telemetry-logging-otlp-endpoint"}, usage: "OTLP collector of the log records", def: "the OTLP endpoint"},
	{names: []string{"telemetry-logging-otlp-timeout-ms"}, usage: "OTLP log export timeout in milliseconds", def: "the OTLP timeout"},
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
	// The log records stop going to the helper before its input closes,
	// so a record logged from here on is not a failed write.
	if lh, ok := ts.log.Handler().(*telemetry.LogHandler); ok {
		lh.Attach(nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ts.timeout+2*time.Second)
	defer cancel()
	if err := ts.helper.Close(ctx); err != nil {
		ts.log.Warn("telemetry shutdown", "error", err)
	}
}

// telemetryOptions sets a session's observer.
func (st *startup) telemetryOptions(o *agent.Options) error {
	st.logFormat()
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
	sessionLogger(o)
	return nil
}

// logFormat applies the config's telemetry.logging.formats to the stderr
// log, unless --telemetry-log-format was given.
func (st *startup) logFormat() {
	h, ok := st.log.Handler().(*telemetry.LogHandler)
	if _, given := st.a.lists["telemetry-log-format"]; given || !ok {
		return
	}
	f, warnings, err := st.cfg.TelemetryLogFormat()
	if err != nil {
		return
	}
	for _, w := range warnings {
		st.deps.notes.warn(st.log, w)
	}
	if f != "" {
		h.SetFormat(f)
	}
}

// sessionLogger gives the session a logger whose exported log records
// carry its tracing ids and headend.
func sessionLogger(o *agent.Options) {
	if h, ok := o.Logger.Handler().(*telemetry.LogHandler); ok {
		o.Logger = slog.New(h.ForSession(o.Trace, o.Headend))
	}
}

// newLogger is the run's logger: stderr in the --telemetry-log-format
// format at the level of --quiet, --verbose and the trace flags; its
// records also go to the OTLP log export once telemetry starts it.
func newLogger(stderr io.Writer, a *cliArgs) *slog.Logger {
	level := slog.LevelWarn
	switch {
	case a.bools["quiet"]:
		level = slog.LevelError
	case a.bools["verbose"] || a.bools["trace-llm"] || a.bools["trace-mcp"]:
		level = slog.LevelDebug
	}
	format, warnings := telemetry.PickLogFormat(a.lists["telemetry-log-format"], "--telemetry-log-format")
	a.warnings = append(a.warnings, warnings...)
	return slog.New(telemetry.NewLogHandler(stderr, format, level))
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
func (st *startup) forHeadend(o *agent.Options, kind string) {
	o.Headend = kind
	sessionLogger(o)
	limit := st.set.HeadendMaxCostUSD
	ts := st.deps.tel
	if limit <= 0 || ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.budgets[kind] == nil {
		ts.budgets[kind] = agent.NewBudget("headend "+kind+" maxCostUsd", limit)
	}
	o.Budgets = append(o.Budgets, ts.budgets[kind])
}

// start resolves the settings (the config's telemetry section, then the
// flags given) and starts the helper; nil when telemetry is off.
func (ts *telemetryState) start(cfg *config.Config) (*telemetry.Helper, error) {
	if telemetry.Disabled(ts.getenv) {
		return nil, nil
	}
	a := ts.a
	set, enabled, warnings, err := cfg.TelemetrySettings(a.cli(), ts.getenv)
	if err != nil || !enabled {
		return nil, err
	}
	for _, w := range warnings {
		ts.log.Warn(w)
	}
	set.Mode, set.Version = telemetry.ModeCLI, buildinfo.Version(version)
	if len(a.headends) > 0 {
		set.Mode = telemetry.ModeServer
	}
	set.Token = a.values["headend-token"]
	if set.Token == "" {
		set.Token = ts.getenv(headend.DefaultTokenEnv)
	}
	set.Insecure = a.bools["insecure-no-token"]
	if set.Timeout > 0 {
		ts.timeout = set.Timeout
	}
	ts.timeout = max(ts.timeout, set.LogsTimeout)
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
	if lh, ok := ts.log.Handler().(*telemetry.LogHandler); ok && set.Logs {
		lh.Attach(h.Relay)
	}
	return h, nil
}
