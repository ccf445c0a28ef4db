// Package agentfix is the Fix Agent's agent tier: an investigating fixer
// that runs a session on salve's own agent engine (package agent), with
// tools scoped to the heal's worktree. The model reads files and line
// ranges, searches the tree, lists folders, runs the failing tests through
// the heal's executor and reads salve's parsed reports, and proposes
// edits, which the heal's gate judges at once and answers with its rule
// ids; its final report ends the session. The edits the gate accepted are
// the fix, which the heal gates once more as a whole and commits.
//
// The tier never writes a file: the heal's workbench (heal.Workbench)
// reads the worktree for it, writes its accepted edits only for a test
// run, and puts the files back after. Nothing reaches the user's checkout,
// and nothing reaches the network but the model provider.
//
// The engine gives the session what it gives every ai-agent session:
// retries and round-robin fallback over the configured targets, the
// context guard, accounting, prompt caching where the provider has it,
// and the turn and cost caps. The tier adds its own budgets (tool calls,
// tokens, wall time); a session that runs out of any of them ends with no
// fix, naming the budget. Its prompt and tool descriptions live in this
// package and nowhere else.
package agentfix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/salve-dev/salve/contract"
	"github.com/salve-dev/salve/internal/agent"
	"github.com/salve-dev/salve/internal/agent/ctxguard/agentguard"
	"github.com/salve-dev/salve/internal/agent/tools"
	"github.com/salve-dev/salve/internal/heal"
	"github.com/salve-dev/salve/internal/heal/results"
	"github.com/salve-dev/salve/internal/llm/tokens"
)

// Name is the tier's name in results and --fixers.
const Name = "agent"

// DefaultToolTimeout bounds one tool call, a test run included.
const DefaultToolTimeout = 10 * time.Minute

// Fixer is the agent tier. Targets is required.
type Fixer struct {
	// Targets are the provider/model pairs in fallback order, built by
	// the one builder the llm tier uses (llmfix.TargetsFrom).
	Targets []agent.Target
	// Budgets bound each investigation; zero fields take the defaults.
	Budgets Budgets
	// Pricer prices the tokens of providers that report no cost; nil
	// prices nothing.
	Pricer agent.Pricer
	// MaxRetries is the attempts per turn across Targets; zero means
	// agent.DefaultMaxRetries.
	MaxRetries int
	// Timeout bounds each model request; zero means the engine default.
	Timeout time.Duration
	// ToolTimeout bounds each tool call; zero means DefaultToolTimeout.
	ToolTimeout time.Duration
	// Sleep waits before a retry; nil means a timer honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Logger receives the engine's logs; nil discards them.
	Logger *slog.Logger

	heal.Spending
}

var (
	_ heal.Investigator = (*Fixer)(nil)
	_ heal.Accountant   = (*Fixer)(nil)
)

// Name returns "agent".
func (f *Fixer) Name() string { return Name }

// Fix is the one-file fixer's call, outside a heal (salve fix): the agent
// tier investigates only in a heal's worktree, where it can run the
// tests, so it has nothing to offer here.
func (f *Fixer) Fix(context.Context, heal.FixInput) (contract.FixResult, error) {
	return contract.FixResult{}, fmt.Errorf("agent: the agent tier investigates inside salve heal, where it can run the tests: %w", results.ErrNoFix)
}

// ErrSession is wrapped when a session ended without a usable report (a
// fatal provider error, attempts exhausted).
var ErrSession = errors.New("agent session failed")

// report is the final report's content.
type report struct {
	FixReason       string  `json:"fix_reason"`
	ConfidenceScore float64 `json:"confidence_score"`
}

// reportSchema is the JSON Schema of the final report.
const reportSchema = `{"type":"object","properties":{"fix_reason":{"type":"string"},"confidence_score":{"type":"number","minimum":0,"maximum":1}},"required":["fix_reason","confidence_score"]}`

// Investigate runs one session for the group of in on bench and returns
// the edits the gate accepted, with the final report's reason and
// confidence. The error wraps results.ErrNoFix when the session made no
// fix (a budget ran out, naming it; the model gave up), ErrSession when
// it failed, or ctx's error; the session's record comes back either way.
func (f *Fixer) Investigate(ctx context.Context, in heal.FixInput, bench heal.Workbench) (heal.Investigation, error) {
	if len(f.Targets) == 0 {
		return heal.Investigation{}, fmt.Errorf("agent: no model configured: %w", results.ErrNotConfigured)
	}
	b := f.Budgets.withDefaults()
	started := time.Now()
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sctx, stop := context.WithTimeoutCause(sctx, b.Timeout, &budgetError{name: BudgetWallTime, detail: b.Timeout.String()})
	defer stop()
	w := &watch{maxTokens: b.MaxTokens, cancel: cancel}
	ws := &workspace{root: in.Workspace, bench: bench, watch: w, max: b.MaxToolCalls, cancel: cancel, pending: map[string]string{}}
	g, err := agentguard.New(f.Targets, tokens.Approx{}, f.Logger)
	if err != nil {
		return heal.Investigation{}, fmt.Errorf("agent: context guard: %w", err)
	}
	retries := f.MaxRetries
	if retries <= 0 {
		retries = agent.DefaultMaxRetries
	}
	toolTimeout := f.ToolTimeout
	if toolTimeout <= 0 {
		toolTimeout = DefaultToolTimeout
	}
	res := agent.Run(sctx, agent.Options{
		SystemPrompt: SystemPrompt, UserPrompt: UserPrompt(in, bench.Reach()), Targets: f.Targets,
		MaxTurns: b.MaxTurns, MaxToolCallsPerTurn: b.MaxToolCallsPerTurn, MaxRetries: retries, LLMTimeout: f.Timeout, ToolTimeout: toolTimeout,
		Format: agent.FormatJSON, Schema: json.RawMessage(reportSchema), Transport: agent.TransportNative,
		Tools: []tools.Provider{ws}, Guard: g, Observer: w, Pricer: f.Pricer, MaxCostUSD: b.MaxCostUSD,
		Sleep: f.Sleep, Logger: f.Logger,
	})
	f.Spend(res.Accounting)
	session := ws.session(res, w, time.Since(started))
	inv := heal.Investigation{Session: session}
	if ctx.Err() != nil {
		return inv, fmt.Errorf("agent: %w", ctx.Err())
	}
	if name, why := ranOut(sctx, res); name != "" {
		session.Budget = name
		return inv, fmt.Errorf("agent: %s: %w: %w", why, ErrBudget, results.ErrNoFix)
	}
	if !res.Success || res.FinalReport == nil {
		return inv, fmt.Errorf("agent: %w: %s", ErrSession, res.Error)
	}
	var rep report
	if err := json.Unmarshal(res.FinalReport.ContentJSON, &rep); err != nil {
		return inv, fmt.Errorf("agent: %w: the final report: %w", ErrSession, err)
	}
	inv.Result = contract.FixResult{FixReason: rep.FixReason, ConfidenceScore: rep.ConfidenceScore, Fixer: Name}
	inv.Edits = ws.accepted()
	if len(inv.Edits) == 0 {
		return inv, fmt.Errorf("agent: the session ended without an accepted edit (%q): %w", rep.FixReason, results.ErrNoFix)
	}
	return inv, nil
}

// ranOut names the budget that ended the session, and says how, or "".
func ranOut(sctx context.Context, res contract.AIAgentResult) (string, string) {
	var be *budgetError
	if errors.As(context.Cause(sctx), &be) {
		return be.name, be.Error()
	}
	if res.FinalReport == nil || res.FinalReport.Status == contract.ReportSuccess {
		return "", ""
	}
	switch res.FinalReport.Metadata["reason"] {
	case contract.ReasonMaxTurns:
		return BudgetTurns, fmt.Sprintf("the %s budget ran out (%v turns)", BudgetTurns, res.FinalReport.Metadata["turns_completed"])
	case agent.ReasonCostCap:
		return BudgetCost, fmt.Sprintf("the %s budget ran out (%s)", BudgetCost, res.Error)
	}
	return "", ""
}

// session builds the record of a finished session: its counts and its
// transcript, each model turn followed by its tool calls.
func (w *workspace) session(res contract.AIAgentResult, wt *watch, took time.Duration) *results.AgentSession {
	w.mu.Lock()
	s := &results.AgentSession{ToolCalls: int(w.calls.Load()), Edits: w.edits, Refused: w.refused, Trials: w.trials, Seconds: took.Seconds()}
	tools := append([]results.AgentStep(nil), w.steps...)
	w.mu.Unlock()
	wt.mu.Lock()
	s.InputTokens, s.OutputTokens, s.CachedTokens, s.CostUSD = wt.input, wt.output, wt.cached, wt.cost
	perTurn := wt.turnTokens
	wt.mu.Unlock()
	s.Turns = wt.current()
	turn := 0
	var steps []results.AgentStep
	for _, m := range res.Conversation {
		if m.Role != contract.RoleAssistant {
			continue
		}
		turn++
		text := m.Content
		for _, c := range m.ToolCalls {
			if c.Name == agent.ToolFinalReport {
				text += "\nfinal report: " + string(c.Parameters)
			}
		}
		steps = append(steps, results.AgentStep{Turn: turn, Kind: results.StepModel, Text: bound(text, maxResultShown), Tokens: perTurn[turn]})
	}
	steps = append(steps, tools...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Turn < steps[j].Turn })
	s.Steps = steps
	return s
}
