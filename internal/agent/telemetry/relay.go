package telemetry

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"

	"github.com/salve-dev/salve/internal/agent"
)

var _ agent.Observer = (*Relay)(nil)

// Relay implements agent.Observer by writing each call as a Message line
// to w (the helper's input). It is safe for concurrent use; after the
// first failed write it drops everything (telemetry never fails a run).
type Relay struct {
	mu     sync.Mutex
	w      io.Writer
	failed bool
	next   atomic.Uint64
	// onError, when set, is told of the first failed write.
	onError func(error)
}

// NewRelay returns a Relay writing to w; onError may be nil.
func NewRelay(w io.Writer, onError func(error)) *Relay {
	return &Relay{w: w, onError: onError}
}

type stepKey struct{}

func parentOf(ctx context.Context) uint64 {
	id, _ := ctx.Value(stepKey{}).(uint64)
	return id
}

func (r *Relay) send(m Message) {
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	b = append(b, '\n')
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed {
		return
	}
	if _, err := r.w.Write(b); err != nil {
		r.failed = true
		if r.onError != nil {
			r.onError(err)
		}
	}
}

// start sends a start op and returns the step's context and id.
func (r *Relay) start(ctx context.Context, m Message) (context.Context, uint64) {
	m.ID = r.next.Add(1)
	m.Parent = parentOf(ctx)
	r.send(m)
	return context.WithValue(ctx, stepKey{}, m.ID), m.ID
}

// StartSession implements agent.Observer.
func (r *Relay) StartSession(ctx context.Context, info agent.SessionInfo) (context.Context, func(agent.SessionEnd)) {
	ctx, id := r.start(ctx, Message{Op: OpSession, Session: &info})
	return ctx, func(e agent.SessionEnd) { r.send(Message{Op: OpEnd, ID: id, SessionEnd: &e}) }
}

// StartTurn implements agent.Observer.
func (r *Relay) StartTurn(ctx context.Context, turn int) (context.Context, func()) {
	ctx, id := r.start(ctx, Message{Op: OpTurn, Turn: turn})
	return ctx, func() { r.send(Message{Op: OpEnd, ID: id}) }
}

// StartLLM implements agent.Observer.
func (r *Relay) StartLLM(ctx context.Context, t agent.LLMTarget) (context.Context, func(agent.LLMEvent)) {
	ctx, id := r.start(ctx, Message{Op: OpLLM, LLM: &t})
	return ctx, func(e agent.LLMEvent) { r.send(Message{Op: OpEnd, ID: id, LLMEnd: &e}) }
}

// StartTool implements agent.Observer.
func (r *Relay) StartTool(ctx context.Context, name string) (context.Context, func(agent.ToolEvent)) {
	ctx, id := r.start(ctx, Message{Op: OpTool, ToolName: name})
	return ctx, func(e agent.ToolEvent) { r.send(Message{Op: OpEnd, ID: id, ToolEnd: &e}) }
}

// Queue implements agent.Observer.
func (r *Relay) Queue(ctx context.Context, ev agent.QueueEvent) {
	r.send(Message{Op: OpQueue, Parent: parentOf(ctx), Queue: &ev})
}

// ContextGuard implements agent.Observer.
func (r *Relay) ContextGuard(ctx context.Context, ev agent.GuardEvent) {
	r.send(Message{Op: OpGuard, Parent: parentOf(ctx), Guard: &ev})
}

// FinalReport implements agent.Observer.
func (r *Relay) FinalReport(ctx context.Context, ev agent.FinalReportEvent) {
	r.send(Message{Op: OpReport, Parent: parentOf(ctx), Report: &ev})
}

// RetryCollapse implements agent.Observer.
func (r *Relay) RetryCollapse(ctx context.Context, reason string) {
	r.send(Message{Op: OpCollapse, Parent: parentOf(ctx), Reason: reason})
}

// MCPServer sends a change of a supervised MCP server's state. It is not
// part of agent.Observer: a server outlives the sessions that use it.
func (r *Relay) MCPServer(ev MCPEvent) {
	r.send(Message{Op: OpMCP, MCP: &ev})
}

// Log sends one log record, for the OTLP log export. It is not part of
// agent.Observer: LogHandler calls it for every record it exports.
func (r *Relay) Log(rec LogRecord) {
	r.send(Message{Op: OpLog, Log: &rec})
}
