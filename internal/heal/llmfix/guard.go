package llmfix

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/ctxguard"
	"github.com/salve-dev/salve/internal/agent/ctxguard/agentguard"
	"github.com/salve-dev/salve/internal/llm"
	"github.com/salve-dev/salve/internal/llm/tokens"
)

// ErrContextWindow is wrapped when the fix request does not fit the context
// window of any target: nothing was sent.
var ErrContextWindow = errors.New("fix request exceeds the context window")

// windowGuard is one fix session's context guard: the engine's guard
// (package agentguard), estimating with tokens.Approx, plus one rule of
// heal's own. ai-agent sends a request that still overflows after the
// forced final turn, best-effort; a fix request is one prompt holding the
// whole file, so if it does not fit a target's window it never will, and
// the attempt on that target fails without being sent (the engine then
// cycles to the next target). salve does not link the exact tiktoken
// counters; Approx errs high, so a request close to the limit is refused
// here rather than sent to be rejected by the provider.
type windowGuard struct {
	*agentguard.Guard

	mu      sync.Mutex
	last    *overflow // the verdict of the latest turn_preflight, nil if it fits
	hit     *overflow // the latest refused attempt
	sent    bool      // a request went to a provider
	refused map[ctxguard.Target]bool
	targets int
}

var _ agent.ContextGuard = (*windowGuard)(nil)

// overflow is a projection over one target's limit.
type overflow struct {
	target    ctxguard.Target
	projected int
}

// describe names the target, its context window and the estimate.
func (o *overflow) describe() string {
	t := o.target
	return fmt.Sprintf("%s: the request is about %d tokens; its context window of %d leaves %d (buffer %d, max output %d); not sent",
		t, o.projected, t.ContextWindow, t.Limit(), t.BufferTokens, t.MaxOutputTokens)
}

func newWindowGuard(targets []agent.Target, logger *slog.Logger) (*windowGuard, error) {
	g, err := agentguard.New(targets, tokens.Approx{}, logger)
	if err != nil {
		return nil, err
	}
	return &windowGuard{Guard: g, refused: make(map[ctxguard.Target]bool), targets: len(targets)}, nil
}

// TurnPreflight implements agent.ContextGuard: the engine's turn_preflight,
// then the verdict on the target of this attempt for its client.
func (g *windowGuard) TurnPreflight(t agent.GuardTurn) bool {
	force := g.Guard.TurnPreflight(t)
	target := agentguard.Convert(t.Target)
	projected := g.Session().Guard().Counters().Projected()
	g.mu.Lock()
	g.last = nil
	if projected > target.Limit() {
		g.last = &overflow{target: target, projected: projected}
	}
	g.mu.Unlock()
	return force
}

// refuse returns the overflow when the request just preflighted for target
// exceeds its limit, and records it; otherwise it records that the request
// is sent. last is true when every target has now refused and none was
// sent: retrying cannot help.
func (g *windowGuard) refuse(target ctxguard.Target) (o *overflow, last bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.last == nil || g.last.target != target {
		g.sent = true
		return nil, false
	}
	g.hit = g.last
	g.refused[target] = true
	return g.hit, !g.sent && len(g.refused) == g.targets
}

// refusedAll returns the latest refused attempt when no request was sent
// in the session, or nil.
func (g *windowGuard) refusedAll() *overflow {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sent {
		return nil
	}
	return g.hit
}

// guardedClient sends a request only when the guard's latest verdict lets
// it fit the target.
type guardedClient struct {
	next   llm.Provider
	guard  *windowGuard
	target ctxguard.Target
}

// Complete implements llm.Provider. A refused request fails as a model
// error, which the engine answers by cycling to the next target; once every
// target has refused, it fails as fatal and ends the session.
func (c guardedClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	o, last := c.guard.refuse(c.target)
	if o == nil {
		return c.next.Complete(ctx, req)
	}
	class := llm.ClassModel
	if last {
		class = llm.ClassFatal
	}
	return llm.Response{}, &llm.Error{Class: class, Message: ErrContextWindow.Error() + ": " + o.describe(), Err: ErrContextWindow}
}

// guard wires a windowGuard into targets: it returns the guard and the
// targets with their clients behind it.
func guard(targets []agent.Target, logger *slog.Logger) (*windowGuard, []agent.Target, error) {
	g, err := newWindowGuard(targets, logger)
	if err != nil {
		return nil, nil, fmt.Errorf("llm: context guard: %w", err)
	}
	out := make([]agent.Target, len(targets))
	for i, t := range targets {
		t.Client = guardedClient{next: t.Client, guard: g, target: agentguard.Convert(t)}
		out[i] = t
	}
	return g, out, nil
}
