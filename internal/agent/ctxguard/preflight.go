package ctxguard

import (
	"context"
	"log/slog"
)

// ToolDecision is the outcome of [Guard.ToolPreflight].
type ToolDecision struct {
	// Commit is true when the output fits and was counted; false when it
	// must be replaced by [StubText].
	Commit bool
	// Tokens is the output's estimated tokens, as given.
	Tokens int
	// StubTokens is the cost of the replacement stub when dropped.
	StubTokens int
	// Projected is the projection with the output; Limit the tightest
	// limit; Remaining what was left before the output (may be negative).
	Projected, Limit, Remaining int
	// Blocked lists the targets the projection exceeded, when dropped.
	Blocked []Target
}

// ToolPreflight decides, before a tool output is committed to the
// conversation, whether it fits: projected = current + pending + new +
// schema + tokens. If it exceeds the limit, the output is dropped: the stub
// is counted instead, toolBudgetExceeded is set, the session is moved into
// forced-final handling, the blocked targets are recorded, and a warning is
// logged with projected_tokens, limit_tokens and remaining_tokens (the
// latter only when positive). Otherwise tokens join newCtxTokens.
func (g *Guard) ToolPreflight(ctx context.Context, tool string, tokens int) ToolDecision {
	tokens = max(0, tokens)
	g.mu.Lock()
	base := g.c.Projected()
	projected := base + tokens
	d := ToolDecision{Tokens: tokens, Projected: projected, Limit: g.Limit(), Remaining: g.Limit() - base}
	blocked := g.overLocked(projected)
	if len(blocked) == 0 {
		g.c.New += tokens
		g.mu.Unlock()
		d.Commit = true
		return d
	}
	g.c.New += g.stubTokens
	g.toolBudgetExceeded, g.forced = true, true
	g.blocked = blocked
	g.last = &Activation{Limit: d.Limit, Projected: projected, Remaining: d.Remaining}
	g.mu.Unlock()

	d.StubTokens, d.Blocked = g.stubTokens, blocked
	attrs := []slog.Attr{
		slog.String("tool", tool),
		slog.Int("tool_tokens", tokens),
		slog.Int("projected_tokens", projected),
		slog.Int("limit_tokens", d.Limit),
	}
	if d.Remaining > 0 {
		attrs = append(attrs, slog.Int("remaining_tokens", d.Remaining))
	}
	attrs = append(attrs,
		slog.String("blocked_provider", blocked[0].Provider),
		slog.String("blocked_model", blocked[0].Model),
		slog.String("forcedFinalTurnReason", ReasonContext))
	g.logOverflow(ctx, "tool output dropped: context window budget exceeded", attrs...)
	return d
}

// TurnDecision is the outcome of [Guard.TurnPreflight].
type TurnDecision struct {
	// ForceFinal is true when the next request must be the forced final
	// turn: the projection exceeds the limit now, or a tool output was
	// dropped earlier.
	ForceFinal bool
	// Projected and Limit are the evaluated projection and tightest limit.
	Projected, Limit int
	// Blocked lists the targets exceeded (the recorded ones when the guard
	// had already fired).
	Blocked []Target
}

// TurnPreflight runs before the next LLM request: it moves newCtxTokens into
// pendingCtxTokens, projects, and says whether the turn must be the forced
// final one. When it fires, the blocked targets are recorded and a warning
// is logged; the engine then calls [Guard.ForceFinal] after restricting the
// tools.
func (g *Guard) TurnPreflight(ctx context.Context) TurnDecision {
	g.mu.Lock()
	g.c.Pending += g.c.New
	g.c.New = 0
	projected := g.c.Projected()
	d := TurnDecision{Projected: projected, Limit: g.Limit()}
	blocked := g.overLocked(projected)
	if len(blocked) > 0 {
		g.blocked = blocked
		g.last = &Activation{Limit: d.Limit, Projected: projected, Remaining: d.Limit - g.c.Current - g.c.Schema}
	}
	firstTime := len(blocked) > 0 && !g.forced
	if len(blocked) > 0 {
		g.forced = true
	}
	d.ForceFinal = g.forced
	d.Blocked = append([]Target(nil), g.blocked...)
	g.mu.Unlock()

	if firstTime {
		g.logOverflow(ctx, "context guard: projected request exceeds the limit; forcing the final turn",
			slog.Int("projected_tokens", projected),
			slog.Int("limit_tokens", d.Limit),
			slog.String("blocked_provider", blocked[0].Provider),
			slog.String("blocked_model", blocked[0].Model),
			slog.String("forcedFinalTurnReason", ReasonContext))
	}
	return d
}

// FinalDecision is the outcome of [Guard.ForceFinal].
type FinalDecision struct {
	// Projected is the projection with the final instruction and the
	// final-report schema; Limit the tightest limit.
	Projected, Limit int
	// StillOver is true when even the shrunk request exceeds the limit;
	// the session proceeds best-effort and the warning has been logged.
	StillOver bool
	// Blocked lists the targets the shrunk projection still exceeds.
	Blocked []Target
}

// ForceFinal is called once the engine has injected the final instruction
// (instructionTokens) and restricted the tools to the final report, whose
// schema costs finalSchemaTokens. It counts the instruction, recomputes
// schemaCtxTokens for the reduced tool set, re-evaluates the projection and
// logs forcedFinalTurnReason=context; if the projection still exceeds the
// limit it logs the post-shrink warning.
func (g *Guard) ForceFinal(ctx context.Context, instructionTokens, finalSchemaTokens int) FinalDecision {
	g.mu.Lock()
	g.forced = true
	g.c.Pending += g.c.New + max(0, instructionTokens)
	g.c.New = 0
	g.c.Schema = max(0, finalSchemaTokens)
	projected := g.c.Projected()
	d := FinalDecision{Projected: projected, Limit: g.Limit()}
	d.Blocked = g.overLocked(projected)
	d.StillOver = len(d.Blocked) > 0
	g.mu.Unlock()

	g.logger.LogAttrs(ctx, slog.LevelInfo, "forced final turn",
		slog.String("forcedFinalTurnReason", ReasonContext),
		slog.Int("projected_tokens", projected),
		slog.Int("limit_tokens", d.Limit),
		slog.Int("schemaCtxTokens", finalSchemaTokens))
	if d.StillOver {
		g.logOverflow(ctx, "context guard: request still exceeds the limit after restricting tools to the final report; proceeding best-effort",
			slog.Int("projected_tokens", projected),
			slog.Int("limit_tokens", d.Limit),
			slog.Int("over_tokens", projected-d.Limit),
			slog.String("blocked_provider", d.Blocked[0].Provider),
			slog.String("blocked_model", d.Blocked[0].Model))
	}
	return d
}

// RequestMetrics are the figures of the `LLM request prepared` log line.
type RequestMetrics struct {
	// CtxTokens is currentCtxTokens: the ctx the previous response
	// reported, 0 before the first one.
	CtxTokens int
	// NewTokens is pendingCtxTokens at the moment of logging: the prompt
	// delta the model is about to receive.
	NewTokens int
	// SchemaTokens is schemaCtxTokens.
	SchemaTokens int
	// ExpectedTokens is CtxTokens + NewTokens + SchemaTokens.
	ExpectedTokens int
}

// RequestPrepared returns the metrics of the request about to be sent to
// target and logs them as `LLM request prepared`, with expectedTokens =
// ctxTokens + pendingCtxTokens + schemaCtxTokens. Call it for every attempt,
// after counting any retry notice with [Guard.AddPending].
func (g *Guard) RequestPrepared(ctx context.Context, target Target) RequestMetrics {
	g.mu.Lock()
	m := RequestMetrics{CtxTokens: g.c.Current, NewTokens: g.c.Pending + g.c.New, SchemaTokens: g.c.Schema}
	g.mu.Unlock()
	m.ExpectedTokens = m.CtxTokens + m.NewTokens + m.SchemaTokens
	g.logger.LogAttrs(ctx, slog.LevelInfo, "LLM request prepared",
		slog.String("provider", target.Provider),
		slog.String("model", target.Model),
		slog.Int("ctxTokens", m.CtxTokens),
		slog.Int("newTokens", m.NewTokens),
		slog.Int("pendingCtxTokens", m.NewTokens),
		slog.Int("schemaCtxTokens", m.SchemaTokens),
		slog.Int("expectedTokens", m.ExpectedTokens),
		slog.Int("limit_tokens", target.Limit()))
	return m
}
