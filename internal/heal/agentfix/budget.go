package agentfix

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/config"
)

// Budgets bound one investigation. Zero fields take the Default* values
// (MaxCostUSD zero is no cap). Turns and cost are the engine's own caps
// (agent.Options.MaxTurns, agent.Options.MaxCostUSD); the tier enforces
// the others, and a session that runs out ends the attempt with no fix,
// naming the budget.
type Budgets struct {
	// MaxTurns bounds the model turns.
	MaxTurns int `json:"maxTurns"`
	// MaxToolCalls bounds the tool calls of the whole session.
	MaxToolCalls int `json:"maxToolCalls"`
	// MaxToolCallsPerTurn is the engine's cap of one turn's tool calls;
	// zero means the engine's default.
	MaxToolCallsPerTurn int `json:"maxToolCallsPerTurn"`
	// MaxTokens bounds the input plus output tokens of every request.
	MaxTokens int `json:"maxTokens"`
	// Timeout bounds the session's wall time, its test runs included.
	Timeout time.Duration `json:"-"`
	// MaxCostUSD caps the session's cost.
	MaxCostUSD float64 `json:"maxCostUsd"`
}

// The defaults of Budgets.
const (
	DefaultMaxTurns     = 24
	DefaultMaxToolCalls = 48
	DefaultMaxTokens    = 400_000
	DefaultTimeout      = 15 * time.Minute
)

// The budget names, as results and reasons say them.
const (
	BudgetTurns     = "turns"
	BudgetToolCalls = "tool calls"
	BudgetTokens    = "tokens"
	BudgetWallTime  = "wall time"
	BudgetCost      = "cost"
)

func (b Budgets) withDefaults() Budgets {
	if b.MaxTurns <= 0 {
		b.MaxTurns = DefaultMaxTurns
	}
	if b.MaxToolCalls <= 0 {
		b.MaxToolCalls = DefaultMaxToolCalls
	}
	if b.MaxTokens <= 0 {
		b.MaxTokens = DefaultMaxTokens
	}
	if b.Timeout <= 0 {
		b.Timeout = DefaultTimeout
	}
	return b
}

// ErrBudget is wrapped when a budget ran out.
var ErrBudget = errors.New("budget exhausted")

// budgetError is the cause a session's context is cancelled with when
// one of the tier's own budgets runs out.
type budgetError struct {
	name   string
	detail string
}

func (e *budgetError) Error() string {
	return fmt.Sprintf("the %s budget ran out (%s)", e.name, e.detail)
}
func (e *budgetError) Unwrap() error { return ErrBudget }

// section is the agent tier's section of the ai-agent configuration,
// "heal": {"agent": {…}}.
type section struct {
	Budgets
	Timeout string `json:"timeout"`
}

// BudgetsFrom reads the tier's budgets from an ai-agent configuration:
// the "heal.agent" section (maxTurns, maxToolCalls, maxToolCallsPerTurn,
// maxTokens, timeout, maxCostUsd), else the engine's settings every
// session shares (defaults.maxTurns, defaults.maxToolCallsPerTurn,
// budgets.maxCostUsd), else the tier's defaults.
// It also returns the configuration's pricing table, which prices the
// tokens of providers that report no cost. Errors wrap config.ErrConfig.
func BudgetsFrom(cfg *config.Config) (Budgets, agent.Pricer, error) {
	var b Budgets
	defaults, err := cfg.Defaults()
	if err != nil {
		return b, nil, err
	}
	for _, o := range []struct {
		key string
		dst *int
	}{{"maxTurns", &b.MaxTurns}, {"maxToolCallsPerTurn", &b.MaxToolCallsPerTurn}} {
		if v, ok, err := (config.Sources{Defaults: defaults}).Resolve(o.key); err != nil {
			return b, nil, err
		} else if ok {
			*o.dst = v.Int
		}
	}
	caps, err := cfg.Budgets()
	if err != nil {
		return b, nil, err
	}
	b.MaxCostUSD = caps.MaxCostUSD
	if err := cfg.Check("heal", "agent"); err != nil {
		return b, nil, err
	}
	var s section
	if err := cfg.Decode(&s, "heal", "agent"); err != nil {
		return b, nil, err
	}
	if s.MaxTurns < 0 || s.MaxToolCalls < 0 || s.MaxToolCallsPerTurn < 0 || s.MaxTokens < 0 || s.MaxCostUSD < 0 {
		return b, nil, fmt.Errorf("heal.agent: %w: budgets must not be negative", config.ErrConfig)
	}
	if s.Timeout != "" {
		d, err := config.ParseDuration(s.Timeout)
		if err != nil || d <= 0 {
			return b, nil, fmt.Errorf("heal.agent.timeout: %w: %q is not a duration", config.ErrConfig, s.Timeout)
		}
		b.Timeout = d
	}
	for _, o := range []struct{ dst, v *int }{{&b.MaxTurns, &s.MaxTurns}, {&b.MaxToolCalls, &s.MaxToolCalls}, {&b.MaxToolCallsPerTurn, &s.MaxToolCallsPerTurn}, {&b.MaxTokens, &s.MaxTokens}} {
		if *o.v > 0 {
			*o.dst = *o.v
		}
	}
	if s.MaxCostUSD > 0 {
		b.MaxCostUSD = s.MaxCostUSD
	}
	pricing, err := cfg.Pricing()
	if err != nil {
		return b, nil, err
	}
	var pricer agent.Pricer
	if len(pricing) > 0 {
		pricer = pricing
	}
	return b, pricer, nil
}

// watch is one session's observer: it follows the turns, sums the tokens
// and cost of every request, and cancels the session when the token
// budget runs out. It is safe for concurrent use.
type watch struct {
	maxTokens int
	cancel    context.CancelCauseFunc

	turn atomic.Int64

	mu     sync.Mutex
	input  int
	output int
	cached int
	cost   float64
	// turnTokens are the tokens of each turn's successful request.
	turnTokens map[int]int
}

var _ agent.Observer = (*watch)(nil)

func (w *watch) StartSession(ctx context.Context, _ agent.SessionInfo) (context.Context, func(agent.SessionEnd)) {
	return ctx, func(agent.SessionEnd) {}
}

func (w *watch) StartTurn(ctx context.Context, turn int) (context.Context, func()) {
	w.turn.Store(int64(turn))
	return ctx, func() {}
}

func (w *watch) StartLLM(ctx context.Context, _ agent.LLMTarget) (context.Context, func(agent.LLMEvent)) {
	return ctx, func(ev agent.LLMEvent) {
		e := ev.Entry
		w.mu.Lock()
		defer w.mu.Unlock()
		if e.CostUSD != nil {
			w.cost += *e.CostUSD
		}
		if e.Tokens == nil {
			return
		}
		w.input += e.Tokens.InputTokens
		w.output += e.Tokens.OutputTokens
		if e.Tokens.CacheReadInputTokens != nil {
			w.cached += *e.Tokens.CacheReadInputTokens
		} else if e.Tokens.CachedTokens != nil {
			w.cached += *e.Tokens.CachedTokens
		}
		if w.turnTokens == nil {
			w.turnTokens = map[int]int{}
		}
		w.turnTokens[int(w.turn.Load())] += e.Tokens.InputTokens + e.Tokens.OutputTokens
		if used := w.input + w.output; w.maxTokens > 0 && used >= w.maxTokens {
			w.cancel(&budgetError{name: BudgetTokens, detail: fmt.Sprintf("%d tokens used of %d", used, w.maxTokens)})
		}
	}
}

func (w *watch) StartTool(ctx context.Context, _ string) (context.Context, func(agent.ToolEvent)) {
	return ctx, func(agent.ToolEvent) {}
}
func (w *watch) Queue(context.Context, agent.QueueEvent)             {}
func (w *watch) ContextGuard(context.Context, agent.GuardEvent)      {}
func (w *watch) FinalReport(context.Context, agent.FinalReportEvent) {}
func (w *watch) RetryCollapse(context.Context, string)               {}

// current is the turn under way.
func (w *watch) current() int { return int(w.turn.Load()) }
