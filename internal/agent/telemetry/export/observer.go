package export

import (
	"context"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/telemetry"
)

var _ agent.Observer = (*Recorder)(nil)

// sessionKey holds the session's labels in the engine's context.
type sessionKey struct{}

type sessionLabels struct{ agent, callPath, headend string }

func labelsOf(ctx context.Context) sessionLabels {
	if l, ok := ctx.Value(sessionKey{}).(sessionLabels); ok {
		return l
	}
	return sessionLabels{agent: "unknown", callPath: "unknown", headend: "cli"}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// span starts a span when traces are on; the returned span is a no-op
// otherwise.
func (r *Recorder) span(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if r.tracer == nil {
		return ctx, trace.SpanFromContext(context.Background())
	}
	return r.tracer.Start(ctx, name, trace.WithAttributes(attrs...))
}

func nonEmpty(attrs []attribute.KeyValue, key, v string) []attribute.KeyValue {
	if v != "" {
		attrs = append(attrs, attribute.String(key, v))
	}
	return attrs
}

// StartSession opens the agent.session span and keeps the session's
// labels for its events.
func (r *Recorder) StartSession(ctx context.Context, info agent.SessionInfo) (context.Context, func(agent.SessionEnd)) {
	t := info.Trace
	l := sessionLabels{agent: orUnknown(t.AgentID), callPath: t.CallPath, headend: info.Headend}
	if l.callPath == "" {
		l.callPath = l.agent
	}
	if l.headend == "" {
		l.headend = "cli"
	}
	ctx = context.WithValue(ctx, sessionKey{}, l)
	var attrs []attribute.KeyValue
	attrs = nonEmpty(attrs, "ai.agent.id", t.AgentID)
	attrs = nonEmpty(attrs, "ai.agent.call_path", l.callPath)
	attrs = nonEmpty(attrs, "ai.session.txn_id", t.TxnID)
	attrs = nonEmpty(attrs, "ai.session.parent_txn_id", t.ParentTxnID)
	attrs = nonEmpty(attrs, "ai.session.origin_txn_id", t.OriginTxnID)
	attrs = nonEmpty(attrs, "ai.session.headend_id", info.Headend)
	ctx, sp := r.span(ctx, "agent.session", attrs...)
	return ctx, func(end agent.SessionEnd) {
		sp.SetAttributes(attribute.Bool("ai.agent.success", end.Success), attribute.Int("ai.agent.turn_count", end.Turns),
			attribute.Float64("ai.agent.cost_usd", end.CostUSD))
		if end.ReportStatus != "" {
			sp.SetAttributes(attribute.String("ai.agent.final_report.status", end.ReportStatus))
		}
		if !end.Success {
			sp.SetStatus(codes.Error, end.Error)
		}
		sp.End()
	}
}

// StartTurn opens the agent.turn span (a salve extension).
func (r *Recorder) StartTurn(ctx context.Context, turn int) (context.Context, func()) {
	ctx, sp := r.span(ctx, "agent.turn", attribute.Int("ai.turn.index", turn))
	return ctx, func() { sp.End() }
}

// StartLLM opens the agent.llm span (a salve extension) and, at its end,
// records the LLM metrics.
func (r *Recorder) StartLLM(ctx context.Context, t agent.LLMTarget) (context.Context, func(agent.LLMEvent)) {
	l := labelsOf(ctx)
	ctx, sp := r.span(ctx, "agent.llm", attribute.String("ai.llm.provider", t.Provider), attribute.String("ai.llm.model", t.Model))
	return ctx, func(ev agent.LLMEvent) {
		e := ev.Entry
		status := "success"
		if e.Status != contract.AccountingOK {
			status = "error"
		}
		lv := []string{l.agent, l.callPath, t.Provider, t.Model, l.headend, status, t.Reasoning}
		m := r.metrics
		ms := float64(ev.Latency.Microseconds()) / 1000
		m.llmLatency.WithLabelValues(lv...).Observe(max(ms, 0))
		m.llmRequests.WithLabelValues(lv...).Inc()
		addPositive(m.llmBytesIn.WithLabelValues(lv...), float64(ev.RequestBytes))
		addPositive(m.llmBytesOut.WithLabelValues(lv...), float64(ev.ResponseBytes))
		if ev.Attempt > 1 {
			m.llmRetries.WithLabelValues(lv...).Inc()
		}
		sp.SetAttributes(attribute.String("ai.llm.status", status), attribute.Float64("ai.llm.latency_ms", ms))
		if u := e.Tokens; u != nil {
			addPositive(m.llmPrompt.WithLabelValues(lv...), float64(u.InputTokens))
			addPositive(m.llmCompletion.WithLabelValues(lv...), float64(u.OutputTokens))
			read := u.CacheReadInputTokens
			if read == nil {
				read = u.CachedTokens
			}
			if read != nil {
				addPositive(m.llmCacheRead.WithLabelValues(lv...), float64(*read))
			}
			if u.CacheWriteInputTokens != nil {
				addPositive(m.llmCacheWrite.WithLabelValues(lv...), float64(*u.CacheWriteInputTokens))
			}
			sp.SetAttributes(attribute.Int("ai.llm.input_tokens", u.InputTokens), attribute.Int("ai.llm.output_tokens", u.OutputTokens))
		}
		if e.CostUSD != nil {
			addPositive(m.llmCost.WithLabelValues(lv...), *e.CostUSD)
			sp.SetAttributes(attribute.Float64("ai.llm.cost_usd", *e.CostUSD))
		}
		if status == "error" {
			m.llmErrors.WithLabelValues(append(lv, orUnknown(ev.ErrorClass))...).Inc()
			sp.SetStatus(codes.Error, e.Error)
		}
		sp.End()
	}
}

// StartTool opens the agent.tool span and, at its end, records the tool
// metrics.
func (r *Recorder) StartTool(ctx context.Context, name string) (context.Context, func(agent.ToolEvent)) {
	l := labelsOf(ctx)
	ctx, sp := r.span(ctx, "agent.tool", attribute.String("ai.tool.requested_name", name), attribute.String("ai.tool.call_path", l.callPath))
	return ctx, func(ev agent.ToolEvent) {
		status := "success"
		if ev.Error != "" {
			status = "error"
		}
		lv := []string{l.agent, l.callPath, ev.Name, orUnknown(ev.Kind), ev.Provider, l.headend, status}
		m := r.metrics
		ms := float64(ev.Latency.Microseconds()) / 1000
		m.toolLatency.WithLabelValues(lv...).Observe(max(ms, 0))
		m.toolCalls.WithLabelValues(lv...).Inc()
		addPositive(m.toolIn.WithLabelValues(lv...), float64(ev.InputBytes))
		addPositive(m.toolOut.WithLabelValues(lv...), float64(ev.OutputBytes))
		sp.SetAttributes(attribute.String("ai.tool.name", ev.Name), attribute.String("ai.tool.provider", ev.Provider),
			attribute.String("ai.tool.kind", ev.Kind), attribute.String("ai.tool.status", status), attribute.Float64("ai.tool.latency_ms", ms))
		if status == "error" {
			m.toolErrors.WithLabelValues(append(lv, orUnknown(ev.ErrorType))...).Inc()
			sp.AddEvent("tool.manage.error", trace.WithAttributes(attribute.String("ai.tool.name", ev.Name), attribute.String("ai.tool.error", ev.Error)))
			sp.SetStatus(codes.Error, ev.Error)
		} else {
			sp.SetAttributes(attribute.Int("ai.tool.input_bytes", ev.InputBytes), attribute.Int("ai.tool.output_bytes", ev.OutputBytes))
		}
		sp.End()
	}
}

// Queue records a passage through a tool queue: the queue's load at each
// event (the slots held, and the calls waiting; without the load, the depth
// met on arrival), and the wait at the slot's grant.
func (r *Recorder) Queue(_ context.Context, ev agent.QueueEvent) {
	m := r.metrics
	capacity := ""
	if ev.Capacity > 0 {
		capacity = strconv.Itoa(ev.Capacity)
		m.queueInUse.WithLabelValues(ev.Queue, capacity).Set(float64(max(ev.InUse, 0)))
		m.queueDepth.WithLabelValues(ev.Queue, capacity).Set(float64(max(ev.Waiting, 0)))
	} else if !ev.Released {
		m.queueDepth.WithLabelValues(ev.Queue, capacity).Set(float64(max(ev.Depth, 0)))
	}
	if ev.Released {
		return
	}
	ms := float64(ev.Wait.Microseconds()) / 1000
	m.queueLastWait.WithLabelValues(ev.Queue).Set(ms)
	m.queueWait.WithLabelValues(ev.Queue).Observe(max(ms, 0))
}

// ContextGuard records a context guard activation, and the tokens that
// were left under the limit (at least 0) when the guard reports them; an
// activation without them drops its series' last value, as the original
// does.
func (r *Recorder) ContextGuard(ctx context.Context, ev agent.GuardEvent) {
	l := labelsOf(ctx)
	lv := []string{l.agent, l.callPath, orUnknown(ev.Provider), orUnknown(ev.Model), ev.Trigger, ev.Outcome, l.headend}
	r.metrics.guardEvents.WithLabelValues(lv...).Inc()
	if ev.Measure != nil {
		r.metrics.guardRemaining.WithLabelValues(lv...).Set(float64(max(ev.Measure.Remaining, 0)))
	} else {
		r.metrics.guardRemaining.DeleteLabelValues(lv...)
	}
	trace.SpanFromContext(ctx).AddEvent("context_guard", trace.WithAttributes(attribute.String("ai.context_guard.trigger", ev.Trigger),
		attribute.String("ai.context_guard.outcome", ev.Outcome)))
}

// FinalReport records the session's final report.
func (r *Recorder) FinalReport(ctx context.Context, ev agent.FinalReportEvent) {
	l := labelsOf(ctx)
	lv := []string{l.agent, l.callPath, l.headend, ev.Source, ev.ForcedFinalReason, ev.SyntheticReason}
	r.metrics.reportTotal.WithLabelValues(lv...).Inc()
	addPositive(r.metrics.reportAttempts.WithLabelValues(lv...), float64(ev.Attempts))
	if ev.Turns > 0 {
		r.metrics.reportTurns.WithLabelValues(lv...).Observe(float64(ev.Turns))
	}
}

// RetryCollapse records that the remaining turns were collapsed.
func (r *Recorder) RetryCollapse(ctx context.Context, reason string) {
	l := labelsOf(ctx)
	r.metrics.retryCollapse.WithLabelValues(l.agent, l.callPath, l.headend, reason).Inc()
}

// MCPServer records a change of a supervised MCP server's state: whether
// it is up, and each restart attempt with its outcome.
func (r *Recorder) MCPServer(ev telemetry.MCPEvent) {
	lv := []string{orUnknown(ev.Agent), orUnknown(ev.Server)}
	up := 0.0
	if ev.Up {
		up = 1
	}
	r.metrics.mcpUp.WithLabelValues(lv...).Set(up)
	if ev.Restart != "" {
		r.metrics.mcpRestarts.WithLabelValues(append(lv, ev.Restart)...).Inc()
	}
}
