package agent

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/salve-dev/salve/contract"
)

// ReasonCostCap is the synthetic report's reason when a cost budget cap
// ends a session (docs/ai-agent.md "Telemetry and cost").
const ReasonCostCap = "cost_budget_exceeded"

// Pricer prices the tokens of one LLM response from a pricing table
// (config's pricing section). ok is false when the table has no entry for
// the provider and model.
type Pricer interface {
	Cost(provider, model string, usage contract.TokenUsage) (usd float64, ok bool)
}

// Budget is a cost cap in USD that one or more sessions spend from: a
// session's own cap, or a headend's, shared by every session it serves.
// It is safe for concurrent use.
type Budget struct {
	// Name says which cap this is in the failure report ("session
	// maxCostUsd", "headend openai-completions maxCostUsd").
	Name string
	// LimitUSD is the cap; zero or less means none.
	LimitUSD float64

	mu    sync.Mutex
	spent float64
}

// NewBudget returns a budget with the given name and cap.
func NewBudget(name string, limitUSD float64) *Budget {
	return &Budget{Name: name, LimitUSD: limitUSD}
}

// Add records spending.
func (b *Budget) Add(usd float64) {
	if usd <= 0 || math.IsNaN(usd) || math.IsInf(usd, 0) {
		return
	}
	b.mu.Lock()
	b.spent += usd
	b.mu.Unlock()
}

// Spent is what was spent so far.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Reached reports whether the cap is set and was reached.
func (b *Budget) Reached() bool {
	return b.LimitUSD > 0 && b.Spent() >= b.LimitUSD
}

// price fills e.CostUSD from the pricing table when the provider reported
// none: a provider-reported cost wins. The table is looked up under the
// router's actual provider and model first (docs/ai-agent.md "Telemetry
// and cost").
func (s *session) price(e *contract.AccountingEntry) {
	if e.CostUSD != nil || s.opts.Pricer == nil || e.Tokens == nil || e.Status != contract.AccountingOK {
		return
	}
	prov, model := e.Provider, e.Model
	if e.ActualProvider != "" {
		prov = e.ActualProvider
	}
	if e.ActualModel != "" {
		model = e.ActualModel
	}
	if usd, ok := s.opts.Pricer.Cost(prov, model, *e.Tokens); ok && !math.IsNaN(usd) && !math.IsInf(usd, 0) {
		e.CostUSD = &usd
	}
}

// spend charges an LLM entry's cost to the session's budgets.
func (s *session) spend(e contract.AccountingEntry) {
	if e.CostUSD == nil {
		return
	}
	s.costUSD += *e.CostUSD
	for _, b := range s.budgets {
		b.Add(*e.CostUSD)
	}
}

// capReached names the first budget cap that was reached, "" when none.
func (s *session) capReached() string {
	for _, b := range s.budgets {
		if b.Reached() {
			return fmt.Sprintf("cost budget cap reached: %s %.4f USD (spent %.4f USD)", b.Name, b.LimitUSD, b.Spent())
		}
	}
	return ""
}

// Limits are what a session hands on to the sessions its tools start (a
// sub-agent): the headend it serves, for the telemetry label, and its cost
// budgets, so that a child's spending counts against the caps its parent
// runs under and a child stops once one is reached.
type Limits struct {
	Headend string
	Budgets []*Budget
}

// limitsKey keys a session's Limits in the context its tools run with.
type limitsKey struct{}

// LimitsFrom returns the Limits of the session whose tool call ctx
// belongs to; ok is false outside a tool call.
func LimitsFrom(ctx context.Context) (l Limits, ok bool) {
	l, ok = ctx.Value(limitsKey{}).(Limits)
	return l, ok
}

// withLimits is ctx carrying the session's Limits, for its tool calls.
func (s *session) withLimits(ctx context.Context) context.Context {
	return context.WithValue(ctx, limitsKey{}, Limits{Headend: s.opts.Headend, Budgets: s.budgets})
}

// WithLimits is ctx carrying the session's Limits, for sessions run on
// its behalf outside its tool calls (its advisors, router destination
// and handoff), so that they spend from its caps and serve its headend.
func (x *Session) WithLimits(ctx context.Context) context.Context {
	return x.s.withLimits(ctx)
}
