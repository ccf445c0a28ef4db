// Package agentguard plugs the context guard (package ctxguard) into the
// session engine: [Guard] implements agent.ContextGuard. The engine hands it
// each request whole; the guard estimates what was appended since the last
// committed response, the tool schema and each tool output with one
// tokens.Counter, and applies docs/contracts/ai-agent.md §2.
package agentguard

import (
	"context"
	"log/slog"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/ctxguard"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/tokens"
)

// DefaultContextWindow is used for a target without a context window
// (the default of docs/contracts/ai-agent-cli.md §9.4).
const DefaultContextWindow = 131072

// Guard is one session's context guard for the engine.
type Guard struct {
	s *ctxguard.Session
}

var (
	_ agent.ContextGuard  = (*Guard)(nil)
	_ agent.GuardMeasurer = (*Guard)(nil)
)

// New returns the guard of a session with the given targets. counter
// estimates tokens (nil means tokens.Approx); ai-agent builds it with
// tiktoken.New (package internal/llm/tokens/tiktoken) from the first target's
// `tokenizer` setting and model. logger receives the
// guard's lines (`LLM request prepared`, overflow drops, the forced final
// turn).
func New(targets []agent.Target, counter tokens.Counter, logger *slog.Logger) (*Guard, error) {
	ts := make([]ctxguard.Target, len(targets))
	for i, t := range targets {
		ts[i] = Convert(t)
	}
	s, err := ctxguard.NewSession(ts, counter, logger)
	if err != nil {
		return nil, err
	}
	return &Guard{s: s}, nil
}

// Convert maps an engine target to a guard target: contextWindow (default
// 131072), contextWindowBufferTokens and the target's maxOutputTokens.
func Convert(t agent.Target) ctxguard.Target {
	window := t.ContextWindow
	if window <= 0 {
		window = DefaultContextWindow
	}
	return ctxguard.Target{Provider: t.Provider, Model: t.Model, ContextWindow: window,
		BufferTokens: t.ContextWindowBufferTokens, MaxOutputTokens: t.Params.MaxOutputTokens}
}

// Session returns the underlying session guard (counters, flags, the
// blocked targets).
func (g *Guard) Session() *ctxguard.Session { return g.s }

// TurnPreflight implements agent.ContextGuard: turn_preflight before each
// attempt. With t.Final it is the forced-final re-evaluation (or a plain
// check on a final turn the guard did not force) and never forces.
func (g *Guard) TurnPreflight(t agent.GuardTurn) bool {
	return g.s.Preflight(context.Background(), Convert(t.Target), t.Messages, t.Tools, t.Final)
}

// ToolPreflight implements agent.ContextGuard: tool_preflight before a tool
// output (already truncated) is committed; false drops it for the stub.
func (g *Guard) ToolPreflight(tool, output string) bool { return g.s.ToolPreflight(tool, output) }

// LastActivation implements agent.GuardMeasurer: the numbers of the
// latest dropped tool output or forced final turn.
func (g *Guard) LastActivation() (agent.GuardMeasure, bool) {
	a, ok := g.s.Guard().LastActivation()
	return agent.GuardMeasure{Limit: a.Limit, Projected: a.Projected, Remaining: a.Remaining}, ok
}

// Committed implements agent.ContextGuard: the response's usage becomes
// currentCtxTokens.
func (g *Guard) Committed(_ agent.Target, resp llm.Response) { g.s.Committed(resp) }
