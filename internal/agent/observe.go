package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/salve-dev/salve/contract"
)

// Observer receives the engine's events for telemetry (metrics and traces,
// docs/ai-agent.md "Telemetry and cost"). The engine calls it on the
// session's goroutines, tool calls concurrently, so an implementation must
// be safe for concurrent use and must not block. The Start methods return
// the context the engine uses inside that step (a span's context) and the
// function that ends the step. A nil Options.Observer records nothing.
type Observer interface {
	StartSession(ctx context.Context, info SessionInfo) (context.Context, func(SessionEnd))
	StartTurn(ctx context.Context, turn int) (context.Context, func())
	StartLLM(ctx context.Context, target LLMTarget) (context.Context, func(LLMEvent))
	StartTool(ctx context.Context, name string) (context.Context, func(ToolEvent))
	Queue(ctx context.Context, ev QueueEvent)
	ContextGuard(ctx context.Context, ev GuardEvent)
	FinalReport(ctx context.Context, ev FinalReportEvent)
	RetryCollapse(ctx context.Context, reason string)
}

// SessionInfo describes a session as it starts.
type SessionInfo struct {
	Trace Trace
	// Headend is the headend that asked for the session; "" is the CLI.
	Headend string
}

// SessionEnd is how a session ended.
type SessionEnd struct {
	Success bool
	Turns   int
	// ReportStatus is the final report's status, "" without one.
	ReportStatus string
	Error        string
	// CostUSD is the session's LLM cost from its accounting.
	CostUSD float64
}

// LLMTarget names the provider and model of one LLM attempt.
type LLMTarget struct {
	Provider  string
	Model     string
	Reasoning string
}

// LLMEvent is the outcome of one LLM attempt: its accounting entry (with
// costUsd), its latency and, on failure, the error class.
type LLMEvent struct {
	Entry      contract.AccountingEntry
	Latency    time.Duration
	ErrorClass string
	// Attempt counts the attempts of the turn from 1; a later one is a
	// retry (after a failure, or an answer the engine refused).
	Attempt int
	// RequestBytes and ResponseBytes are the bodies sent and read on the
	// wire (llm.Meter); 0 for a provider without a wire (test-llm).
	RequestBytes, ResponseBytes int64
}

// ToolEvent is the outcome of one tool call.
type ToolEvent struct {
	Name string
	// Kind is mcp, rest, agent or command.
	Kind string
	// Provider is "mcp:<server>" for MCP tools, else the tool's server.
	Provider    string
	Latency     time.Duration
	InputBytes  int
	OutputBytes int
	// Error is empty on success; ErrorType classifies it for metrics.
	Error     string
	ErrorType string
}

// QueueEvent is one tool call's passage through a concurrency queue: one
// event when it got its slot, and one with Released when it gave it back.
type QueueEvent struct {
	Queue string
	Wait  time.Duration
	// Depth is the number of calls in the queue on arrival.
	Depth int
	// Released marks the event of the slot's release (Wait and Depth are
	// then zero).
	Released bool
	// InUse, Waiting and Capacity are the queue's load after the event:
	// the slots held, the calls in line and the bound. They are known
	// when the Queuer is also a QueueLoader; Capacity is 0 otherwise.
	InUse, Waiting, Capacity int
}

// GuardEvent is one activation of the context guard.
type GuardEvent struct {
	Provider, Model string
	// Trigger is tool_preflight or turn_preflight.
	Trigger string
	// Outcome is forced_final or skipped_provider.
	Outcome string
	// Measure holds the activation's numbers when the guard is a
	// GuardMeasurer; nil otherwise.
	Measure *GuardMeasure
}

// FinalReportEvent is the session's accepted final report.
type FinalReportEvent struct {
	// Source is tool-call, tool-message or synthetic.
	Source string
	// ForcedFinalReason is context, max_turns or none.
	ForcedFinalReason string
	SyntheticReason   string
	Status            string
	Turns             int
	Attempts          int
}

// nopObserver records nothing.
type nopObserver struct{}

func (nopObserver) StartSession(ctx context.Context, _ SessionInfo) (context.Context, func(SessionEnd)) {
	return ctx, func(SessionEnd) {}
}
func (nopObserver) StartTurn(ctx context.Context, _ int) (context.Context, func()) {
	return ctx, func() {}
}
func (nopObserver) StartLLM(ctx context.Context, _ LLMTarget) (context.Context, func(LLMEvent)) {
	return ctx, func(LLMEvent) {}
}
func (nopObserver) StartTool(ctx context.Context, _ string) (context.Context, func(ToolEvent)) {
	return ctx, func(ToolEvent) {}
}
func (nopObserver) Queue(context.Context, QueueEvent)             {}
func (nopObserver) ContextGuard(context.Context, GuardEvent)      {}
func (nopObserver) FinalReport(context.Context, FinalReportEvent) {}
func (nopObserver) RetryCollapse(context.Context, string)         {}

// queueEvent sends a queue event with the queue's load, when the Queuer
// reports it.
func (s *session) queueEvent(ctx context.Context, ev QueueEvent) {
	if l, ok := s.opts.Queuer.(QueueLoader); ok {
		ev.InUse, ev.Waiting, ev.Capacity = l.Load(ev.Queue)
	}
	s.opts.Observer.Queue(ctx, ev)
}

// guardEvent sends a guard activation with its numbers, when the guard
// reports them.
func (s *session) guardEvent(ctx context.Context, ev GuardEvent) {
	if m, ok := s.opts.Guard.(GuardMeasurer); ok {
		if g, ok := m.LastActivation(); ok {
			ev.Measure = &g
		}
	}
	s.opts.Observer.ContextGuard(ctx, ev)
}

// reportEvent describes the session's final report for the observer.
func (s *session) reportEvent() FinalReportEvent {
	ev := FinalReportEvent{Source: "tool-message", ForcedFinalReason: "none", Turns: s.turnsDone, Attempts: s.finalAttempts}
	if s.opts.Transport == TransportNative {
		ev.Source = "tool-call"
	}
	if s.report != nil {
		ev.Status = s.report.Status
	}
	switch {
	case s.syntheticReason != "":
		ev.Source, ev.SyntheticReason = "synthetic", s.syntheticReason
	case s.forced:
		ev.ForcedFinalReason = "context"
	case s.turnsDone >= s.opts.MaxTurns:
		ev.ForcedFinalReason = "max_turns"
	}
	return ev
}

// toolKind is the telemetry kind and provider label of a tool.
func toolKind(spec *toolSpec) (kind, provider string) {
	switch {
	case spec.internal:
		return "agent", "agent"
	case spec.Kind == "mcp":
		return "mcp", "mcp:" + spec.Server
	case spec.Kind == "":
		return "command", spec.Server
	}
	return string(spec.Kind), spec.Server
}

// runTool executes one call (execTool) inside the observer's tool step.
func (s *session) runTool(ctx context.Context, spec *toolSpec, args json.RawMessage, source string, inBatch bool) toolRun {
	ctx, end := s.opts.Observer.StartTool(ctx, spec.Name)
	r := s.execTool(ctx, spec, args, source, inBatch)
	ev := ToolEvent{Name: spec.Name, Latency: time.Duration(r.seconds * float64(time.Second)), InputBytes: len(args)}
	ev.Kind, ev.Provider = toolKind(spec)
	switch {
	case !r.failed:
		ev.OutputBytes = len(r.text)
	case r.code == "context_window_budget_exceeded":
		ev.Error, ev.ErrorType = r.reason, "token_budget_exceeded"
		s.guardEvent(ctx, GuardEvent{Trigger: "tool_preflight", Outcome: "forced_final"})
	case r.reason == "timeout":
		ev.Error, ev.ErrorType = r.reason, "timeout"
	default:
		ev.Error, ev.ErrorType = r.reason, "execution_error"
	}
	end(ev)
	return r
}

// reportStatus is the status of a result's final report, "" without one.
func reportStatus(res contract.AIAgentResult) string {
	if res.FinalReport == nil {
		return ""
	}
	return res.FinalReport.Status
}
