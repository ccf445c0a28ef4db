package ctxguard

import (
	"context"
	"log/slog"
	"sync"

	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/tokens"
)

// Per-item overheads added to the estimates, in tokens: the chat format's
// role and separators per message, and the JSON wrapper per tool.
const (
	MessageOverhead = 4
	ToolOverhead    = 8
)

// Session adapts a [Guard] to an engine that hands it whole requests: it
// estimates the tokens of the messages appended since the last committed
// response and of the offered tools itself, with one tokens.Counter. Its
// ToolPreflight has the engine's signature; see docs/mcp.md "Integration
// guide" for the two-line adapters of TurnPreflight and Committed. It is
// safe for concurrent use.
type Session struct {
	g       *Guard
	counter tokens.Counter

	mu       sync.Mutex
	lastReq  []llm.Message // the request of the last committed response
	lastResp llm.Message   // that response, as the assistant message
	sent     []llm.Message // the request of the last preflight
}

// NewSession returns a session guard for targets, estimating with counter
// (nil means tokens.Approx).
func NewSession(targets []Target, counter tokens.Counter, logger *slog.Logger) (*Session, error) {
	if counter == nil {
		counter = tokens.Approx{}
	}
	g, err := New(Options{Targets: targets, StubTokens: counter.Count(StubText) + MessageOverhead, Logger: logger})
	if err != nil {
		return nil, err
	}
	return &Session{g: g, counter: counter}, nil
}

// Guard returns the underlying guard (counters, flags, blocked targets).
func (s *Session) Guard() *Guard { return s.g }

// Preflight is turn_preflight for the request about to go to target:
// pendingCtxTokens becomes the estimate of every message after the prefix
// already committed (tool outputs, notices, new input, the final
// instruction), schemaCtxTokens the estimate of defs. On a normal turn it
// returns true when the guard forces the final turn; the engine then
// rebuilds the request with only the final report and calls Preflight again
// with final set, which re-evaluates with the recomputed schema (logging
// forcedFinalTurnReason=context and, if still over, the post-shrink
// warning). Every call that returns false logs `LLM request prepared`.
func (s *Session) Preflight(ctx context.Context, target Target, msgs []llm.Message, defs []llm.ToolDef, final bool) bool {
	s.mu.Lock()
	prefix := commonPrefix(s.lastReq, msgs)
	// The committed reply is already in currentCtxTokens (its output).
	if prefix < len(msgs) && s.lastReq != nil && sameMessage(msgs[prefix], s.lastResp) {
		prefix++
	}
	s.sent = msgs
	s.mu.Unlock()
	pending := 0
	for _, m := range msgs[prefix:] {
		pending += s.MessageTokens(m)
	}
	s.g.SetPending(pending)
	schema := s.SchemaTokens(defs)
	switch {
	case final && s.g.Forced():
		s.g.ForceFinal(ctx, 0, schema)
	case final:
		s.g.SetSchemaTokens(schema)
		s.g.TurnPreflight(ctx)
	default:
		s.g.SetSchemaTokens(schema)
		if s.g.TurnPreflight(ctx).ForceFinal {
			return true
		}
	}
	s.g.RequestPrepared(ctx, target)
	return false
}

// ToolPreflight is tool_preflight for one tool output (after truncation):
// it returns false when the output must be dropped and replaced by
// [StubText].
func (s *Session) ToolPreflight(tool, output string) bool {
	return s.g.ToolPreflight(context.Background(), tool, s.counter.Count(output)+MessageOverhead).Commit
}

// Committed records a successful response to the last preflighted request:
// currentCtxTokens becomes its reported usage (or, without usage, grows by
// the estimate of what was sent plus the reply).
func (s *Session) Committed(resp llm.Response) {
	s.mu.Lock()
	s.lastReq = s.sent
	s.lastResp = llm.Message{Role: "assistant", Content: resp.Content, ToolCalls: resp.ToolCalls}
	s.mu.Unlock()
	out := s.counter.Count(resp.Content) + MessageOverhead
	for _, tc := range resp.ToolCalls {
		out += s.counter.Count(tc.Name) + s.counter.Count(tc.Arguments) + MessageOverhead
	}
	s.g.CommitResponse(resp.Usage, out)
}

// MessageTokens estimates one message.
func (s *Session) MessageTokens(m llm.Message) int {
	n := MessageOverhead + s.counter.Count(m.Content)
	for _, tc := range m.ToolCalls {
		n += s.counter.Count(tc.Name) + s.counter.Count(tc.Arguments) + MessageOverhead
	}
	for _, r := range m.Reasoning {
		n += s.counter.Count(r.Text)
	}
	return n
}

// SchemaTokens estimates the tool definitions of a request.
func (s *Session) SchemaTokens(defs []llm.ToolDef) int {
	n := 0
	for _, d := range defs {
		n += ToolOverhead + s.counter.Count(d.Name) + s.counter.Count(d.Description) + s.counter.Count(string(d.InputSchema))
	}
	return n
}

// commonPrefix counts the leading messages of next that are the permanent
// messages of prev (same role, content, call id and calls); ephemeral
// messages at the end of prev never match.
func commonPrefix(prev, next []llm.Message) int {
	n := 0
	for n < len(prev) && n < len(next) && !prev[n].Ephemeral && sameMessage(prev[n], next[n]) {
		n++
	}
	return n
}

func sameMessage(a, b llm.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	return true
}
