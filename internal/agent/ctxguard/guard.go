// Package ctxguard is the context guard of an ai-agent session
// (docs/contracts/ai-agent.md §2 "Context management"). It keeps the four
// counters of the contract, projects the size of the next request, and
// decides:
//   - at tool_preflight ([Guard.ToolPreflight]), whether a tool output is
//     committed to the conversation or replaced by [StubText];
//   - at turn_preflight ([Guard.TurnPreflight]), whether the next request
//     must be the forced final turn;
//   - after the tools are restricted to the final report
//     ([Guard.ForceFinal]), whether the shrunk request still overflows.
//
// The guard only counts and decides; the session engine injects the final
// instruction, restricts the tools and builds the requests. All methods are
// safe for concurrent use, because tool outputs arrive from parallel calls.
//
// # Counters
//
//   - currentCtxTokens: what the previous successful response reported,
//     inputTokens + outputTokens + cacheReadInputTokens (0 before the first
//     request).
//   - pendingCtxTokens: estimated tokens appended since the last request
//     (prompts, tool outputs, retry notices, the final instruction).
//   - newCtxTokens: tool outputs of the current turn, moved into pending by
//     every evaluation.
//   - schemaCtxTokens: the tool schema offered on the next request.
//
// projected = current + pending + new + schema; a target's limit is
// contextWindow − contextWindowBufferTokens − maxOutputTokens.
package ctxguard

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/salve-dev/salve/contract"
)

// StubText replaces a tool output that would overflow the context window
// (docs/contracts/ai-agent.md §2 "Tool Overflow Handling";
// docs/contracts/ai-agent-cli.md §11).
const StubText = "(tool failed: context window budget exceeded)"

// ReasonContext is the forcedFinalTurnReason the guard logs.
const ReasonContext = "context"

// FinalReportTool is the one tool allowed after the guard fired.
const FinalReportTool = "agent__final_report"

// Target is one provider/model pair the session may send a request to, with
// the three settings that bound its prompt.
type Target struct {
	Provider, Model string
	// ContextWindow is the model's capacity in tokens.
	ContextWindow int
	// BufferTokens is contextWindowBufferTokens, a safety margin.
	BufferTokens int
	// MaxOutputTokens is reserved for the model's reply.
	MaxOutputTokens int
}

// Limit is the most tokens a prompt for t may project to:
// contextWindow − contextWindowBufferTokens − maxOutputTokens.
func (t Target) Limit() int { return t.ContextWindow - t.BufferTokens - t.MaxOutputTokens }

// String is "provider/model".
func (t Target) String() string { return t.Provider + "/" + t.Model }

// Counters are the guard's four counters (see the package doc).
type Counters struct {
	Current, Pending, New, Schema int
}

// Projected is current + pending + new + schema.
func (c Counters) Projected() int { return c.Current + c.Pending + c.New + c.Schema }

// ErrNoTargets is returned by [New] without any target.
var ErrNoTargets = errors.New("ctxguard: no targets")

// Options configure a [Guard].
type Options struct {
	// Targets are the session's provider/model targets; at least one.
	Targets []Target
	// StubTokens is the estimated token cost of [StubText] with the
	// session's tokenizer; zero means 10.
	StubTokens int
	// Logger receives the guard's log lines; nil discards them.
	Logger *slog.Logger
}

// Guard is one session's context guard. Create it with [New].
type Guard struct {
	targets    []Target
	stubTokens int
	logger     *slog.Logger

	mu                 sync.Mutex
	c                  Counters
	toolBudgetExceeded bool
	forced             bool
	blocked            []Target
	last               *Activation
}

// Activation is the numbers of one time the guard fired, in tokens: the
// tightest limit, the projection that exceeded it, and what was left under
// the limit before the item weighed (the tool output for tool_preflight;
// the messages since the last response for turn_preflight), which may be
// negative.
type Activation struct {
	Limit, Projected, Remaining int
}

// LastActivation returns the numbers of the latest time the guard dropped
// a tool output or forced the final turn; false before the first.
func (g *Guard) LastActivation() (Activation, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.last == nil {
		return Activation{}, false
	}
	return *g.last, true
}

// New returns a guard for the targets, with every counter at zero.
func New(opts Options) (*Guard, error) {
	if len(opts.Targets) == 0 {
		return nil, ErrNoTargets
	}
	g := &Guard{
		targets:    append([]Target(nil), opts.Targets...),
		stubTokens: opts.StubTokens,
		logger:     opts.Logger,
	}
	if g.stubTokens <= 0 {
		g.stubTokens = 10
	}
	if g.logger == nil {
		g.logger = slog.New(slog.DiscardHandler)
	}
	return g, nil
}

// Counters returns a snapshot of the four counters.
func (g *Guard) Counters() Counters {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.c
}

// Limit is the tightest limit over the targets, the one projections are
// checked against: any attempt of a turn may go to any target.
func (g *Guard) Limit() int {
	l := g.targets[0].Limit()
	for _, t := range g.targets[1:] {
		l = min(l, t.Limit())
	}
	return l
}

// ToolBudgetExceeded reports whether a tool output was dropped (the
// orchestrator's toolBudgetExceeded flag).
func (g *Guard) ToolBudgetExceeded() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.toolBudgetExceeded
}

// Forced reports whether the guard moved the session into forced-final
// handling.
func (g *Guard) Forced() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.forced
}

// Blocked returns the targets whose limit the last overflowing projection
// exceeded, tightest first.
func (g *Guard) Blocked() []Target {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Target(nil), g.blocked...)
}

// AllowTool reports whether a tool may start now. After the guard fired
// (a dropped output or a forced final turn) only [FinalReportTool] may; the
// engine answers other calls with a failure and never starts them.
func (g *Guard) AllowTool(name string) bool {
	if name == FinalReportTool {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.toolBudgetExceeded && !g.forced
}

// AddPending counts tokens appended to the conversation outside tool
// outputs: the prompts before turn 1, retry notices, new user input.
func (g *Guard) AddPending(tokens int) {
	g.mu.Lock()
	g.c.Pending += max(0, tokens)
	g.mu.Unlock()
}

// SetPending replaces pendingCtxTokens and clears newCtxTokens, for
// callers that measure everything appended since the last request from the
// request itself (see [Session]).
func (g *Guard) SetPending(tokens int) {
	g.mu.Lock()
	g.c.Pending, g.c.New = max(0, tokens), 0
	g.mu.Unlock()
}

// SetSchemaTokens sets the token cost of the tool schema offered on the next
// request.
func (g *Guard) SetSchemaTokens(tokens int) {
	g.mu.Lock()
	g.c.Schema = max(0, tokens)
	g.mu.Unlock()
}

// CommitResponse records a successful response: current becomes the
// provider's inputTokens + outputTokens + cacheReadInputTokens, and pending
// and new start again from zero. When the provider reported no usage at all,
// current grows by what was pending plus estimatedOutput instead.
func (g *Guard) CommitResponse(usage contract.TokenUsage, estimatedOutput int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if usage.InputTokens == 0 && usage.OutputTokens == 0 {
		g.c.Current += g.c.Pending + g.c.New + max(0, estimatedOutput)
	} else {
		g.c.Current = usage.InputTokens + usage.OutputTokens + deref(usage.CacheReadInputTokens)
	}
	g.c.Pending, g.c.New = 0, 0
}

// overLocked returns the targets whose limit projected exceeds, tightest
// first.
func (g *Guard) overLocked(projected int) []Target {
	var out []Target
	for _, t := range g.targets {
		if projected > t.Limit() {
			out = append(out, t)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Limit() < out[j-1].Limit(); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func targetNames(ts []Target) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// logOverflow writes the audit line of a decision that exceeded the limit.
func (g *Guard) logOverflow(ctx context.Context, msg string, attrs ...slog.Attr) {
	g.logger.LogAttrs(ctx, slog.LevelWarn, msg, attrs...)
}
